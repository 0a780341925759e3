import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathLabel } from '../../src/report/index.ts';
import {
  axisLabels,
  cellsOf,
  inShard,
  parseGrid,
  parseGridFlag,
  parseShard,
  SweepInputError,
  setFlagsOf,
  shardOfRun,
  splitValues,
} from '../../src/sweep/index.ts';

describe('grid flags', () => {
  it('splits values at top-level commas only, so YAML lists and quoted commas stay one value', () => {
    expect(splitValues('8,16, 32')).toEqual(['8', '16', '32']);
    expect(splitValues('[[1],[2]],[[2],[1]]')).toEqual(['[[1],[2]]', '[[2],[1]]']);
    expect(splitValues("'a,b',c")).toEqual(["'a,b'", 'c']);
    expect(splitValues('{x: 1, y: 2},{x: 3}')).toEqual(['{x: 1, y: 2}', '{x: 3}']);
  });

  it('reads path=values and refuses malformed flags with the flag in the message', () => {
    expect(parseGridFlag('topics.0.partitions=8,16')).toEqual({
      path: 'topics.0.partitions',
      values: ['8', '16'],
    });
    expect(parseGridFlag('cluster.configs["log.segment.bytes"]=1,2').path).toBe(
      'cluster.configs["log.segment.bytes"]',
    );
    expect(() => parseGridFlag('partitions')).toThrow(/--grid partitions: expected path=v1,v2/);
    expect(() => parseGridFlag('a=1,,2')).toThrow(/a value is empty/);
    expect(() => parseGridFlag('a=1,2,1')).toThrow(/'1' is given twice/);
    expect(() => parseGrid(['a=1', 'a=2'])).toThrow(SweepInputError);
  });

  it('makes the cartesian product with the first axis outermost', () => {
    const cells = cellsOf(parseGrid(['p=8,16', 'b=3,5,9']));
    expect(cells.map((c) => `${c.params.p}/${c.params.b}`)).toEqual([
      '8/3',
      '8/5',
      '8/9',
      '16/3',
      '16/5',
      '16/9',
    ]);
    expect(cells.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(setFlagsOf(cells[4]!)).toEqual(['p=16', 'b=5']);
    expect(cellsOf([])).toEqual([{ index: 0, params: {} }]);
  });
});

describe('shards', () => {
  it('reads K/N and refuses out-of-range values', () => {
    expect(parseShard('2/4')).toEqual({ k: 2, n: 4 });
    expect(() => parseShard('0/3')).toThrow(/K must be between 1 and 3/);
    expect(() => parseShard('4/3')).toThrow(/K must be between 1 and 3/);
    expect(() => parseShard('1/0')).toThrow(/N must be at least 1/);
    expect(() => parseShard('half')).toThrow(/expects K\/N/);
  });

  it('puts every run in exactly one shard, by a hash that adding seeds or grid values does not change', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (values, seeds, n) => {
          const axis = (count: number) => ({
            path: 'x',
            values: Array.from({ length: count }, (_, i) => String(i)),
          });
          const owners = (count: number, seedCount: number) =>
            new Map(
              cellsOf([axis(count)]).flatMap((c) =>
                Array.from({ length: seedCount }, (_, s) => {
                  const ks = Array.from({ length: n }, (_, k) => k + 1).filter((k) =>
                    inShard(c, s + 1, { k, n }),
                  );
                  expect(ks).toHaveLength(1);
                  expect(ks[0]).toBe(shardOfRun(c.params, s + 1, n));
                  return [`${c.params.x}/${s + 1}`, ks[0]!] as const;
                }),
              ),
            );
          const before = owners(values, seeds);
          // A grown sweep (one more grid value and one more seed) keeps every earlier run where it was.
          const after = owners(values + 1, seeds + 1);
          for (const [run, k] of before) expect(after.get(run)).toBe(k);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('spreads runs over the shards (a hash: roughly even, not exact)', () => {
    const cells = cellsOf([{ path: 'x', values: Array.from({ length: 100 }, (_, i) => String(i)) }]);
    const sizes = [0, 0, 0, 0];
    for (const c of cells) for (const seed of [1, 2, 3, 4, 5]) sizes[shardOfRun(c.params, seed, 4) - 1]!++;
    expect(sizes.reduce((a, b) => a + b)).toBe(500);
    for (const size of sizes) expect(size).toBeGreaterThan(90); // 125 each on average
    // The same run goes to the same shard on every machine and in every release (SHA-256 of the sorted grid
    // values and the seed): these values are fixed, whatever order the axes are given in.
    const params = { 'topics.0.partitions': '8', 'cluster.brokers': '3' };
    const reordered = { 'cluster.brokers': '3', 'topics.0.partitions': '8' };
    expect([1, 2, 3, 4, 5, 6].map((seed) => shardOfRun(params, seed, 4))).toEqual([2, 1, 2, 1, 1, 1]);
    expect([1, 2, 3, 4, 5, 6].map((seed) => shardOfRun(reordered, seed, 4))).toEqual([2, 1, 2, 1, 1, 1]);
  });
});

describe('column labels', () => {
  it('use the last key, the whole setting name under config maps, the full path on a clash', () => {
    expect(pathLabel('topics.0.partitions')).toBe('partitions');
    expect(pathLabel('cluster.brokers')).toBe('brokers');
    expect(pathLabel('clients.producers.0.config.topic.metadata.refresh.interval.ms')).toBe(
      'topic.metadata.refresh.interval.ms',
    );
    expect(pathLabel('cluster.configs["log.segment.bytes"]')).toBe('log.segment.bytes');
    expect(
      axisLabels(parseGrid(['topics.0.partitions=1', 'topics.1.partitions=2', 'cluster.brokers=3'])),
    ).toEqual(['topics.0.partitions', 'topics.1.partitions', 'brokers']);
  });
});
