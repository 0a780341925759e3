// A scenario's `startTime`: the virtual wall clock at virtual time 0, as epoch milliseconds.

/** A scenario's `startTime` as epoch milliseconds (undefined when it is not a real date). */
export function startTimeOf(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse rolls 2024-02-30 over into March: refuse a day the month does not have.
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (day && new Date(Date.UTC(+day[1]!, +day[2]! - 1, +day[3]!)).getUTCDate() !== +day[3]!) return undefined;
  return ms;
}
