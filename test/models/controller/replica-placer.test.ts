import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeReplicas, ReplicaPlacementError, type UsableBroker } from '../../../models/controller/index.ts';
import { RandomStream } from '../../../models/sim/index.ts';

const brokers = (n: number, rackOf: (id: number) => string | null = () => null, fenced: number[] = []) =>
  Array.from({ length: n }, (_, id): UsableBroker => ({ id, rack: rackOf(id), fenced: fenced.includes(id) }));

describe('placeReplicas (striped)', () => {
  it('throws Kafka’s messages', () => {
    const r = new RandomStream('t', '1');
    expect(() => placeReplicas(brokers(3), 1, 0, r)).toThrow(
      new ReplicaPlacementError('Invalid replication factor 0: the replication factor must be positive.'),
    );
    expect(() => placeReplicas(brokers(2, undefined, [0, 1]), 1, 1, r)).toThrow(
      'All brokers are currently fenced.',
    );
    expect(() => placeReplicas(brokers(2), 1, 3, r)).toThrow(
      'The target replication factor of 3 cannot be reached because only 2 broker(s) are registered.',
    );
  });

  it('starts each partition one broker further, so leaders rotate', () => {
    const placed = placeReplicas(brokers(4), 8, 2, new RandomStream('t', '5'));
    const leaders = placed.map((p) => p[0]!);
    for (let i = 1; i < 4; i++) expect(leaders[i]).toBe((leaders[0]! + i) % 4);
  });

  it('holds Kafka’s constraints for any cluster (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 4 }),
        fc.integer(),
        (n, racks, partitions, rf, fencedIds, seed) => {
          const cluster = brokers(n, (id) => `r${id % racks}`, fencedIds);
          const unfenced = cluster.filter((b) => !b.fenced);
          if (rf > n || unfenced.length === 0) return;
          const placed = placeReplicas(cluster, partitions, rf, new RandomStream('p', String(seed)));
          expect(placed).toHaveLength(partitions);
          const leaderCounts = new Map<number, number>();
          for (const replicas of placed) {
            expect(replicas).toHaveLength(rf);
            expect(new Set(replicas).size).toBe(rf);
            // The leader is never fenced.
            expect(cluster[replicas[0]!]!.fenced).toBe(false);
            leaderCounts.set(replicas[0]!, (leaderCounts.get(replicas[0]!) ?? 0) + 1);
            // Within a rack unfenced brokers come first, so with one rack a fenced follower appears only when
            // the unfenced ones ran out. (Across racks, spreading over racks wins, as in Kafka.)
            if (racks === 1) {
              const fencedUsed = replicas.filter((id) => cluster[id]!.fenced).length;
              expect(fencedUsed).toBeLessThanOrEqual(Math.max(0, rf - unfenced.length));
            }
          }
          // Every unfenced broker leads as evenly as the rounds allow.
          const counts = unfenced.map((b) => leaderCounts.get(b.id) ?? 0);
          if (racks === 1 || unfenced.every((b) => b.id % racks === unfenced[0]!.id % racks)) {
            expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });

  it('spreads replicas over racks when there are as many racks as replicas', () => {
    const placed = placeReplicas(
      brokers(9, (id) => `r${id % 3}`),
      30,
      3,
      new RandomStream('t', '9'),
    );
    for (const replicas of placed) expect(new Set(replicas.map((id) => id % 3)).size).toBe(3);
  });
});
