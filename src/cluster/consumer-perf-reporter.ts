// Turns the consumer perf-test workload's rows into kafka-consumer-perf-test's output: the header, then with
// --show-detailed-stats one row per reporting interval (no summary), otherwise the single summary row; and the
// WARNING line when --timeout ended the run early.
import type { ConsumerPerfResult, ConsumerPerfWorkload } from '../../models/clients/index.ts';
import {
  formatConsumerPerfHeader,
  formatConsumerPerfProgress,
  formatConsumerPerfSummary,
  formatConsumerPerfTimeoutWarning,
} from '../format/index.ts';

export interface PerfConsumerReport {
  readonly workload: ConsumerPerfWorkload;
  /** Every line printed so far (without trailing newlines). */
  readonly lines: string[];
  /** Set when the run ended. */
  result: ConsumerPerfResult | undefined;
}

export function reportConsumerPerf(
  workload: ConsumerPerfWorkload,
  out: (line: string) => void,
  /** epochMs: virtual time 0 on the wall clock (callers pass the run's `startTime`); default 0. */
  options: { showDetailedStats?: boolean; epochMs?: number } = {},
): PerfConsumerReport {
  const detailed = options.showDetailedStats ?? false;
  const epoch = options.epochMs ?? 0;
  const report: PerfConsumerReport = { workload, lines: [], result: undefined };
  const print = (text: string) => {
    const line = text.endsWith('\n') ? text.slice(0, -1) : text;
    report.lines.push(line);
    out(line);
  };
  print(formatConsumerPerfHeader(detailed));
  if (detailed) {
    workload.onProgress((p) =>
      print(
        formatConsumerPerfProgress({
          ...p,
          intervalStartMs: p.intervalStartMs + epoch,
          nowMs: p.nowMs + epoch,
        }),
      ),
    );
  }
  workload.onDone((r) => {
    report.result = r;
    if (r.timedOut) print(formatConsumerPerfTimeoutWarning(workload.options.timeoutMs));
    if (!detailed)
      print(
        formatConsumerPerfSummary({
          startMs: r.startMs + epoch,
          endMs: r.endMs + epoch,
          bytesRead: r.bytesRead,
          messagesRead: r.messagesRead,
          joinTimeMs: r.joinTimeMs,
        }),
      );
  });
  return report;
}
