// The errors a client saw, counted by Kafka's error name (as tests, reports and scenario conditions read them),
// plus the client-side ones that have no code (NoOffsetForPartition).
import { errorByCode } from '../protocol/index.ts';

export type ErrorCounts = Partial<Record<string, number>>;

/** Counts one error, given by its code or its name. */
export function countError(counts: ErrorCounts, error: number | string): void {
  const name = typeof error === 'number' ? errorByCode(error).name : error;
  counts[name] = (counts[name] ?? 0) + 1;
}
