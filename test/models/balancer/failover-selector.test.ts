// The shared-storage failover weighs brokers by the balancer's ClusterStats: same rack, weight 1/max(1, load),
// the picked broker's load grows by the partition's, excluded brokers never picked, unknown partitions random.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterStats } from '../../../models/controller/index.ts';
import { LoadAwareLeaderSelector } from '../../../models/controller/leader-selector.ts';
import { emptyImage, type LogEntry, type MetadataRecord, replay } from '../../../models/metadata/index.ts';
import { RandomStream } from '../../../models/sim/index.ts';

function image(racks: Record<number, string>) {
  const entries: LogEntry[] = Object.entries(racks).map(([id, rack], i) => ({
    offset: i,
    record: {
      type: 'RegisterBrokerRecord',
      brokerId: Number(id),
      incarnationId: `b${id}`,
      rack,
      host: 'h',
      port: 1,
      fenced: false,
    } satisfies MetadataRecord,
  }));
  return replay(emptyImage(), entries);
}

function stats(
  loads: Record<number, number>,
  partitionLoad: number | undefined,
  excluded: number[] = [],
): ClusterStats {
  return {
    brokerLoads: new Map(Object.entries(loads).map(([k, v]) => [Number(k), v])),
    partitionLoad: () => partitionLoad,
    excludedBrokers: new Set(excluded),
  };
}

describe('LoadAwareLeaderSelector with ClusterStats', () => {
  it('prefers the lightly loaded broker of the same rack, in proportion to 1/load', () => {
    const img = image({ 0: 'a', 1: 'a', 2: 'a', 3: 'b' });
    const random = new RandomStream('t', '1');
    let toTwo = 0;
    const n = 2000;
    for (let i = 0; i < n; i++) {
      // Broker 1 carries 3x broker 2's load; partitions are tiny so the weights barely move.
      const s = new LoadAwareLeaderSelector(img, 0, random, stats({ 1: 3_000_000, 2: 1_000_000, 3: 1 }, 1));
      const pick = s.select({ topic: 't', partition: 0 });
      expect(pick === 1 || pick === 2).toBe(true);
      if (pick === 2) toTwo++;
    }
    expect(toTwo / n).toBeGreaterThan(0.7);
    expect(toTwo / n).toBeLessThan(0.8); // 0.75 expected
  });

  it("adds each picked partition's load to its broker, so one broker does not take everything", () => {
    const img = image({ 0: 'a', 1: 'a', 2: 'a' });
    const s = new LoadAwareLeaderSelector(
      img,
      0,
      new RandomStream('t', '2'),
      stats({ 1: 1000, 2: 1000 }, 1_000_000),
    );
    const picks = Array.from({ length: 40 }, (_, p) => s.select({ topic: 't', partition: p }));
    const ones = picks.filter((x) => x === 1).length;
    expect(ones).toBeGreaterThan(10);
    expect(ones).toBeLessThan(30);
  });

  it('never picks excluded brokers; partitions of unknown load go to any candidate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.boolean(), (seed, known) => {
        const img = image({ 0: 'a', 1: 'a', 2: 'a', 3: 'a' });
        const s = new LoadAwareLeaderSelector(
          img,
          0,
          new RandomStream('t', String(seed)),
          stats({ 1: 10, 2: 1e9, 3: 5 }, known ? 100 : undefined, [3]),
        );
        for (let p = 0; p < 5; p++) {
          const pick = s.select({ topic: 't', partition: p });
          if (pick !== 1 && pick !== 2) return false;
        }
        return true;
      }),
    );
  });
});
