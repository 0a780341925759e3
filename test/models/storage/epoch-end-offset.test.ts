// The two offset lookups a broker answers clients from: where a leader epoch ends (OffsetsForLeaderEpoch, KIP-320,
// Kafka's LeaderEpochFileCache.endOffsetFor) and the first record at or after a time (ListOffsets by timestamp,
// KIP-79, UnifiedLog.fetchOffsetByTimestamp), on a bare PartitionLog.
import { describe, expect, it } from 'vitest';
import { offsetForTimestamp } from '../../../models/broker/kafka-apis.ts';
import { PartitionLog, type ProducerBatchData } from '../../../models/storage/index.ts';

const data = (count: number, recordTimestamps?: number[]): ProducerBatchData => ({
  count,
  bytes: 10 * count,
  producerId: -1,
  producerEpoch: -1,
  baseSequence: -1,
  origin: 'p',
  runs: [{ index: 0, count, time: 0 }],
  ...(recordTimestamps ? { recordTimestamps } : {}),
});

describe('PartitionLog.epochEndOffsetFor', () => {
  // Epoch 2 holds offsets 0-2, epoch 5 holds 3-4, epoch 7 starts at 5 with nothing yet: log end 5.
  const log = new PartitionLog('t', 0);
  log.appendAsLeader(data(3), 2, 0);
  log.appendAsLeader(data(2), 5, 0);
  log.assignEpochStart(7);

  it('the latest epoch ends at the log end', () => {
    expect(log.epochEndOffsetFor(7)).toEqual({ epoch: 7, endOffset: 5 });
  });
  it('a known older epoch ends where the next one starts', () => {
    expect(log.epochEndOffsetFor(2)).toEqual({ epoch: 2, endOffset: 3 });
    expect(log.epochEndOffsetFor(5)).toEqual({ epoch: 5, endOffset: 5 });
  });
  it('an unknown epoch between two known ones answers the one below it, ending where the next starts', () => {
    expect(log.epochEndOffsetFor(3)).toEqual({ epoch: 2, endOffset: 3 });
    expect(log.epochEndOffsetFor(6)).toEqual({ epoch: 5, endOffset: 5 });
  });
  it('an epoch below every known one keeps its number and ends where the first known one starts', () => {
    expect(log.epochEndOffsetFor(1)).toEqual({ epoch: 1, endOffset: 0 });
    expect(log.epochEndOffsetFor(0)).toEqual({ epoch: 0, endOffset: 0 }); // epoch 0 is an epoch like any other
  });
  it('an epoch above every known one, or -1, is undefined', () => {
    expect(log.epochEndOffsetFor(8)).toEqual({ epoch: -1, endOffset: -1 });
    expect(log.epochEndOffsetFor(-1)).toEqual({ epoch: -1, endOffset: -1 });
    expect(new PartitionLog('t', 1).epochEndOffsetFor(0)).toEqual({ epoch: -1, endOffset: -1 });
  });
});

describe('offsetForTimestamp', () => {
  const start = 1_700_000_000_000;
  const log = new PartitionLog('t', 0);
  // Simulated batches at virtual 100 ms and 200 ms; a wire batch with the client's own CreateTimes; one more
  // simulated batch above the high watermark.
  log.appendAsLeader(data(2), 0, 100);
  log.appendAsLeader(data(2), 0, 200);
  log.appendAsLeader(data(3, [start + 500, start + 700, start + 600]), 1, 300);
  log.appendAsLeader(data(1), 1, 900);
  log.highWatermark = 7;

  it('a simulated batch is stamped with its append time on the wall clock of the run', () => {
    expect(offsetForTimestamp(log, start, start)).toEqual({
      offset: 0,
      timestamp: start + 100,
      leaderEpoch: 0,
    });
    expect(offsetForTimestamp(log, start + 101, start)).toEqual({
      offset: 2,
      timestamp: start + 200,
      leaderEpoch: 0,
    });
  });
  it("a client's batch is searched record by record, by the first record at or after the time", () => {
    expect(offsetForTimestamp(log, start + 201, start)).toMatchObject({ offset: 4, timestamp: start + 500 });
    expect(offsetForTimestamp(log, start + 650, start)).toMatchObject({ offset: 5, timestamp: start + 700 });
    expect(offsetForTimestamp(log, start + 700, start)).toMatchObject({ offset: 5, leaderEpoch: 1 });
  });
  it('records at or above the high watermark are not found: nothing later answers -1', () => {
    expect(offsetForTimestamp(log, start + 701, start)).toEqual({
      offset: -1,
      timestamp: -1,
      leaderEpoch: -1,
    });
    log.highWatermark = 8;
    expect(offsetForTimestamp(log, start + 701, start)).toEqual({
      offset: 7,
      timestamp: start + 900,
      leaderEpoch: 1,
    });
  });
});
