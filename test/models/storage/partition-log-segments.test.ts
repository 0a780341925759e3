// PartitionLog's segments (Kafka's LocalLog): rolling by segment.bytes and segment.ms, deleting whole segments from
// the front (the log start moves, the leader-epoch cache forgets what is below it, a fully deleted log keeps its
// end), truncation across segments, a follower's log start moved by the leader's, and starting over at an offset.
import { describe, expect, it } from 'vitest';
import { PartitionLog, type ProducerBatchData, type RecordBatch } from '../../../models/storage/index.ts';

let nextIndex = 0;
function data(count: number, bytes: number): ProducerBatchData {
  const index = nextIndex;
  nextIndex += count;
  return {
    count,
    bytes,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    origin: 'p',
    runs: [{ index, count, time: 0 }],
  };
}

function append(log: PartitionLog, count: number, bytes: number, now: number, epoch = 0): RecordBatch {
  const o = log.appendAsLeader(data(count, bytes), epoch, now);
  if (o.kind !== 'appended') throw new Error(o.kind);
  return o.batch;
}

const shape = (log: PartitionLog) =>
  log.segments().map((s) => [s.baseOffset, s.batches, s.bytes, s.firstTimestamp, s.largestTimestamp]);

describe('PartitionLog segments', () => {
  it('roll when the next batch would pass segment.bytes, or the first batch is older than segment.ms', () => {
    const log = new PartitionLog('t', 0);
    log.segmentBytes = 250;
    log.segmentMs = 1000;
    append(log, 2, 100, 0); // 0..1
    append(log, 2, 100, 10); // 2..3: 200 bytes
    append(log, 2, 50, 20); // 4..5: exactly 250, still fits
    append(log, 1, 1, 30); // 6: would make 251: a new segment
    append(log, 1, 1, 1030); // 1030 - 30 = 1000, not more than segment.ms: same segment
    append(log, 1, 1, 1031); // 1001 ms after the segment's first batch: a new segment
    expect(shape(log)).toEqual([
      [0, 3, 250, 0, 20],
      [6, 2, 2, 30, 1030],
      [8, 1, 1, 1031, 1031],
    ]);
    // A single batch larger than segment.bytes still goes in (an empty segment takes any batch).
    append(log, 1, 999, 1032);
    expect(shape(log).at(-1)).toEqual([9, 1, 999, 1032, 1032]);
    // So does an empty log's first segment, whatever the batch's size or time: no empty segment is left behind.
    const fresh = new PartitionLog('t', 1);
    fresh.segmentBytes = 100;
    fresh.segmentMs = 10;
    append(fresh, 1, 150, 50);
    expect(shape(fresh)).toEqual([[0, 1, 150, 50, 50]]);
  });

  it('deleting the oldest segments drops their batches and moves the log start to the first segment left', () => {
    const log = new PartitionLog('t', 0);
    log.segmentBytes = 100;
    for (let i = 0; i < 5; i++) append(log, 2, 100, i * 10, i < 2 ? 0 : 3); // one batch per segment
    log.highWatermark = 10;
    log.deleteOldestSegments(2);
    expect(log.logStartOffset).toBe(4);
    expect(log.allBatches().map((b) => b.baseOffset)).toEqual([4, 6, 8]);
    expect(log.sizeBytes).toBe(300);
    expect(log.segments().map((s) => s.baseOffset)).toEqual([4, 6, 8]);
    // Epoch 0 is gone with its batches; epoch 3 starts at 4 as before.
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: -1, endOffset: -1 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 10 });
    // Reads start at the log start.
    expect(log.read(4, 10, 1000).map((b) => b.baseOffset)).toEqual([4, 6, 8]);
  });

  it('deleting every segment rolls an empty one at the log end first: the log keeps its end and appends go on', () => {
    const log = new PartitionLog('t', 0);
    append(log, 3, 30, 0);
    append(log, 2, 20, 1);
    log.highWatermark = 5;
    log.deleteOldestSegments(1);
    expect([log.logStartOffset, log.logEndOffset, log.highWatermark, log.sizeBytes, log.batchCount]).toEqual([
      5, 5, 5, 0, 0,
    ]);
    expect(shape(log)).toEqual([[5, 0, 0, -1, -1]]);
    expect(append(log, 1, 10, 2).baseOffset).toBe(5);
    expect(shape(log)).toEqual([[5, 1, 10, 2, 2]]);
  });

  it('the log start keeps the epoch that holds it, starting there (truncateFromStart)', () => {
    const log = new PartitionLog('t', 0);
    append(log, 4, 40, 0, 1); // epoch 1 at 0
    append(log, 4, 40, 0, 2); // epoch 2 at 4
    log.highWatermark = 8;
    log.incrementLogStartOffset(6);
    expect(log.logStartOffset).toBe(6);
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: -1, endOffset: -1 });
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 2, endOffset: 8 });
    // Never backwards.
    log.incrementLogStartOffset(3);
    expect(log.logStartOffset).toBe(6);
  });

  it('a log start inside the first segment: truncating below it moves it down, above it keeps it (UnifiedLog.truncateTo)', () => {
    const log = new PartitionLog('t', 0);
    for (let i = 0; i < 5; i++) append(log, 2, 10, i); // 0..9, one segment
    log.highWatermark = 10;
    log.incrementLogStartOffset(6); // as a follower moved to the leader's log start
    log.truncateTo(8);
    expect([log.logStartOffset, log.logEndOffset]).toEqual([6, 8]);
    log.truncateTo(4); // below the log start but inside the segment: min(target, log start)
    expect([log.logStartOffset, log.logEndOffset, log.batchCount]).toEqual([4, 4, 2]);
    expect(shape(log)).toEqual([[0, 2, 20, 0, 1]]);
  });

  it('the log start in the middle of three epochs forgets the first and starts the second there', () => {
    const log = new PartitionLog('t', 0);
    append(log, 4, 40, 0, 1); // epoch 1 at 0
    append(log, 4, 40, 0, 2); // epoch 2 at 4
    append(log, 4, 40, 0, 3); // epoch 3 at 8
    log.highWatermark = 12;
    log.incrementLogStartOffset(6);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 2, endOffset: 8 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 12 });
    // An epoch below every known one now ends where epoch 2 starts: at the log start, 6, no longer at 4.
    expect(log.epochEndOffsetFor(1)).toEqual({ epoch: 1, endOffset: 6 });
  });

  it('truncation recounts the segment it cuts: first and largest timestamps of what is left', () => {
    const log = new PartitionLog('t', 0);
    append(log, 1, 10, 10);
    append(log, 1, 10, 20);
    append(log, 1, 10, 30);
    log.truncateTo(2);
    expect(shape(log)).toEqual([[0, 2, 20, 10, 20]]);
  });

  it('truncation drops the segments above the cut and recounts the one holding it', () => {
    const log = new PartitionLog('t', 0);
    log.segmentBytes = 200;
    append(log, 1, 100, 0); // 0
    append(log, 1, 100, 1); // 1
    append(log, 1, 100, 2); // 2: segment 2
    append(log, 1, 100, 3); // 3
    append(log, 1, 100, 4); // 4: segment 4
    log.truncateTo(3);
    expect(shape(log)).toEqual([
      [0, 2, 200, 0, 1],
      [2, 1, 100, 2, 2],
    ]);
    log.truncateTo(2); // a segment starting exactly at the cut stays, empty
    expect(shape(log)).toEqual([
      [0, 2, 200, 0, 1],
      [2, 0, 0, -1, -1],
    ]);
    expect(append(log, 1, 150, 9).baseOffset).toBe(2);
    expect(shape(log).at(-1)).toEqual([2, 1, 150, 9, 9]);
  });

  it('truncation below what retention left, or truncateFullyAndStartAt, starts the log over at the offset', () => {
    const log = new PartitionLog('t', 0);
    log.segmentBytes = 100;
    for (let i = 0; i < 3; i++) append(log, 2, 100, i, 1);
    log.highWatermark = 6;
    log.deleteOldestSegments(2);
    expect(log.logStartOffset).toBe(4);
    log.truncateTo(2);
    expect([
      log.logStartOffset,
      log.logEndOffset,
      log.highWatermark,
      log.batchCount,
      log.latestEpoch,
    ]).toEqual([2, 2, 2, 0, -1]);
    // One empty segment at the new start, which the next append fills (not the deleted segments' base, 4).
    expect(shape(log)).toEqual([[2, 0, 0, -1, -1]]);
    expect(append(log, 1, 10, 3).baseOffset).toBe(2);
    expect(shape(log)).toEqual([[2, 1, 10, 3, 3]]);
    log.truncateFullyAndStartAt(40);
    expect([log.logStartOffset, log.logEndOffset, log.highWatermark, log.sizeBytes]).toEqual([40, 40, 40, 0]);
    expect(shape(log)).toEqual([[40, 0, 0, -1, -1]]);
    expect(append(log, 1, 10, 5).baseOffset).toBe(40);
  });

  it('a follower rolls by its own segment configs from the batches it copies', () => {
    const leader = new PartitionLog('t', 0);
    const follower = new PartitionLog('t', 0);
    follower.segmentBytes = 150;
    const batches = [append(leader, 1, 100, 0), append(leader, 1, 100, 5), append(leader, 1, 40, 6)];
    follower.appendAsFollower(batches);
    expect(shape(follower)).toEqual([
      [0, 1, 100, 0, 0],
      [1, 2, 140, 5, 6],
    ]);
    expect(shape(leader)).toEqual([[0, 3, 240, 0, 6]]);
  });
});
