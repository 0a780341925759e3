// Turns model events into the tools' output lines: the perf-test producer's progress and summary lines and the
// Java producer's WARN lines on retried errors.
import type { Producer, ProducerPerfWorkload } from '../../models/clients/index.ts';
import { formatProduceErrorWarns, ProducerPerfStats } from '../format/index.ts';

/**
 * Prints the Java producer's two WARN lines for each retried produce error, with log4j's `[%d] ` prefix (the Kafka
 * tools' log4j pattern `[%d] %p %m (%c)%n`) on the run's virtual wall clock.
 */
export function attachProducerLog(producer: Producer, out: (line: string) => void): void {
  if (producer.flavour !== 'java') return;
  producer.onEvent((e) => {
    if (e.type !== 'retry') return;
    out(
      formatProduceErrorWarns({
        clientId: e.clientId,
        correlationId: e.correlationId,
        topic: e.topic,
        partition: e.partition,
        attemptsLeft: e.attemptsLeft,
        error: e.error as Exclude<typeof e.error, 'NONE'>,
        errorMessage: e.errorMessage ?? null,
        timestampMs: Math.floor(producer.sim.wallClock),
      }),
    );
  });
}

export interface PerfProducerReport {
  readonly workload: ProducerPerfWorkload;
  /** Every progress line printed so far, then the summary. */
  readonly lines: string[];
  /** The summary line once the test finished. */
  summary: string | undefined;
  /** Per-window throughput (records/s) as printed, for charts and expectations. */
  readonly windows: { time: number; recordsPerSec: number; avgLatencyMs: number; maxLatencyMs: number }[];
}

/** Feeds every acknowledged record into the tool's Stats (latency = ack time − send time, whole ms). */
export function reportProducerPerf(
  workload: ProducerPerfWorkload,
  out: (line: string) => void,
  options: {
    /** AutoMQ's tool: window lines start with the window's start time (ProducerPerfStats). Default false. */
    windowTimestamps?: boolean;
  } = {},
): PerfProducerReport {
  const producer = workload.producer;
  const bytes = workload.options.recordSize;
  let stats: ProducerPerfStats | undefined;
  const report: PerfProducerReport = { workload, lines: [], summary: undefined, windows: [] };
  const print = (line: string) => {
    report.lines.push(line);
    out(line);
  };
  const epoch = options.windowTimestamps ? producer.sim.startTime : undefined;
  const newStats = () =>
    new ProducerPerfStats(workload.options.numRecords, Math.floor(workload.startTime), epoch);
  const finish = () => {
    if (report.summary !== undefined || !workload.done) return;
    stats ??= newStats();
    report.summary = stats.total(Math.floor(workload.endTime));
    print(report.summary);
  };
  producer.onDelivery((r) => {
    stats ??= newStats();
    if (r.error) return finish();
    const now = Math.floor(r.time);
    for (const run of r.runs) {
      const latency = now - Math.floor(run.time);
      const line = stats.recordMany(latency, run.count, bytes, now);
      if (line) {
        print(line);
        const m =
          /^(?:\[[^\]]*\] )?(\d+) records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max/.exec(
            line,
          );
        if (m)
          report.windows.push({
            time: now,
            recordsPerSec: Number(m[2]),
            avgLatencyMs: Number(m[3]),
            maxLatencyMs: Number(m[4]),
          });
      }
    }
    // The workload notices completion before this listener runs for the last batch: summarise after recording.
    finish();
  });
  return report;
}
