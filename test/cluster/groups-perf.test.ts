// kafka-consumer-perf-test on a simulated cluster: the tool's header and --show-detailed-stats rows (one per
// reporting interval, counted at the first record of a poll), rebalance time from the group join, and the
// summary row without --show-detailed-stats.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/cluster/index.ts';

const ROW =
  /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}), 0, (\d+\.\d{4}), (\d+\.\d{4}), (\d+), (\d+\.\d{4}), (\d+), (-?\d+), (\d+\.\d{4}), (\d+\.\d{4})$/;

describe('kafka-consumer-perf-test', () => {
  it('prints detailed rows every reporting interval while it reads what a producer writes', () => {
    const c = createCluster({ seed: 5, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'perf', partitions: 6 });
    // 20 s of records at 5000/s, 100 bytes each; the consumer starts at once and keeps up.
    c.producerPerfTest({ topic: 'perf', numRecords: 100_000, throughput: 5000, recordSize: 100 });
    const r = c.consumerPerfTest({ topic: 'perf', messages: 100_000, showDetailedStats: true });
    c.runUntil(() => r.result !== undefined, { timeout: '60s', description: 'the perf consumer done' });
    expect(r.lines[0]).toBe(
      'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    const rows = r.lines.slice(1).map((l) => ROW.exec(l));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.every((m) => m !== null)).toBe(true);
    const msgs = rows.map((m) => Number(m![4]));
    expect(msgs).toEqual([...msgs].sort((a, b) => a - b));
    // The first interval contains the group join: group.initial.rebalance.delay.ms (3 s) and then some.
    expect(Number(rows[0]![6])).toBeGreaterThanOrEqual(3000);
    expect(rows.slice(1).every((m) => m![6] === '0')).toBe(true);
    // MB is key+value bytes / 1048576: 100-byte values.
    for (const m of rows) expect(Number(m![2])).toBeCloseTo((Number(m![4]) * 100) / 1_048_576, 4);
    // Later intervals run at the producer's pace, 5000 records/s.
    for (const m of rows.slice(1)) expect(Number(m![5])).toBeGreaterThan(4500);
    expect(r.result).toMatchObject({ messagesRead: 100_000, bytesRead: 10_000_000, timedOut: false });
  });

  it('prints one summary row without --show-detailed-stats, and the timeout warning when records run out', () => {
    const c = createCluster({ seed: 6, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'perf', partitions: 2 });
    const p = c.producerPerfTest({ topic: 'perf', numRecords: 1000, throughput: -1, recordSize: 50 });
    c.runUntil(() => p.summary !== undefined, { timeout: '10s' });
    const r = c.consumerPerfTest({ topic: 'perf', messages: 2000, group: 'short', timeoutMs: 5000 });
    c.runUntil(() => r.result !== undefined, { timeout: '60s' });
    expect(r.lines).toHaveLength(3);
    expect(r.lines[1]).toBe(
      'WARNING: Exiting before consuming the expected number of messages: timeout (5000 ms) exceeded. You can use the --timeout option to increase the timeout.',
    );
    const summary =
      /^(\S+ \S+), (\S+ \S+), 0\.0477, (\d+\.\d{4}), 1000, (\d+\.\d{4}), (\d+), (\d+), (\d+\.\d{4}), (\d+\.\d{4})$/.exec(
        r.lines[2]!,
      );
    expect(summary).not.toBeNull();
    expect(r.result).toMatchObject({ messagesRead: 1000, timedOut: true });
    // It ran until 5 s after the last record (and the join took the 3 s initial delay).
    expect(r.result!.endMs - r.result!.startMs).toBeGreaterThan(8000);
  });
});
