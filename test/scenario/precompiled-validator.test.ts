// The build's precompiled scenario validator (ajv standalone code, see precompile-validator.ts) gives the same
// verdict as the schema compiled by ajv at run time: on every shipped scenario, and on documents broken in each
// way the schema checks (unknown key, wrong type, missing key, a value outside a union).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { listShippedScenarios } from '../../src/scenario/index.ts';
import { scenarioValidatorSource } from '../../src/scenario/precompile-validator.ts';
import { validateAgainstSchema } from '../../src/scenario/schema-errors.ts';

function precompiled(): (data: unknown) => boolean {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', 'require', scenarioValidatorSource())(
    module,
    module.exports,
    createRequire(import.meta.url),
  );
  return module.exports as (data: unknown) => boolean;
}

describe('precompiled scenario validator', () => {
  const validate = precompiled();
  const shipped = listShippedScenarios().map((s) => ({ id: s.id, doc: parse(readFileSync(s.file, 'utf8')) }));

  it('accepts every shipped scenario, as the runtime-compiled schema does', () => {
    expect(shipped.length).toBeGreaterThan(10);
    for (const { id, doc } of shipped) {
      expect(validateAgainstSchema(doc), id).toEqual([]);
      expect(validate(doc), id).toBe(true);
    }
  });

  const broken: [string, (doc: Record<string, unknown>) => void][] = [
    ['an unknown top-level key', (d) => (d.seedz = 1)],
    ['an unknown key in a topic', (d) => ((d.topics as Record<string, unknown>[])[0]!.partitionz = 4)],
    [
      'a string where a number belongs',
      (d) => ((d.topics as Record<string, unknown>[])[0]!.partitions = 'four'),
    ],
    ['a missing required key', (d) => delete (d.topics as Record<string, unknown>[])[0]!.name],
    ['a step with no action', (d) => (d.timeline as unknown[]).push({ at: '1s' })],
    ['a storage outside its enum', (d) => ((d.cluster as Record<string, unknown>).storage = 'tape')],
  ];
  for (const [what, breakIt] of broken) {
    it(`refuses ${what}, as the runtime-compiled schema does`, () => {
      const doc = structuredClone(shipped.find((s) => s.id === 'broker-failure-rf3')!.doc);
      breakIt(doc);
      expect(validateAgainstSchema(doc)).not.toEqual([]);
      expect(validate(doc)).toBe(false);
    });
  }
});
