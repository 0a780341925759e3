import { describe, expect, it } from 'vitest';
import { FormatInputError, parseJson, positionOf } from '../../src/format/index.ts';

describe('parseJson', () => {
  it('parses what JSON.parse parses and records where each value starts', () => {
    const text = '{"a": [1, -2.5e3, true, null], "b\\u00e9\\n": "x\\"y"}';
    const root = parseJson(text);
    expect(root.kind).toBe('object');
    if (root.kind !== 'object') return;
    expect(root.entries.map((e) => e.key)).toEqual(['a', 'bé\n']);
    const a = root.entries[0]!.value;
    expect(a.kind === 'array' && a.items.map((i) => i.offset)).toEqual([7, 10, 18, 24]);
    const toPlain = (n: ReturnType<typeof parseJson>): unknown =>
      n.kind === 'object'
        ? Object.fromEntries(n.entries.map((e) => [e.key, toPlain(e.value)]))
        : n.kind === 'array'
          ? n.items.map(toPlain)
          : n.kind === 'null'
            ? null
            : n.value;
    expect(toPlain(root)).toEqual(JSON.parse(text));
  });

  it('keeps the literal of numbers so 1 and 1.0 differ', () => {
    const n = parseJson(' 1.0 ');
    expect(n.kind === 'number' && n.raw).toBe('1.0');
  });

  it('rejects what RFC 8259 rejects, with a position', () => {
    for (const bad of ['', '01', '[1,]', "{'a':1}", '{"a" 1}', '"\u0001"', 'tru', '[1] [2]', 'NaN']) {
      expect(() => parseJson(bad), bad).toThrow(FormatInputError);
    }
    expect(positionOf('ab\ncd\nef', 7)).toEqual({ offset: 7, line: 3, column: 2 });
  });
});
