// Retention's decision (UnifiedLog.deleteOldSegments through LogManager.cleanupLogs): which of the oldest segments
// go for retention.ms (by their largest timestamp), for retention.bytes (while the rest is still at least the
// limit), and below the log start; never one reaching above the high watermark, never an empty active segment,
// nothing by time or size when cleanup.policy lacks delete.
import { describe, expect, it } from 'vitest';
import { deleteOldSegments, type LogConfig } from '../../../models/broker/log-manager.ts';
import { PartitionLog } from '../../../models/storage/index.ts';

const cfg = (over: Partial<LogConfig>): LogConfig => ({
  segmentBytes: 100,
  segmentMs: 604_800_000,
  retentionMs: -1,
  retentionBytes: -1,
  delete: true,
  ...over,
});

/** A log of `n` one-batch segments of 100 bytes and 2 records, the i-th appended at time 10 * i. */
function logOf(n: number): PartitionLog {
  const log = new PartitionLog('t', 0);
  log.segmentBytes = 100;
  for (let i = 0; i < n; i++) {
    const o = log.appendAsLeader(
      {
        count: 2,
        bytes: 100,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        origin: 'p',
        runs: [{ index: 2 * i, count: 2, time: 0 }],
      },
      0,
      10 * i,
    );
    if (o.kind !== 'appended') throw new Error(o.kind);
  }
  log.highWatermark = log.logEndOffset;
  return log;
}

describe('retention decides by whole segments', () => {
  it('retention.ms: segments whose newest batch is older than the limit, oldest first', () => {
    const log = logOf(5); // timestamps 0, 10, 20, 30, 40
    // At 45 with a 20 ms limit: 0, 10 and 20 are more than 20 ms old (25 > 20); 30 is 15 ms old.
    expect(deleteOldSegments(log, cfg({ retentionMs: 20 }), 45)).toBe(3);
    expect(log.logStartOffset).toBe(6);
    expect(log.segments().map((s) => s.baseOffset)).toEqual([6, 8]);
    // Exactly at the limit is not past it.
    expect(deleteOldSegments(log, cfg({ retentionMs: 15 }), 45)).toBe(0);
  });

  it('retention.bytes: the oldest segments go while what is left is still at least the limit', () => {
    const log = logOf(5); // 500 bytes
    expect(deleteOldSegments(log, cfg({ retentionBytes: 250 }), 0)).toBe(2);
    expect(log.sizeBytes).toBe(300);
    expect(deleteOldSegments(log, cfg({ retentionBytes: 250 }), 0)).toBe(0);
    expect(deleteOldSegments(log, cfg({ retentionBytes: 300 }), 0)).toBe(0);
    expect(deleteOldSegments(log, cfg({ retentionBytes: 0 }), 0)).toBe(3);
    // Everything went: an empty segment at the log end is left, and it stays.
    expect([log.logStartOffset, log.logEndOffset, log.sizeBytes]).toEqual([10, 10, 0]);
    expect(deleteOldSegments(log, cfg({ retentionBytes: 0, retentionMs: 0 }), 1000)).toBe(0);
  });

  it('never a segment that reaches above the high watermark', () => {
    const log = logOf(4); // segments at 0, 2, 4, 6; log end 8
    log.highWatermark = 5;
    // Only the segments ending at or below 5 (0..1 and 2..3) may go, even though all are past retention.
    expect(deleteOldSegments(log, cfg({ retentionMs: 0 }), 1000)).toBe(2);
    expect(log.logStartOffset).toBe(4);
    log.highWatermark = 8;
    expect(deleteOldSegments(log, cfg({ retentionMs: 0 }), 1000)).toBe(2);
    expect(log.logStartOffset).toBe(8);
  });

  it('segments wholly below the log start go even without delete in cleanup.policy; time and size do not', () => {
    const log = logOf(4);
    log.incrementLogStartOffset(5); // a follower told by its leader
    const compact = cfg({ delete: false, retentionMs: 0, retentionBytes: 0 });
    // 0..1 and 2..3 lie below 5; 4..5 holds it.
    expect(deleteOldSegments(log, compact, 1000)).toBe(2);
    expect(log.logStartOffset).toBe(5);
    expect(log.segments()[0]!.baseOffset).toBe(4);
    expect(deleteOldSegments(log, compact, 1000)).toBe(0);
    // Without limits nothing goes by time or size either.
    expect(deleteOldSegments(logOf(3), cfg({}), 1e12)).toBe(0);
  });
});
