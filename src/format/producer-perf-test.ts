// kafka-producer-perf-test.sh output and the Java producer's WARN lines for retried produce errors.
// Facts: apache/kafka `tools/src/main/java/org/apache/kafka/tools/ProducerPerformance.java` (Stats.record,
// printWindow, printTotal, percentiles, readProps' default client.id) and
// `clients/src/main/java/org/apache/kafka/clients/producer/internals/Sender.java` (completeBatch,
// formatErrMsg); the lines themselves are quoted in AutoMQ's self-balancing example
// (https://docs.automq.com/automq/getting-started/example-continuous-data-self-balancing).
//
// The final line prints records/sec with `%f` (six decimals), as ProducerPerformance.printTotal does in every
// version checked, not `%.1f` as the window lines do.

import { ERRORS_PACKAGE, Errors, type FailureName } from '../../models/protocol/index.ts';
import { FormatInputError } from './format-input-error.ts';
import { javaFormat, log4jTimestamp } from './java-format.ts';

/** Stats.reportingInterval: a window line is printed once a record completes ≥ 5000 ms after the window began. */
export const PRODUCER_PERF_REPORTING_INTERVAL_MS = 5000;
/** ProducerPerformance.readProps: client.id when none is given. */
export const PRODUCER_PERF_CLIENT_ID = 'perf-producer-client';
/** Stats keeps at most this many latency samples. */
export const MAX_LATENCY_SAMPLES = 500_000;

const MB = 1024.0 * 1024.0;

export interface ProducerPerfWindowView {
  /** Records acknowledged in the window. */
  readonly records: number;
  readonly bytes: number;
  /** Window length: now − window start. */
  readonly elapsedMs: number;
  /** Sum of per-record latencies (integer ms each). */
  readonly totalLatencyMs: number;
  readonly maxLatencyMs: number;
}

/** `25622 records sent, 5123.4 records/sec (5.00 MB/sec), 15.7 ms avg latency, 41.0 ms max latency.` */
export function formatProducerPerfWindow(w: ProducerPerfWindowView): string {
  // Operand order as in printWindow, so the doubles (and so the rounding) are the JVM's.
  const recsPerSec = (1000.0 * w.records) / w.elapsedMs;
  const mbPerSec = (1000.0 * w.bytes) / w.elapsedMs / MB;
  return javaFormat(
    '%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency.%n',
    w.records,
    recsPerSec,
    mbPerSec,
    w.totalLatencyMs / w.records,
    w.maxLatencyMs,
  );
}

export interface ProducerPerfTotalView {
  readonly records: number;
  readonly bytes: number;
  /** Test length: end − start. */
  readonly elapsedMs: number;
  readonly totalLatencyMs: number;
  readonly maxLatencyMs: number;
  /** p50, p95, p99, p99.9 as `latencyPercentiles` computes them. */
  readonly percentiles: readonly [number, number, number, number];
  /** The extra steady-state summary of `--warmup-records` (Kafka 4.x): prints `N steady state records sent`. */
  readonly steadyState?: boolean;
}

/** The final summary line of printTotal. */
export function formatProducerPerfTotal(t: ProducerPerfTotalView): string {
  const recsPerSec = (1000.0 * t.records) / t.elapsedMs;
  const mbPerSec = (1000.0 * t.bytes) / t.elapsedMs / MB;
  const [p50, p95, p99, p999] = t.percentiles;
  return javaFormat(
    '%d%s records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, ' +
      '%d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.%n',
    t.records,
    t.steadyState ? ' steady state' : '',
    recsPerSec,
    mbPerSec,
    t.totalLatencyMs / t.records,
    t.maxLatencyMs,
    p50,
    p95,
    p99,
    p999,
  );
}

/** Stats.sampling: keep the latency of every n-th record, n = numRecords / min(numRecords, 500000) (integer). */
export function latencySamplingInterval(numRecords: number): number {
  if (!Number.isInteger(numRecords) || numRecords <= 0) {
    throw new FormatInputError('invalid-view', `--num-records must be a positive integer, got ${numRecords}`);
  }
  return Math.floor(numRecords / Math.min(numRecords, MAX_LATENCY_SAMPLES));
}

/** The latencies Stats keeps: those of records 0, n, 2n, ... in completion order. */
export function sampleLatencies(latenciesInCompletionOrder: readonly number[], numRecords: number): number[] {
  const every = latencySamplingInterval(numRecords);
  return latenciesInCompletionOrder.filter((_, i) => i % every === 0);
}

/**
 * Stats.percentiles: sort the samples, take `value[(int)(p * size)]`. With no samples Java reads the
 * zero-filled array, so every percentile is 0.
 */
export function latencyPercentiles(
  samples: readonly number[],
  ps: readonly number[] = [0.5, 0.95, 0.99, 0.999],
): number[] {
  // A typed array sorts numerically without calling a comparator: up to 500,000 samples at the end of a run.
  const sorted = Float64Array.from(samples).sort();
  return ps.map((p) => sorted[Math.trunc(p * sorted.length)] ?? 0);
}

/**
 * latencyPercentiles of samples given as a histogram (sample value -> how many samples have it): the same values,
 * since only the multiset of samples matters, at the cost of sorting the distinct values instead of every sample.
 */
export function histogramPercentiles(
  counts: ReadonlyMap<number, number>,
  ps: readonly number[] = [0.5, 0.95, 0.99, 0.999],
): number[] {
  let size = 0;
  for (const c of counts.values()) size += c;
  const values = Float64Array.from(counts.keys()).sort();
  return ps.map((p) => {
    const rank = Math.trunc(p * size);
    let below = 0;
    for (const v of values) {
      below += counts.get(v)!;
      if (rank < below) return v;
    }
    return 0;
  });
}

/**
 * The tool's Stats object on the virtual clock: feed every acknowledged record, get back the window line
 * when Stats would print one, and the final line at the end. Deterministic: time comes from the caller.
 */
export class ProducerPerfStats {
  private readonly every: number;
  /** The latency samples Stats keeps, as a histogram (latency -> samples): a run of records shares one latency. */
  private readonly samples = new Map<number, number>();
  private iteration = 0;
  private count = 0;
  private bytes = 0;
  private totalLatency = 0;
  private maxLatency = 0;
  private windowStart: number;
  private windowCount = 0;
  private windowBytes = 0;
  private windowTotalLatency = 0;
  private windowMaxLatency = 0;

  constructor(
    numRecords: number,
    private readonly startMs: number,
    /**
     * When given, window lines start with `[yyyy-MM-dd HH:mm:ss,SSS] `, the window's start on the virtual wall
     * clock (epoch ms at virtual time 0 plus the window start), as AutoMQ's ProducerPerformance.Stats.printWindow
     * prints them (https://github.com/AutoMQ/automq, tools/.../ProducerPerformance.java); Apache Kafka's does not.
     */
    private readonly windowEpochMs?: number,
  ) {
    this.every = latencySamplingInterval(numRecords);
    this.windowStart = startMs;
  }

  /** A record completed successfully at `nowMs` after `latencyMs`; returns the window line if one is due. */
  record(latencyMs: number, bytes: number, nowMs: number): string | null {
    return this.recordMany(latencyMs, 1, bytes, nowMs);
  }

  /**
   * `count` records of `bytes` each completed at `nowMs` after `latencyMs` (one batch's run): the same as `count`
   * calls of `record`, whose window line can only be due at the first (the window then starts at `nowMs`).
   */
  recordMany(latencyMs: number, count: number, bytes: number, nowMs: number): string | null {
    if (count <= 0) return null;
    this.count += count;
    this.bytes += bytes * count;
    this.totalLatency += latencyMs * count;
    this.maxLatency = Math.max(this.maxLatency, latencyMs);
    // Records iteration .. iteration+count-1; those at a multiple of `every` are sampled.
    const end = this.iteration + count;
    const first = Math.ceil(this.iteration / this.every) * this.every;
    if (first < end) {
      const sampled = Math.floor((end - 1 - first) / this.every) + 1;
      this.samples.set(latencyMs, (this.samples.get(latencyMs) ?? 0) + sampled);
    }
    this.iteration = end;
    // The first record ends the window when it is due; the others start the next one.
    this.addToWindow(latencyMs, 1, bytes);
    let line: string | null = null;
    if (nowMs - this.windowStart >= PRODUCER_PERF_REPORTING_INTERVAL_MS) {
      const stamp =
        this.windowEpochMs === undefined ? '' : `[${log4jTimestamp(this.windowEpochMs + this.windowStart)}] `;
      line =
        stamp +
        formatProducerPerfWindow({
          records: this.windowCount,
          bytes: this.windowBytes,
          elapsedMs: nowMs - this.windowStart,
          totalLatencyMs: this.windowTotalLatency,
          maxLatencyMs: this.windowMaxLatency,
        });
      this.windowStart = nowMs;
      this.windowCount = 0;
      this.windowBytes = 0;
      this.windowTotalLatency = 0;
      this.windowMaxLatency = 0;
    }
    if (count > 1) this.addToWindow(latencyMs, count - 1, bytes);
    return line;
  }

  private addToWindow(latencyMs: number, count: number, bytes: number): void {
    this.windowCount += count;
    this.windowBytes += bytes * count;
    this.windowTotalLatency += latencyMs * count;
    this.windowMaxLatency = Math.max(this.windowMaxLatency, latencyMs);
  }

  /** The final summary line, as printTotal at `nowMs`. */
  total(nowMs: number): string {
    const [p50, p95, p99, p999] = histogramPercentiles(this.samples) as [number, number, number, number];
    return formatProducerPerfTotal({
      records: this.count,
      bytes: this.bytes,
      elapsedMs: nowMs - this.startMs,
      totalLatencyMs: this.totalLatency,
      maxLatencyMs: this.maxLatency,
      percentiles: [p50, p95, p99, p999],
    });
  }
}

/** Logger name the Sender's lines carry, printed by Kafka's tools-log4j pattern `[%d] %p %m (%c)%n`. */
export const SENDER_LOGGER = 'org.apache.kafka.clients.producer.internals.Sender';
/** ProducerConfig retries default (Integer.MAX_VALUE); the first retry therefore has 2147483646 attempts left. */
export const DEFAULT_PRODUCER_RETRIES = 2147483647;

export interface ProduceErrorView {
  readonly clientId: string;
  readonly correlationId: number;
  readonly topic: string;
  readonly partition: number;
  /** `retries - batch.attempts() - 1` at the time of the error. */
  readonly attemptsLeft: number;
  readonly error: FailureName;
  /** The broker's error message in the response, if any (printed after the error name, and as exception text). */
  readonly errorMessage?: string | null;
  /** Virtual time of the log line; when given, the line starts with log4j's `[yyyy-MM-dd HH:mm:ss,SSS] `. */
  readonly timestampMs?: number;
}

function senderLine(v: ProduceErrorView, message: string): string {
  const ts = v.timestampMs === undefined ? '' : `[${log4jTimestamp(v.timestampMs)}] `;
  return `${ts}WARN [Producer clientId=${v.clientId}] ${message} (${SENDER_LOGGER})\n`;
}

/** Sender.completeBatch for a retriable error: the "Got error produce response ... retrying" line. */
export function formatProduceRetryWarn(v: ProduceErrorView): string {
  // formatErrMsg: the error name, then ". Error Message: <msg>" when the response carries one.
  const err = v.errorMessage ? `${v.error}. Error Message: ${v.errorMessage}` : v.error;
  return senderLine(
    v,
    `Got error produce response with correlation id ${v.correlationId} on topic-partition ` +
      `${v.topic}-${v.partition}, retrying (${v.attemptsLeft} attempts left). Error: ${err}`,
  );
}

/**
 * The second line Sender logs when the error is an InvalidMetadataException (null for other errors).
 * Recent Sender writes `due to {} Going to request ...` (no period of its own), so Kafka's default message,
 * which ends with one, reads `... partition. Going to request metadata update now` as in the source workflow;
 * older clients printed `due to {}. Going`, i.e. two periods.
 */
export function formatInvalidMetadataWarn(v: ProduceErrorView): string | null {
  if (!Errors[v.error].invalidMetadata) return null;
  const tp = `${v.topic}-${v.partition}`;
  if (v.error === 'UNKNOWN_TOPIC_OR_PARTITION') {
    return senderLine(
      v,
      `Received unknown topic or partition error in produce request on partition ${tp}. The ` +
        'topic-partition may not exist or the user may not have Describe access to it',
    );
  }
  // The exception's toString (KafkaError's), without constructing an Error (and capturing its stack) per line.
  const entry = Errors[v.error];
  const exception = `${ERRORS_PACKAGE}.${entry.exceptionClass}: ${v.errorMessage ?? entry.message}`;
  return senderLine(
    v,
    `Received invalid metadata error in produce request on partition ${tp} due to ${exception} Going to request metadata update now`,
  );
}

/** Both WARN lines the producer logs for one retried produce error, in order. */
export function formatProduceErrorWarns(v: ProduceErrorView): string {
  return formatProduceRetryWarn(v) + (formatInvalidMetadataWarn(v) ?? '');
}
