import { describe, expect, it } from 'vitest';
import {
  formatConsumerPerfDate,
  formatConsumerPerfHeader,
  formatConsumerPerfProgress,
  formatConsumerPerfSummary,
  formatConsumerPerfTimeoutWarning,
} from '../../src/format/index.ts';

// Expected rows were printed by a JVM running ConsumerPerformance's own printf calls on the same numbers
// (SimpleDateFormat set to UTC).

describe('kafka-consumer-perf-test output', () => {
  it('prints both headers', () => {
    expect(formatConsumerPerfHeader(true)).toBe(
      'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, ' +
        'fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n',
    );
    expect(formatConsumerPerfHeader(false)).toBe(
      'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, ' +
        'fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n',
    );
  });

  it('prints a detailed row', () => {
    expect(
      formatConsumerPerfProgress({
        intervalStartMs: 1700000000000,
        nowMs: 1700000001000,
        bytesRead: 5 * 1048576 + 12345,
        lastBytesRead: 0,
        messagesRead: 5120,
        lastMessagesRead: 0,
        joinTimeMsInInterval: 312,
      }),
    ).toBe('2023-11-14 22:13:21:000, 0, 5.0118, 5.0118, 5120, 5120.0000, 312, 688, 7.2846, 7441.8605\n');
  });

  it('prints 0 fetch rates when the interval was all rebalance', () => {
    expect(
      formatConsumerPerfProgress({
        intervalStartMs: 0,
        nowMs: 1000,
        bytesRead: 2048,
        lastBytesRead: 1024,
        messagesRead: 2,
        lastMessagesRead: 1,
        joinTimeMsInInterval: 1500,
      }),
    ).toBe('1970-01-01 00:00:01:000, 0, 0.0020, 0.0010, 2, 1.0000, 1500, -500, 0.0000, 0.0000\n');
  });

  it('prints the summary row', () => {
    expect(
      formatConsumerPerfSummary({
        startMs: 1700000000000,
        endMs: 1700000200500,
        bytesRead: 1024000 * 1024,
        messagesRead: 1024000,
        joinTimeMs: 3012,
      }),
    ).toBe(
      '2023-11-14 22:13:20:000, 2023-11-14 22:16:40:500, 1000.0000, 4.9875, 1024000, 5107.2319, 3012, 197488, ' +
        '5.0636, 5185.1252\n',
    );
  });

  it('formats dates as yyyy-MM-dd HH:mm:ss:SSS in UTC and prints the timeout warning', () => {
    expect(formatConsumerPerfDate(1700000001234)).toBe('2023-11-14 22:13:21:234');
    expect(formatConsumerPerfTimeoutWarning(300000)).toBe(
      'WARNING: Exiting before consuming the expected number of messages: timeout (300000 ms) exceeded. ' +
        'You can use the --timeout option to increase the timeout.\n',
    );
  });
});
