// `kafkasim run ... --report FILE.html`: the report is written next to the usual output and describes that run.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const DEMO = fileURLToPath(new URL('./fixtures/report-demo.yaml', import.meta.url));

async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(['run', ...args], io);
  return { code, out: io.text(), err: io.errors() };
}

describe('kafkasim run --report', () => {
  it('writes one self-contained page about the same run the summary describes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kafkasim-run-')), 'run.html');
    const r = await run(DEMO, '--report', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Report written to ${file}`);
    const json = await run(DEMO, '--json');
    const { traceHash } = JSON.parse(json.out) as { traceHash: string };
    expect(r.out).toContain(`trace hash ${traceHash}`); // the report did not change the run
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<title>kafkasim report: report-demo (seed 1)</title>');
    expect(html).toContain(`trace ${traceHash}`);
    expect(html).toContain('kafkasim run');
    expect(html).not.toContain(file); // the command line shown leaves out where the report went
    for (const id of [
      'chart-network',
      'chart-placement',
      'chart-producer',
      'chart-lag',
      'expectations-table',
    ])
      expect(html).toContain(`id="${id}"`);
  });

  it('refuses an unwritable path before running (exit 2)', async () => {
    const r = await run(DEMO, '--report', '/nonexistent-dir/x.html');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--report: cannot write \/nonexistent-dir\/x\.html \(ENOENT\)/);
  });

  it('leaves no file behind when the scenario is invalid', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kafkasim-run-')), 'bad.html');
    const r = await run(DEMO, '--set', 'topics.0.partitions=none', '--report', file);
    expect(r.code).toBe(2);
    expect(existsSync(file)).toBe(false);
  });
});
