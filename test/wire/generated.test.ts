// The committed generated codec is exactly what the generator makes from the committed definitions: a change to
// either without regenerating (npm run gen:wire) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { generateAll } from '../../scripts/gen-wire-codec.ts';

it('regenerating src/wire/generated from src/wire/definitions gives the committed files', () => {
  const root = join(import.meta.dirname, '../..');
  const fresh = generateAll(join(root, 'src/wire/definitions'));
  const dir = join(root, 'src/wire/generated');
  expect(readdirSync(dir).sort()).toEqual([...fresh.keys()].sort());
  for (const [name, code] of fresh) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(code);
});

it('every copied definition keeps its Apache licence header', () => {
  const dir = join(import.meta.dirname, '../../src/wire/definitions');
  for (const f of readdirSync(dir))
    expect(readFileSync(join(dir, f), 'utf8'), f).toMatch(/^\/\/ Licensed to the Apache Software Foundation/);
});
