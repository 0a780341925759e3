// Properties of one optimization pass over random clusters (fast-check prints the seed of any failure).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  groupMoves,
  mergeMoves,
  NetworkInUsageDistributionGoal,
  NetworkOutUsageDistributionGoal,
  optimize,
  toMove,
} from '../../../models/balancer/index.ts';
import { config, MiB, type PartitionSpec, snapshotOf } from './fixtures.ts';

const clusterArb = fc
  .record({
    brokers: fc.integer({ min: 2, max: 6 }),
    stale: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    slow: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    partitions: fc.array(
      fc.record({
        leader: fc.nat(),
        bytesIn: fc.double({ min: 0, max: 8 * MiB, noNaN: true }),
        trusted: fc.boolean(),
        movable: fc.boolean(),
        topic: fc.constantFrom('a', 'b', 'c'),
      }),
      { maxLength: 60 },
    ),
  })
  .map(({ brokers, stale, slow, partitions }) => ({
    brokers: Array.from({ length: brokers }, (_, id) => ({
      id,
      ...(stale[id] && id > 0 ? { outOfDate: 'stale' } : {}),
      slow: slow[id]! && id > 0,
    })),
    partitions: partitions.map(
      (p): PartitionSpec => ({
        topic: p.topic,
        leader: p.leader % brokers,
        bytesIn: p.bytesIn,
        // Most partitions have metrics; an untrusted one makes its broker out of date.
        trusted: p.trusted || p.bytesIn > MiB,
        movable: p.movable || p.bytesIn > 2 * MiB,
      }),
    ),
  }));

function goals() {
  return [new NetworkInUsageDistributionGoal(), new NetworkOutUsageDistributionGoal()].map((g) => {
    g.configure(config);
    return g;
  });
}

function maxDeviation(loads: number[]): number {
  const avg = loads.reduce((a, b) => a + b, 0) / loads.length;
  return Math.max(0, ...loads.map((l) => Math.abs(l - avg)));
}

describe('optimize (property)', () => {
  it('conserves load, moves only movable trusted partitions to eligible non-slow brokers, never widens the spread', () => {
    fc.assert(
      fc.property(clusterArb, ({ brokers, partitions }) => {
        const s = snapshotOf(brokers, partitions);
        const eligible = s.brokers.filter((b) => !b.metricsOutOfDate);
        const total = s.brokers.reduce((a, b) => a + b.loadIn, 0);
        const spreadBefore = maxDeviation(eligible.map((b) => b.loadIn));
        const fresh = snapshotOf(brokers, partitions);
        const actions = optimize(s, goals());
        expect(s.brokers.reduce((a, b) => a + b.loadIn, 0)).toBeCloseTo(total, 3);
        for (const a of actions) {
          const dest = fresh.broker(a.destBrokerId)!;
          expect(dest.metricsOutOfDate).toBe(false);
          expect(dest.slow).toBe(false);
          expect(fresh.isMovable(a.partition)).toBe(true);
          expect(fresh.isTrusted(a.partition)).toBe(true);
        }
        expect(maxDeviation(eligible.map((b) => b.loadIn))).toBeLessThanOrEqual(spreadBefore + 1e-6);
      }),
    );
  });

  it('is deterministic, and batching keeps every merged move exactly once within the limits', () => {
    fc.assert(
      fc.property(clusterArb, fc.integer({ min: 1, max: 5 }), ({ brokers, partitions }, concurrency) => {
        const a = optimize(snapshotOf(brokers, partitions), goals());
        const b = optimize(snapshotOf(brokers, partitions), goals());
        expect(b).toEqual(a);
        const moves = mergeMoves(a.map(toMove));
        const counts = new Map<string, number>();
        for (const p of partitions) counts.set(p.topic ?? 't', (counts.get(p.topic ?? 't') ?? 0) + 1);
        const batches = groupMoves(moves, counts, { maxExecutionConcurrency: concurrency });
        expect(batches.flat()).toEqual(moves);
        for (const batch of batches) {
          const perBroker = new Map<number, number>();
          const perTopic = new Map<string, number>();
          for (const m of batch) {
            perBroker.set(m.srcBrokerId, (perBroker.get(m.srcBrokerId) ?? 0) + 1);
            perBroker.set(m.destBrokerId, (perBroker.get(m.destBrokerId) ?? 0) + 1);
            perTopic.set(m.topic, (perTopic.get(m.topic) ?? 0) + 1);
          }
          for (const n of perBroker.values()) expect(n).toBeLessThanOrEqual(concurrency);
          for (const [t, n] of perTopic) expect(n).toBeLessThanOrEqual(Math.ceil(counts.get(t)! / 2));
        }
      }),
    );
  });
});
