// Small pure helpers over PartitionAssignment values (Kafka's Assignment / AssignmentUtils).
import { EMPTY_ASSIGNMENT, type PartitionAssignment } from './types.ts';

/** Builds an assignment from topicId → partitions (any order, duplicates dropped, empty topics dropped). */
export function assignmentOf(
  byTopic: ReadonlyMap<string, Iterable<number>> | Record<string, Iterable<number>>,
): PartitionAssignment {
  const entries: [string, Iterable<number>][] =
    byTopic instanceof Map ? [...byTopic] : Object.entries(byTopic as Record<string, Iterable<number>>);
  const out: Record<string, readonly number[]> = {};
  for (const [topicId, parts] of entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const list = [...new Set(parts)].sort((a, b) => a - b);
    if (list.length > 0) out[topicId] = Object.freeze(list);
  }
  return Object.keys(out).length === 0 ? EMPTY_ASSIGNMENT : Object.freeze(out);
}

export function assignmentEquals(a: PartitionAssignment, b: PartitionAssignment): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const t of ka) {
    const x = a[t]!;
    const y = b[t];
    if (!y || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

export function partitionCount(a: PartitionAssignment): number {
  let n = 0;
  for (const t in a) n += a[t]!.length;
  return n;
}

export function hasPartition(a: PartitionAssignment, topicId: string, partition: number): boolean {
  return a[topicId]?.includes(partition) ?? false;
}

/** Every (topicId, partition) of the assignment, topics ascending then partitions ascending. */
export function* partitionsOf(a: PartitionAssignment): Generator<[string, number]> {
  for (const t of Object.keys(a).sort()) for (const p of a[t]!) yield [t, p];
}

/** a ∪ b. */
export function unionAssignment(a: PartitionAssignment, b: PartitionAssignment): PartitionAssignment {
  const m = new Map<string, number[]>();
  for (const x of [a, b]) for (const t in x) m.set(t, [...(m.get(t) ?? []), ...x[t]!]);
  return assignmentOf(m);
}
