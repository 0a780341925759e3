// The public API (src/index.ts) and its documentation (docs/library-api.md) name the same exports: a new export
// must be documented, a removed one must leave the page, and nothing of the kernel's internals slips in.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.ts';

const INDEX = readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8');
const DOC = readFileSync(new URL('../docs/library-api.md', import.meta.url), 'utf8');

/** Every name src/index.ts exports, with whether it is a type only. */
function indexExports(): Map<string, { typeOnly: boolean }> {
  const names = new Map<string, { typeOnly: boolean }>();
  const code = INDEX.replace(/\/\/.*$/gm, '');
  for (const m of code.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s+from/g)) {
    for (const raw of m[2]!.split(',')) {
      const spec = raw.trim();
      if (!spec) continue;
      const typeOnly = Boolean(m[1]) || spec.startsWith('type ');
      const name = spec
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!;
      names.set(name, { typeOnly });
    }
  }
  for (const m of code.matchAll(/export\s+\*\s+as\s+(\w+)\s+from/g)) names.set(m[1]!, { typeOnly: false });
  expect(code).not.toMatch(/export\s+\*\s+from/); // a wildcard would export whatever a module adds
  return names;
}

/** The names the page documents: the first code span of each table row. */
function documented(): Set<string> {
  const names = new Set<string>();
  for (const m of DOC.matchAll(/^\| `([A-Za-z_$][\w$]*)/gm)) names.add(m[1]!);
  return names;
}

describe('public API', () => {
  it('every export is documented in docs/library-api.md, and the page names only exports', () => {
    const exported = [...indexExports().keys()].sort();
    expect(exported.length).toBeGreaterThan(50);
    expect([...documented()].sort()).toEqual(exported);
  });

  it('the runtime exports are exactly the value exports of src/index.ts', () => {
    const values = [...indexExports()].filter(([, e]) => !e.typeOnly).map(([n]) => n);
    expect(Object.keys(api).sort()).toEqual(values.sort());
  });

  it('kernel internals are not exported', () => {
    const names = indexExports();
    for (const internal of [
      'EventQueue',
      'Lane',
      'LaneEntry',
      'SimEvent',
      'Network',
      'Rng',
      'Broker',
      'Controller',
    ])
      expect(names.has(internal), internal).toBe(false);
  });
});
