import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  constant,
  type Distribution,
  mean,
  type RandomStream,
  Rng,
  sample,
} from '../../../models/sim/index.ts';

const draws = (s: RandomStream, n: number) => Array.from({ length: n }, () => s.next());

describe('Rng', () => {
  it('is deterministic: the same seed and stream name give the same draws', () => {
    const a = new Rng('42').stream('broker-1/net');
    const b = new Rng('42').stream('broker-1/net');
    expect(draws(a, 100)).toEqual(draws(b, 100));
  });

  it('a different seed or a different stream name gives different draws', () => {
    const base = draws(new Rng('42').stream('x'), 20);
    expect(draws(new Rng('43').stream('x'), 20)).not.toEqual(base);
    expect(draws(new Rng('42').stream('y'), 20)).not.toEqual(base);
  });

  it('returns the same stream object for the same name', () => {
    const rng = new Rng('1');
    expect(rng.stream('a')).toBe(rng.stream('a'));
    expect(rng.stream('a')).not.toBe(rng.stream('b'));
  });

  it('adding a stream does not change the draws of existing ones, whatever the creation order', () => {
    // Reference: only stream "x" exists.
    const alone = new Rng('7');
    const expected = draws(alone.stream('x'), 50);

    // Other streams created before, between and after, with draws interleaved.
    const crowded = new Rng('7');
    const y = crowded.stream('y');
    const yGot = draws(y, 13);
    const x = crowded.stream('x');
    const got: number[] = [];
    for (let i = 0; i < 50; i++) {
      got.push(x.next());
      if (i === 10) draws(crowded.stream('z'), 5);
      if (i % 7 === 0) yGot.push(y.next());
    }
    expect(got).toEqual(expected);
    // And "y" draws exactly what it would draw alone.
    expect(yGot).toEqual(draws(new Rng('7').stream('y'), yGot.length));
  });

  it('property: stream draws depend only on (seed, name), not on which other streams exist', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 6 }),
        fc.nat(),
        (seed, names, rotate) => {
          const first = new Rng(seed);
          const inOrder = names.map((n) => draws(first.stream(n), 3));
          const second = new Rng(seed);
          const k = rotate % names.length;
          const rotated = [...names.slice(k), ...names.slice(0, k)];
          const byName = new Map(rotated.map((n) => [n, draws(second.stream(n), 3)]));
          names.forEach((n, i) => {
            expect(byName.get(n)).toEqual(inOrder[i]);
          });
        },
      ),
    );
  });
});

describe('RandomStream helpers', () => {
  const stream = (name = 's') => new Rng('helpers').stream(name);

  it('property: uniform, jitter, exponential and uint32 stay in range', () => {
    fc.assert(
      fc.property(
        fc.string(),
        // Integer bounds at least 1 apart: with arbitrary doubles, min + (max - min) * u can round up to max.
        fc.integer({ min: -1e6, max: 1e6 }),
        fc.integer({ min: 1, max: 1e6 }),
        (name, min, width) => {
          const s = new Rng('range').stream(name);
          for (let i = 0; i < 20; i++) {
            const u = s.uniform(min, min + width);
            expect(u).toBeGreaterThanOrEqual(min);
            expect(u).toBeLessThan(min + width);
            const j = s.jitter(width, 0.2);
            expect(j).toBeGreaterThanOrEqual(width * 0.8);
            expect(j).toBeLessThan(width * 1.2);
            expect(s.exponential(width)).toBeGreaterThanOrEqual(0);
            const w = s.uint32();
            expect(Number.isInteger(w) && w >= 0 && w < 2 ** 32).toBe(true);
            const n = s.next();
            expect(n >= 0 && n < 1).toBe(true);
          }
        },
      ),
    );
  });

  it('property: int(min, max) is an integer within both inclusive bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 50 }), (min, span) => {
        const s = new Rng('int').stream(`${min}/${span}`);
        for (let i = 0; i < 50; i++) {
          const v = s.int(min, min + span);
          expect(Number.isInteger(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(min);
          expect(v).toBeLessThanOrEqual(min + span);
        }
      }),
    );
  });

  it('int hits both bounds and nothing outside them', () => {
    const s = stream();
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) seen.add(s.int(1, 3));
    expect([...seen].sort()).toEqual([1, 2, 3]);
    expect(s.int(5, 5)).toBe(5);
    expect(() => s.int(3, 2)).toThrow(RangeError);
  });

  it('chance(0) never and chance(1) always', () => {
    const s = stream();
    for (let i = 0; i < 1_000; i++) {
      expect(s.chance(0)).toBe(false);
      expect(s.chance(1)).toBe(true);
    }
  });

  it('normal and exponential have about the requested mean (and sd)', () => {
    const s = stream();
    const n = 20_000;
    const normals = Array.from({ length: n }, () => s.normal(10, 2));
    const avg = normals.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(normals.reduce((a, b) => a + (b - avg) ** 2, 0) / n);
    expect(avg).toBeCloseTo(10, 1);
    expect(sd).toBeGreaterThan(1.9);
    expect(sd).toBeLessThan(2.1);
    const exps = Array.from({ length: n }, () => s.exponential(5));
    expect(exps.reduce((a, b) => a + b, 0) / n).toBeGreaterThan(4.8);
    expect(exps.reduce((a, b) => a + b, 0) / n).toBeLessThan(5.2);
  });

  it('pick returns an element, and throws on an empty list naming the stream', () => {
    const s = stream('picker');
    const items = ['a', 'b', 'c'];
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) seen.add(s.pick(items));
    expect([...seen].sort()).toEqual(items);
    expect(() => s.pick([])).toThrow(/empty list \(stream picker\)/);
  });

  it('property: shuffle returns a permutation and leaves its input alone', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.string(), (items, name) => {
        const before = items.slice();
        const out = new Rng('shuffle').stream(name).shuffle(items);
        expect(items).toEqual(before);
        expect(out).not.toBe(items);
        expect(out.slice().sort((a, b) => a - b)).toEqual(before.slice().sort((a, b) => a - b));
      }),
    );
  });

  it('shuffle really reorders (all 6 orders of 3 items show up)', () => {
    const s = stream();
    const orders = new Set<string>();
    for (let i = 0; i < 300; i++) orders.add(s.shuffle([1, 2, 3]).join(''));
    expect(orders.size).toBe(6);
  });

  it('property: weightedPick never picks a zero-weight item', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 100, noNaN: true })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.string(),
        (weights, name) => {
          fc.pre(weights.some((w) => w > 0));
          const items = weights.map((_, i) => i);
          const s = new Rng('weighted').stream(name);
          for (let i = 0; i < 100; i++) expect(weights[s.weightedPick(items, weights)]).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('weightedPick follows the weights, and needs a positive total', () => {
    const s = stream();
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[s.weightedPick([0, 1, 2], [1, 0, 3])]!++;
    expect(counts[1]).toBe(0);
    expect(counts[0]! / 30_000).toBeCloseTo(0.25, 1);
    expect(counts[2]! / 30_000).toBeCloseTo(0.75, 1);
    expect(() => s.weightedPick(['a', 'b'], [0, 0])).toThrow(RangeError);
    expect(() => s.weightedPick([], [])).toThrow(RangeError);
  });
});

describe('distributions', () => {
  const dists: Distribution[] = [
    constant(3),
    { kind: 'uniform', min: 1, max: 5 },
    { kind: 'normal', mean: 2, sd: 3, min: 0.5 },
    { kind: 'exponential', mean: 4, min: 1 },
    { kind: 'lognormal', median: 2, sigma: 0.5, min: 0.1 },
  ];

  it.each(dists)('sample($kind) is never negative, respects min, and averages about mean()', (d) => {
    const s = new Rng('dist').stream(d.kind);
    const n = 40_000;
    let sum = 0;
    let lowest = Number.POSITIVE_INFINITY;
    const floor = 'min' in d ? (d.min ?? 0) : d.kind === 'constant' ? d.ms : 0;
    for (let i = 0; i < n; i++) {
      const v = sample(d, s);
      lowest = Math.min(lowest, v);
      sum += v;
    }
    expect(lowest).toBeGreaterThanOrEqual(floor);
    // normal is clamped at min, which moves its mean up; the others' mean() is exact.
    if (d.kind !== 'normal') expect(Math.abs(sum / n - mean(d)) / mean(d)).toBeLessThan(0.03);
  });

  it('min clamps normal and lognormal draws, and shifts exponential ones', () => {
    const s = new Rng('min').stream('s');
    const normal = Array.from({ length: 2_000 }, () => sample({ kind: 'normal', mean: 2, sd: 1, min: 2 }, s));
    const lognormal = Array.from({ length: 2_000 }, () =>
      sample({ kind: 'lognormal', median: 2, sigma: 0.5, min: 2 }, s),
    );
    const exponential = Array.from({ length: 2_000 }, () =>
      sample({ kind: 'exponential', mean: 1, min: 2 }, s),
    );
    for (const draws of [normal, lognormal]) {
      expect(Math.min(...draws)).toBe(2);
      // About half the draws fall below the median and are clamped to min.
      expect(draws.filter((v) => v === 2).length).toBeGreaterThan(800);
    }
    expect(Math.min(...exponential)).toBeGreaterThan(2);
  });

  it('mean() of each kind', () => {
    expect(mean(constant(3))).toBe(3);
    expect(mean({ kind: 'uniform', min: 1, max: 5 })).toBe(3);
    expect(mean({ kind: 'normal', mean: 2, sd: 1 })).toBe(2);
    expect(mean({ kind: 'exponential', mean: 4, min: 1 })).toBe(5);
    expect(mean({ kind: 'lognormal', median: 2, sigma: 0 })).toBe(2);
  });
});
