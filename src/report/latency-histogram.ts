// Record latencies without keeping every record: a run can acknowledge millions of records, so latencies go into
// buckets (0.1 ms below 10 ms, 1 ms below 1 s, three significant digits above), weighted by record count. The
// percentiles are exact to the bucket width, which is far finer than what the charts and tables show.

/** The bucket a latency (ms) falls in, as the value the bucket stands for. */
export function latencyBucket(ms: number): number {
  if (!(ms > 0)) return 0;
  if (ms < 10) return Math.round(ms * 10) / 10;
  if (ms < 1000) return Math.round(ms);
  return Number(ms.toPrecision(3));
}

export class LatencyHistogram {
  private readonly counts = new Map<number, number>();
  count = 0;
  sum = 0;
  max = 0;

  add(ms: number, weight = 1): void {
    if (weight <= 0) return;
    const b = latencyBucket(ms);
    this.counts.set(b, (this.counts.get(b) ?? 0) + weight);
    this.count += weight;
    this.sum += ms * weight;
    if (ms > this.max) this.max = ms;
  }

  /** The latency below which `q` (0..1) of the records fall; undefined when nothing was recorded. */
  percentile(q: number): number | undefined {
    if (this.count === 0) return undefined;
    const keys = [...this.counts.keys()].sort((a, b) => a - b);
    // Nearest-rank: the smallest bucket whose cumulative count reaches q of the total.
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (const k of keys) {
      seen += this.counts.get(k)!;
      if (seen >= rank) return k;
    }
    return keys[keys.length - 1];
  }

  get mean(): number | undefined {
    return this.count === 0 ? undefined : this.sum / this.count;
  }
}
