// What the table shows per cell and metric: the median over seeds and the range (min–max). Runs without a value
// for the metric (n/a) are left out; a metric no run has a value for stays n/a. -0 counts as 0: the two compare
// equal, so a stable sort would otherwise keep whichever came first and the summary would depend on the runs' order.

export interface MetricSummary {
  median: number | null;
  min: number | null;
  max: number | null;
  /** Runs that had a value. */
  n: number;
}

export function summarize(values: readonly (number | null | undefined)[]): MetricSummary {
  const xs = values
    .filter((v): v is number => typeof v === 'number' && !Number.isNaN(v))
    .map((v) => (v === 0 ? 0 : v))
    .sort((a, b) => a - b);
  if (xs.length === 0) return { median: null, min: null, max: null, n: 0 };
  const mid = xs.length >> 1;
  const median = xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
  return { median, min: xs[0]!, max: xs[xs.length - 1]!, n: xs.length };
}
