// `kafkasim list` reads each shipped scenario's name and description line without the YAML library when the header
// is written the plain way (plainHeader); the result must be what the YAML parser reads, and anything else must
// still be read by the parser.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { listShippedScenarios, plainHeader, SCENARIOS_DIR } from '../../src/scenario/shipped.ts';

const dir = mkdtempSync(join(tmpdir(), 'kafkasim-shipped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the shipped scenarios list', () => {
  const files = readdirSync(SCENARIOS_DIR).filter((f) => f.endsWith('.yaml'));

  it.each(files)('%s: the plain reading is taken and equals the YAML parser’s', (f) => {
    const text = readFileSync(join(SCENARIOS_DIR, f), 'utf8');
    const doc = parse(text) as { name: string; description: string };
    const listed = listShippedScenarios().find((s) => `${s.id}.yaml` === f);
    expect(listed).toMatchObject({ name: doc.name, summary: doc.description.trim().split('\n')[0]!.trim() });
    // Every shipped header is plain, so `kafkasim list` never loads the YAML library.
    expect(plainHeader(text)).toEqual({ name: listed!.name, summary: listed!.summary });
  });

  it('a header written otherwise is read by the YAML parser', () => {
    const cases: [string, string, string][] = [
      ['quoted.yaml', 'name: "quoted name"\ndescription: |\n  First line.\n  Second.\n', 'quoted name'],
      ['folded.yaml', 'name: folded\ndescription: >\n  Folded first\n  and second.\n', 'folded'],
      ['flow.yaml', '{name: flow, description: "Flow style."}\n', 'flow'],
      ['inline.yaml', 'name: inline\ndescription: One line only.\n', 'inline'],
    ];
    for (const [file, text] of cases) {
      writeFileSync(join(dir, file), text);
      expect(plainHeader(text)).toBeUndefined();
    }
    expect(listShippedScenarios(dir).map((s) => [s.id, s.name, s.summary])).toEqual([
      ['flow', 'flow', 'Flow style.'],
      ['folded', 'folded', 'Folded first and second.'],
      ['inline', 'inline', 'One line only.'],
      ['quoted', 'quoted name', 'First line.'],
    ]);
  });
});
