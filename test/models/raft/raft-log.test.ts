import { describe, expect, it } from 'vitest';
import { type RaftBatch, RaftLog, RaftLogError } from '../../../models/raft/index.ts';

/** One batch of n records whose values are their offsets. */
const entries = (from: number, epoch: number, n: number): RaftBatch<number>[] => [
  { baseOffset: from, epoch, records: Array.from({ length: n }, (_, i) => from + i) },
];

describe('RaftLog', () => {
  it('keeps the epoch cache as entries are appended', () => {
    const log = new RaftLog<number>();
    log.append(entries(0, 1, 3));
    log.append(entries(3, 3, 2));
    expect(log.endOffset).toBe(5);
    expect(log.lastFetchedEpoch).toBe(3);
    expect(log.epochs).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 3 },
    ]);
    expect(log.endOffsetForEpoch(2)).toEqual({ offset: 3, epoch: 1 });
    expect(() => log.append(entries(7, 3, 1))).toThrow(RaftLogError);
    expect(() => log.append(entries(5, 2, 1))).toThrow(/epoch 2 after epoch 3/);
  });

  it('a reopen loses everything above the flush point and forgets the high watermark', () => {
    const log = new RaftLog<number>();
    log.append(entries(0, 1, 4));
    log.flush();
    log.append(entries(4, 2, 3));
    log.updateHighWatermark(4);
    expect(log.flushedOffset).toBe(4);
    expect(log.reopen()).toBe(3);
    expect(log.endOffset).toBe(4);
    expect(log.lastFetchedEpoch).toBe(1);
    expect(log.highWatermark).toBe(0);
    // Nothing more is lost by a second reopen.
    expect(log.reopen()).toBe(0);
  });

  it('refuses to truncate committed data, and lowers the flush point when it truncates', () => {
    const log = new RaftLog<number>();
    log.append(entries(0, 1, 6));
    log.flush();
    log.updateHighWatermark(3);
    expect(() => log.truncateTo(2)).toThrow(/below the high watermark 3/);
    log.truncateTo(4);
    expect(log.endOffset).toBe(4);
    expect(log.flushedOffset).toBe(4);
    log.append(entries(4, 2, 1));
    expect(log.epochs.at(-1)).toEqual({ epoch: 2, startOffset: 4 });
  });

  it('the high watermark never decreases and never passes the log end', () => {
    const log = new RaftLog<number>();
    log.append(entries(0, 1, 3));
    log.updateHighWatermark(2);
    expect(() => log.updateHighWatermark(1)).toThrow(/non-monotonic/);
    expect(() => log.updateHighWatermark(4)).toThrow(/beyond the log end/);
  });

  it('reads records in a range, capped by the end and a count', () => {
    const log = new RaftLog<number>();
    log.append(entries(0, 1, 5));
    expect(log.read(1, 4).map((e) => e.offset)).toEqual([1, 2, 3]);
    expect(log.read(3).map((e) => e.record)).toEqual([3, 4]);
    expect(log.read(0, 5, 2).map((e) => e.offset)).toEqual([0, 1]);
    expect(log.read(5)).toEqual([]);
    expect(log.entry(4)).toEqual({ offset: 4, epoch: 1, record: 4 });
  });

  it('stores batches: reads whole batches from an offset, truncates inside one, and keeps control batches', () => {
    const log = new RaftLog<number>();
    log.append(entries(0, 1, 3));
    log.append([
      { baseOffset: 3, epoch: 2, records: [], control: { type: 'LeaderChange', leaderId: 1, voters: [1] } },
    ]);
    log.append(entries(4, 2, 4));
    expect(log.batchCount).toBe(3);
    expect(log.endOffset).toBe(8);
    expect(log.entry(3)?.control?.type).toBe('LeaderChange');
    // A fetch from offset 1 gets the rest of the first batch, then whole batches up to the record cap.
    const batches = log.readBatches(1, 8, 3);
    expect(batches.map((b) => [b.baseOffset, b.control ? 'control' : b.records.length])).toEqual([
      [1, 2],
      [3, 'control'],
    ]);
    // Committed readers stop at the high watermark, even inside a batch.
    expect(log.readBatches(4, 6).map((b) => b.records)).toEqual([[4, 5]]);
    const seen: number[] = [];
    log.forEachRecord(2, 6, (offset) => seen.push(offset));
    expect(seen).toEqual([2, 3, 4, 5]);
    log.truncateTo(6);
    expect(log.endOffset).toBe(6);
    expect(log.read(4).map((e) => e.record)).toEqual([4, 5]);
    log.append(entries(6, 3, 1));
    expect(log.epochs).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
      { epoch: 3, startOffset: 6 },
    ]);
  });
});
