// kafka-consumer-perf-test.sh output. Facts: apache/kafka `tools/src/main/java/org/apache/kafka/tools/
// ConsumerPerformance.java` (printHeader, printBasicProgress, printExtendedProgress, the final printf,
// the timeout WARNING). With --show-detailed-stats the tool prints only the
// per-interval rows, without the summary row; callers choose which functions to call accordingly.

import { javaDate, javaFormat } from './java-format.ts';

/** `--date-format` default. Dates are printed in UTC: the simulator has no local time zone. */
export const CONSUMER_PERF_DATE_FORMAT = 'yyyy-MM-dd HH:mm:ss:SSS';
/** `--reporting-interval` default. */
export const CONSUMER_PERF_REPORTING_INTERVAL_MS = 5000;
/** ConsumerPerfOptions.props: client.id when none is given. */
export const CONSUMER_PERF_CLIENT_ID = 'perf-consumer-client';

const MB = 1024 * 1024;

export function formatConsumerPerfDate(epochMs: number): string {
  return javaDate(epochMs, CONSUMER_PERF_DATE_FORMAT);
}

export function formatConsumerPerfHeader(showDetailedStats: boolean): string {
  const extra = ', rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';
  return showDetailedStats
    ? `time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${extra}\n`
    : `start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${extra}\n`;
}

export interface ConsumerPerfProgressView {
  /** Start of this reporting interval (the previous report's time, or the start). */
  readonly intervalStartMs: number;
  /** Time of this report. */
  readonly nowMs: number;
  /** Totals so far (key + value bytes). */
  readonly bytesRead: number;
  readonly messagesRead: number;
  /** Totals at the previous report. */
  readonly lastBytesRead: number;
  readonly lastMessagesRead: number;
  /** Rebalance (join) time spent inside this interval. */
  readonly joinTimeMsInInterval: number;
  /** Always 0 in the current tool. */
  readonly threadId?: number;
}

/** One `--show-detailed-stats` row: printBasicProgress + printExtendedProgress + newline. */
export function formatConsumerPerfProgress(v: ConsumerPerfProgressView): string {
  // Same operand order as the Java code so the doubles match.
  const elapsedMs = v.nowMs - v.intervalStartMs;
  const totalMbRead = (v.bytesRead * 1.0) / MB;
  const intervalMbRead = ((v.bytesRead - v.lastBytesRead) * 1.0) / MB;
  const intervalMbPerSec = (1000.0 * intervalMbRead) / elapsedMs;
  const intervalMessagesPerSec = ((v.messagesRead - v.lastMessagesRead) / elapsedMs) * 1000.0;
  const fetchTimeMs = v.nowMs - v.intervalStartMs - v.joinTimeMsInInterval;
  const intervalMessagesRead = v.messagesRead - v.lastMessagesRead;
  const fetchMbPerSec = fetchTimeMs <= 0 ? 0.0 : (1000.0 * intervalMbRead) / fetchTimeMs;
  const fetchMessagesPerSec = fetchTimeMs <= 0 ? 0.0 : (1000.0 * intervalMessagesRead) / fetchTimeMs;
  return (
    javaFormat(
      '%s, %d, %.4f, %.4f, %d, %.4f',
      formatConsumerPerfDate(v.nowMs),
      v.threadId ?? 0,
      totalMbRead,
      intervalMbPerSec,
      v.messagesRead,
      intervalMessagesPerSec,
    ) +
    javaFormat(
      ', %d, %d, %.4f, %.4f',
      v.joinTimeMsInInterval,
      fetchTimeMs,
      fetchMbPerSec,
      fetchMessagesPerSec,
    ) +
    '\n'
  );
}

export interface ConsumerPerfSummaryView {
  readonly startMs: number;
  readonly endMs: number;
  readonly bytesRead: number;
  readonly messagesRead: number;
  /** Total time spent in rebalances. */
  readonly joinTimeMs: number;
}

/** The single summary row printed without --show-detailed-stats. */
export function formatConsumerPerfSummary(v: ConsumerPerfSummaryView): string {
  const elapsedSec = (v.endMs - v.startMs) / 1_000.0;
  const fetchTimeInMs = v.endMs - v.startMs - v.joinTimeMs;
  const totalMbRead = (v.bytesRead * 1.0) / MB;
  return javaFormat(
    '%s, %s, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f%n',
    formatConsumerPerfDate(v.startMs),
    formatConsumerPerfDate(v.endMs),
    totalMbRead,
    totalMbRead / elapsedSec,
    v.messagesRead,
    v.messagesRead / elapsedSec,
    v.joinTimeMs,
    fetchTimeInMs,
    totalMbRead / (fetchTimeInMs / 1000.0),
    v.messagesRead / (fetchTimeInMs / 1000.0),
  );
}

/** Printed when `--timeout` passes between records before `--messages` were consumed. */
export function formatConsumerPerfTimeoutWarning(timeoutMs: number): string {
  return javaFormat(
    'WARNING: Exiting before consuming the expected number of messages: timeout (%d ms) exceeded. ' +
      'You can use the --timeout option to increase the timeout.%n',
    timeoutMs,
  );
}
