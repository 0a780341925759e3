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
  /**
   * Buckets below 1 s by their value in tenths of a ms (small integers: no number is boxed to count a run), and
   * the buckets from 1 s up by their value.
   */
  private readonly tenths = new Map<number, number>();
  private readonly large = new Map<number, number>();
  count = 0;
  sum = 0;
  max = 0;

  add(ms: number, weight = 1): void {
    if (weight <= 0) return;
    // latencyBucket's arithmetic, with the value times ten as the key below 1 s (key / 10 is that value exactly).
    if (!(ms >= 1000)) {
      const key = !(ms > 0) ? 0 : ms < 10 ? Math.round(ms * 10) : Math.round(ms) * 10;
      this.tenths.set(key, (this.tenths.get(key) ?? 0) + weight);
    } else {
      const b = latencyBucket(ms);
      this.large.set(b, (this.large.get(b) ?? 0) + weight);
    }
    this.count += weight;
    this.sum += ms * weight;
    if (ms > this.max) this.max = ms;
  }

  /** The latency below which `q` (0..1) of the records fall; undefined when nothing was recorded. */
  percentile(q: number): number | undefined {
    if (this.count === 0) return undefined;
    // Every bucket below 1 s sorts before every bucket from 1 s up.
    const buckets: [number, number][] = [
      ...[...this.tenths].map(([k, n]): [number, number] => [k / 10, n]).sort((a, b) => a[0] - b[0]),
      ...[...this.large].sort((a, b) => a[0] - b[0]),
    ];
    // Nearest-rank: the smallest bucket whose cumulative count reaches q of the total.
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (const [k, n] of buckets) {
      seen += n;
      if (seen >= rank) return k;
    }
    return buckets[buckets.length - 1]![0];
  }

  get mean(): number | undefined {
    return this.count === 0 ? undefined : this.sum / this.count;
  }
}
