// AutoMQ's checkAndMergeActions and checkAndGroupActions: chains merged, no-ops dropped, batches limited per
// topic (half its partitions), per broker (execution.concurrency) and per destination (10 sources).
import { describe, expect, it } from 'vitest';
import { groupMoves, mergeMoves, type PartitionMove } from '../../../models/balancer/index.ts';

const mv = (topic: string, partition: number, src: number, dest: number): PartitionMove => ({
  topic,
  partition,
  srcBrokerId: src,
  destBrokerId: dest,
});

describe('mergeMoves', () => {
  it('merges A->B->C into A->C and drops moves that end where they started', () => {
    expect(mergeMoves([mv('t', 0, 1, 2), mv('t', 1, 1, 3), mv('t', 0, 2, 3), mv('t', 1, 3, 1)])).toEqual([
      mv('t', 0, 1, 3),
    ]);
  });

  it('throws on a chain that does not connect', () => {
    expect(() => mergeMoves([mv('t', 0, 1, 2), mv('t', 0, 3, 4)])).toThrow(/Unmatched action chains for t-0/);
  });
});

describe('groupMoves', () => {
  it("puts at most ceil(half) of a topic's partitions in one batch", () => {
    const moves = Array.from({ length: 13 }, (_, p) => mv('t', p, 2, p % 4 === 2 ? 0 : p % 4));
    const batches = groupMoves(moves, new Map([['t', 16]]), { maxExecutionConcurrency: 50 });
    expect(batches.map((b) => b.length)).toEqual([8, 5]);
    expect(batches.flat()).toEqual(moves);
    // An odd count rounds up: 7 partitions allow 4 per batch.
    expect(
      groupMoves(moves.slice(0, 5), new Map([['t', 7]]), { maxExecutionConcurrency: 50 }).map(
        (b) => b.length,
      ),
    ).toEqual([4, 1]);
  });

  it('limits moves per broker, as source or destination, to execution.concurrency', () => {
    const moves = Array.from({ length: 7 }, (_, i) => mv(`t${i}`, 0, 1, 2));
    const counts = new Map(moves.map((m) => [m.topic, 1]));
    expect(groupMoves(moves, counts, { maxExecutionConcurrency: 3 }).map((b) => b.length)).toEqual([3, 3, 1]);
  });

  it('limits a destination to 10 distinct source brokers per batch', () => {
    const moves = Array.from({ length: 12 }, (_, i) => mv(`t${i}`, 0, i + 1, 0));
    const counts = new Map(moves.map((m) => [m.topic, 1]));
    const batches = groupMoves(moves, counts, { maxExecutionConcurrency: 50 });
    expect(batches.map((b) => b.length)).toEqual([10, 2]);
  });

  it('keeps order and returns nothing for nothing', () => {
    expect(groupMoves([], new Map(), { maxExecutionConcurrency: 50 })).toEqual([]);
  });
});
