// Numbers as tables show them: whole numbers as they are, others to three significant digits (a latency of
// 1004.504 ms reads 1005, a deviation of 0.12345 reads 0.123), and n/a for a metric the run has no data for.

export const NA = 'n/a';

export function formatMetric(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return NA;
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '-∞';
  if (Number.isInteger(value)) return String(value);
  const a = Math.abs(value);
  if (a >= 100) return String(Math.round(value));
  return String(Number(value.toPrecision(3)));
}
