// The load test: 1,024,000 records of 1 KiB at 5120/s to 16 partitions on 5 brokers (shared storage):
// every record acknowledged exactly once in the logs, and the perf-test lines printed as the tool prints them.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/cluster/index.ts';

describe('kafka-producer-perf-test, 1,024,000 x 1 KiB at 5120/s, 16 partitions, 5 brokers, shared storage', () => {
  it('acknowledges every record exactly once and prints the tool lines', () => {
    const c = createCluster({ seed: 11, brokers: 5, storage: 'shared' });
    c.admin.createTopic({ name: 'perf', partitions: 16 });
    const report = c.producerPerfTest({
      topic: 'perf',
      numRecords: 1_024_000,
      throughput: 5120,
      recordSize: 1024,
    });
    c.runUntil(() => report.summary !== undefined, { timeout: '260s', description: 'perf test done' });
    // About 200 s of producing, a window line every ~5 s.
    expect(c.now).toBeGreaterThan(199_000);
    expect(c.now).toBeLessThan(205_000);
    const windows = report.lines.slice(0, -1);
    expect(windows.length).toBeGreaterThanOrEqual(38);
    for (const line of windows) {
      expect(line).toMatch(
        // AutoMQ's tool stamps each window line with the window's start (ProducerPerformance.Stats.printWindow).
        /^\[2026-01-01 00:0\d:\d\d,\d{3}\] \d+ records sent, \d+\.\d records\/sec \(\d+\.\d\d MB\/sec\), \d+\.\d ms avg latency, \d+\.\d ms max latency\.\n$/,
      );
    }
    // Steady state: 5120 records/s, 5.00 MB/s.
    expect(windows.slice(1, -1).every((l) => /\(5\.0\d MB\/sec\)/.test(l))).toBe(true);
    expect(report.summary).toMatch(
      /^1024000 records sent, 51\d\d\.\d{6} records\/sec \(5\.0\d MB\/sec\), \d+\.\d\d ms avg latency, \d+\.\d\d ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.\n$/,
    );
    const d = c.deliveryReport('perf-producer', 'perf');
    expect(d).toMatchObject({
      sent: 1_024_000,
      acknowledged: 1_024_000,
      failed: 0,
      lost: 0,
      duplicated: 0,
      unacknowledgedInLog: 0,
    });
    const total = c.partitionLogs('perf').reduce((n, log) => n + log.logEndOffset, 0);
    expect(total).toBe(1_024_000);
  });
});
