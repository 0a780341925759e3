// PartitionLog on its own: the idempotent producer's duplicate, sequence and epoch checks (Kafka's
// ProducerStateManager: 5 batches remembered per producer, an older epoch fenced), the leader-epoch cache
// (KIP-101/279: OffsetsForLeaderEpoch answers), follower appends, truncation (end offset, size, high-watermark clamp, producer state rebuilt, no split batch),
// reads at the exact byte limit, and the watcher that hears of every change.
import { describe, expect, it } from 'vitest';
import { PartitionLog, type ProducerBatchData, type RecordBatch } from '../../../models/storage/index.ts';

let nextIndex = 0;
function batch(over: Partial<ProducerBatchData> = {}): ProducerBatchData {
  const count = over.count ?? 2;
  const index = nextIndex;
  nextIndex += count;
  return {
    count,
    bytes: 100,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    origin: 'p',
    runs: [{ index, count, time: 0 }],
    ...over,
  };
}

/** An idempotent producer's batch: `count` records from sequence `seq`. */
const idem = (seq: number, count = 2, producerId = 7, producerEpoch = 0): ProducerBatchData =>
  batch({ count, producerId, producerEpoch, baseSequence: seq });

/** The duplicate answer for a batch of `count` records first appended at `baseOffset`. */
const dup = (baseOffset: number, count: number) => ({
  kind: 'duplicate',
  baseOffset,
  lastOffset: baseOffset + count - 1,
});

function appended(log: PartitionLog, data: ProducerBatchData, epoch = 0, now = 0): RecordBatch {
  const o = log.appendAsLeader(data, epoch, now);
  if (o.kind !== 'appended') throw new Error(`not appended: ${JSON.stringify(o)}`);
  return o.batch;
}

describe('PartitionLog: appends as leader', () => {
  it('assigns offsets from the log end and keeps size, end offset and append time', () => {
    const log = new PartitionLog('t', 3);
    const a = appended(log, batch({ count: 3, bytes: 120 }), 4, 10);
    const b = appended(log, batch({ count: 2, bytes: 80 }), 4, 20);
    expect([a.baseOffset, b.baseOffset]).toEqual([0, 3]);
    expect(a.partitionLeaderEpoch).toBe(4);
    expect(b.appendTime).toBe(20);
    expect(log.logEndOffset).toBe(5);
    expect(log.sizeBytes).toBe(200);
    expect(log.batchCount).toBe(2);
    expect(log.allBatches()).toEqual([a, b]);
    expect(log.highWatermark).toBe(0);
    expect(log.logStartOffset).toBe(0);
  });

  it('a producer without an id is never checked: the same batch twice is appended twice', () => {
    const log = new PartitionLog('t', 0);
    const data = batch();
    appended(log, data);
    expect(log.appendAsLeader(data, 0, 0).kind).toBe('appended');
    expect(log.logEndOffset).toBe(4);
  });
});

describe('PartitionLog: idempotent producer', () => {
  it('a retried batch is a duplicate, answered with the original offset, and not appended again', () => {
    const log = new PartitionLog('t', 0);
    appended(log, idem(0, 3));
    const second = appended(log, idem(3, 2));
    expect(log.appendAsLeader(idem(3, 2), 0, 0)).toEqual(dup(second.baseOffset, 2));
    expect(log.appendAsLeader(idem(0, 3), 0, 0)).toEqual(dup(0, 3));
    expect(log.logEndOffset).toBe(5);
    expect(log.batchCount).toBe(2);
  });

  it('a gap or a step back in the sequence is out of order, with the sequence expected next', () => {
    const log = new PartitionLog('t', 0);
    appended(log, idem(0, 3));
    expect(log.appendAsLeader(idem(4, 1), 0, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 3 });
    expect(log.appendAsLeader(idem(2, 1), 0, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 3 });
    expect(log.appendAsLeader(idem(3, 1), 0, 0).kind).toBe('appended');
    expect(log.logEndOffset).toBe(4);
  });

  it('a new producer (or a new epoch of one) must start at sequence 0', () => {
    const log = new PartitionLog('t', 0);
    expect(log.appendAsLeader(idem(5), 0, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 0 });
    appended(log, idem(0, 2, 7, 0));
    appended(log, idem(2, 2, 7, 0));
    // A bumped epoch starts again at 0; its first batch must be 0 even though epoch 0 reached 4.
    expect(log.appendAsLeader(idem(4, 2, 7, 1), 0, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 0 });
    expect(appended(log, idem(0, 2, 7, 1)).baseOffset).toBe(4);
    // Another producer id has state of its own.
    expect(appended(log, idem(0, 1, 8, 0)).baseOffset).toBe(6);
    expect(log.appendAsLeader(idem(2, 2, 7, 1), 0, 0).kind).toBe('appended');
  });

  it("a batch of an older (fenced) epoch is refused, and the newer epoch's state is kept", () => {
    const log = new PartitionLog('t', 0);
    appended(log, idem(0, 2, 7, 0));
    appended(log, idem(0, 3, 7, 1));
    // Epoch 0 again (a zombie producer, or an old batch arriving late): fenced, whatever its sequence.
    expect(log.appendAsLeader(idem(2, 2, 7, 0), 0, 0)).toEqual({ kind: 'invalid-epoch', currentEpoch: 1 });
    expect(log.appendAsLeader(idem(0, 2, 7, 0), 0, 0)).toEqual({ kind: 'invalid-epoch', currentEpoch: 1 });
    expect(log.logEndOffset).toBe(5);
    // Epoch 1 carries on from where it was: its retry is a duplicate, its next batch follows.
    expect(log.appendAsLeader(idem(0, 3, 7, 1), 0, 0)).toEqual(dup(2, 3));
    expect(appended(log, idem(3, 1, 7, 1)).baseOffset).toBe(5);
  });

  it('producer id 0 is a producer like any other (ids start at 0)', () => {
    const log = new PartitionLog('t', 0);
    appended(log, idem(0, 2, 0, 0));
    expect(log.appendAsLeader(idem(0, 2, 0, 0), 0, 0)).toEqual(dup(0, 2));
    expect(log.appendAsLeader(idem(5, 1, 0, 0), 0, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 2 });
    const follower = new PartitionLog('t', 0);
    follower.appendAsFollower(log.allBatches());
    expect(follower.appendAsLeader(idem(0, 2, 0, 0), 1, 0)).toEqual(dup(0, 2));
    appended(log, idem(2, 2, 0, 0));
    log.truncateTo(2);
    expect(log.appendAsLeader(idem(0, 2, 0, 0), 0, 0)).toEqual(dup(0, 2));
  });

  it('remembers exactly the 5 most recent batches per producer', () => {
    const log = new PartitionLog('t', 0);
    for (let i = 0; i < 6; i++) appended(log, idem(2 * i, 2));
    // Batches 1..5 (sequences 2..11) are remembered; batch 0 (sequence 0) has left the window.
    for (let i = 1; i < 6; i++) expect(log.appendAsLeader(idem(2 * i, 2), 0, 0)).toEqual(dup(2 * i, 2));
    expect(log.appendAsLeader(idem(0, 2), 0, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 12 });
  });

  it('a follower builds the same producer state from the batches it copies', () => {
    const leader = new PartitionLog('t', 0);
    const follower = new PartitionLog('t', 0);
    const batches = [appended(leader, idem(0, 2)), appended(leader, idem(2, 3))];
    follower.appendAsFollower(batches);
    // Promoted, the follower recognises the retry and expects sequence 5 next.
    expect(follower.appendAsLeader(idem(2, 3), 1, 0)).toEqual(dup(2, 3));
    expect(follower.appendAsLeader(idem(6, 1), 1, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 5 });
  });
});

describe('PartitionLog: follower appends', () => {
  it('skips batches it already has and refuses a gap', () => {
    const leader = new PartitionLog('t', 0);
    const bs = [appended(leader, batch()), appended(leader, batch()), appended(leader, batch())];
    const f = new PartitionLog('t', 0);
    f.appendAsFollower(bs.slice(0, 2));
    f.appendAsFollower(bs); // the first two again: skipped
    expect(f.allBatches()).toEqual(bs);
    expect(f.logEndOffset).toBe(6);
    expect(f.sizeBytes).toBe(300);
    const g = new PartitionLog('t', 5);
    expect(() => g.appendAsFollower([bs[1]!])).toThrow(
      't-5: replicated batch at offset 2 leaves a gap after log end 0',
    );
  });
});

describe('PartitionLog: leader-epoch cache', () => {
  /** Epoch 1 at offsets 0..3, epoch 3 at 4..5 (epoch 2 never appended), epoch 5 started empty at 6. */
  function epochs(): PartitionLog {
    const log = new PartitionLog('t', 0);
    appended(log, batch(), 1);
    appended(log, batch(), 1);
    appended(log, batch(), 3);
    log.assignEpochStart(5);
    return log;
  }

  it('answers the end offset of an epoch: where the next larger epoch starts, or the log end for the last', () => {
    const log = epochs();
    expect(log.latestEpoch).toBe(5);
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 1, endOffset: 4 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 6 });
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, endOffset: 6 });
    expect(log.endOffsetForEpoch(9)).toEqual({ epoch: 5, endOffset: 6 });
  });

  it('an epoch the log never had answers with the largest epoch below it; one below all, with -1', () => {
    const log = epochs();
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, endOffset: 4 });
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 3, endOffset: 6 });
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: -1, endOffset: -1 });
    expect(new PartitionLog('t', 0).endOffsetForEpoch(0)).toEqual({ epoch: -1, endOffset: -1 });
    expect(new PartitionLog('t', 0).latestEpoch).toBe(-1);
  });

  it('assignEpochStart only moves forward, and appends of an older epoch add no entry', () => {
    const log = epochs();
    log.assignEpochStart(4);
    log.assignEpochStart(5);
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 3, endOffset: 6 });
    appended(log, batch(), 3); // an older epoch's batch (a follower copying): no new entry
    expect(log.latestEpoch).toBe(5);
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, endOffset: 8 });
    const fresh = new PartitionLog('t', 0);
    fresh.assignEpochStart(0);
    expect(fresh.latestEpoch).toBe(0);
    expect(fresh.endOffsetForEpoch(0)).toEqual({ epoch: 0, endOffset: 0 });
  });
});

describe('PartitionLog: truncateTo', () => {
  function fiveBatches(): PartitionLog {
    const log = new PartitionLog('t', 0);
    appended(log, idem(0, 2), 1); // 0..1
    appended(log, idem(2, 2), 1); // 2..3
    appended(log, idem(4, 2), 2); // 4..5
    appended(log, idem(6, 2), 2); // 6..7
    appended(log, idem(8, 2), 3); // 8..9
    log.highWatermark = 8;
    return log;
  }

  it('cuts whole batches: end offset, size, batches and the high watermark clamped to the new end', () => {
    const log = fiveBatches();
    log.truncateTo(6);
    expect(log.logEndOffset).toBe(6);
    expect(log.sizeBytes).toBe(300);
    expect(log.allBatches().map((b) => b.baseOffset)).toEqual([0, 2, 4]);
    expect(log.highWatermark).toBe(6);
    log.truncateTo(0);
    expect(log.logEndOffset).toBe(0);
    expect(log.sizeBytes).toBe(0);
    expect(log.batchCount).toBe(0);
  });

  it('keeps a high watermark below the cut, and does nothing at or past the end', () => {
    const log = fiveBatches();
    log.highWatermark = 4;
    log.truncateTo(8);
    expect(log.highWatermark).toBe(4);
    expect(log.logEndOffset).toBe(8);
    log.truncateTo(8);
    log.truncateTo(20);
    expect(log.logEndOffset).toBe(8);
    expect(log.batchCount).toBe(4);
    // An epoch this replica started as leader but never appended to starts at the log end: a truncation to the
    // end drops it (UnifiedLog.truncateTo's "always truncate epoch cache"), or a follower that led briefly would
    // keep fetching with an epoch the new leader does not have, be told to truncate, and never get anywhere.
    log.assignEpochStart(6);
    expect(log.latestEpoch).toBe(6);
    log.truncateTo(8);
    expect(log.latestEpoch).toBe(2);
    expect(log.endOffsetForEpoch(6)).toEqual({ epoch: 2, endOffset: 8 });
  });

  it('forgets the epochs that started at or after the cut', () => {
    const log = fiveBatches();
    log.truncateTo(4);
    expect(log.latestEpoch).toBe(1);
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, endOffset: 4 });
    const other = fiveBatches();
    other.truncateTo(6); // epoch 2 started at 4, before the cut: it stays
    expect(other.latestEpoch).toBe(2);
    expect(other.endOffsetForEpoch(3)).toEqual({ epoch: 2, endOffset: 6 });
  });

  it('rebuilds the producer state from the batches left', () => {
    const log = fiveBatches();
    log.truncateTo(4);
    // Sequences 4.. are gone: 4 is expected next, and a retry of 2..3 is still a duplicate.
    expect(log.appendAsLeader(idem(6, 2), 4, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 4 });
    expect(log.appendAsLeader(idem(2, 2), 4, 0)).toEqual(dup(2, 2));
    expect(appended(log, idem(4, 2), 4).baseOffset).toBe(4);
    // Cut to nothing: the producer is new again.
    log.truncateTo(0);
    expect(log.appendAsLeader(idem(2, 2), 4, 0)).toEqual({ kind: 'out-of-order', expectedSequence: 0 });
  });

  it('refuses to split a batch', () => {
    const log = fiveBatches();
    expect(() => log.truncateTo(5)).toThrow('t-0: truncation to 5 would split a batch');
    expect(log.logEndOffset).toBe(10);
    expect(log.batchCount).toBe(5);
  });
});

describe('PartitionLog: reads at the byte limit', () => {
  function log100(): PartitionLog {
    const log = new PartitionLog('t', 0);
    for (let i = 0; i < 4; i++) appended(log, batch({ count: 1, bytes: 100 }));
    return log;
  }

  it('a batch that fits exactly is read; one byte less leaves it for the next read', () => {
    const log = log100();
    expect(log.read(0, 4, 200).map((b) => b.baseOffset)).toEqual([0, 1]);
    expect(log.read(0, 4, 199).map((b) => b.baseOffset)).toEqual([0]);
    expect(log.read(0, 4, 300).map((b) => b.baseOffset)).toEqual([0, 1, 2]);
    expect(log.readableBytes(0, 4, 200)).toBe(200);
    expect(log.readableBytes(0, 4, 199)).toBe(100);
    expect(log.read(0, 4, 1).map((b) => b.baseOffset)).toEqual([0]);
  });

  it('stops below the upper offset bound, and starts at the batch holding the offset', () => {
    const log = log100();
    expect(log.read(1, 3, 1000).map((b) => b.baseOffset)).toEqual([1, 2]);
    expect(log.read(3, 3, 1000)).toEqual([]);
    expect(log.read(4, 9, 1000)).toEqual([]);
    expect(log.readableBytes(4, 9, 1000)).toBe(0);
  });
});

describe('PartitionLog: its watcher', () => {
  it('hears of every append, truncation and new high watermark, and of nothing else', () => {
    const log = new PartitionLog('t', 0);
    const heard: string[] = [];
    log.watcher = { logChanged: (l) => heard.push(`${l.logEndOffset}/${l.highWatermark}`) };
    const b = appended(log, batch());
    log.highWatermark = 2;
    log.appendAsFollower([b]); // already there: nothing
    log.read(0, 2, 100);
    log.truncateTo(5); // past the end: nothing
    log.truncateTo(0);
    log.assignEpochStart(3);
    expect(heard).toEqual(['2/0', '2/2', '0/0']);
  });
});
