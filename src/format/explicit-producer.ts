// The summary line of workflow B's explicit-partition load producer (scenarios/bend-ingest-partition-expansion.yaml):
// `produced=N remaining=0 failed=0 elapsed=... rate=... msg/s`. The guide gives the keys but not how elapsed
// and rate are written; kafkasim writes elapsed as Go's time.Duration.String() of the time rounded to the
// millisecond (`850ms`, `2.345s`, `1m5.2s`) and rate as msg/s with one decimal (`%.1f`), 0.0 when no time
// has passed. That is what a Go load tool printing `elapsed.Round(time.Millisecond)` and `%.1f` would show.

import { FormatInputError } from './format-input-error.ts';
import { javaFixed } from './java-format.ts';

export interface ExplicitProducerSummaryView {
  readonly produced: number;
  readonly remaining: number;
  readonly failed: number;
  readonly elapsedMs: number;
}

/** Go's `time.Duration.String()` for a whole number of milliseconds. */
export function goDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new FormatInputError('invalid-view', `not a duration: ${ms}`);
  const total = Math.round(ms);
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = Math.floor((total % 60_000) / 1000);
  const millis = total % 1000;
  const fraction = millis === 0 ? '' : `.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
  const h = hours > 0 ? `${hours}h` : '';
  const m = hours > 0 || minutes > 0 ? `${minutes}m` : '';
  return `${h}${m}${seconds}${fraction}s`;
}

export function formatExplicitProducerSummary(v: ExplicitProducerSummaryView): string {
  const rate = v.elapsedMs > 0 ? (v.produced * 1000) / v.elapsedMs : 0;
  return (
    `produced=${v.produced} remaining=${v.remaining} failed=${v.failed} ` +
    `elapsed=${goDuration(v.elapsedMs)} rate=${javaFixed(rate, 1)} msg/s\n`
  );
}
