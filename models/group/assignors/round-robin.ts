import { buildSpace, toAssignment } from './assignment-space.ts';
import { compareUtf8, sortMembers } from './member-order.ts';
import type { AssignInput, Assignor, MemberOrdering, TopicPartition } from './types.ts';

// Kafka's RoundRobinAssignor and librdkafka's rdkafka_roundrobin_assignor.c: all subscribed topics sorted,
// their partitions laid out t0p0..t0pN, t1p0..; a circular cursor over the sorted members skips members not
// subscribed to the partition's topic and gives the partition to the next one. The cursor carries across
// topics (RoundRobinAssignor.assign).

export interface RoundRobinOptions {
  ordering?: MemberOrdering;
}

export function assignRoundRobin(
  input: AssignInput,
  options: RoundRobinOptions = {},
): Record<string, TopicPartition[]> {
  const space = buildSpace(input);
  const ordering = options.ordering ?? 'java';
  const ordered = sortMembers(space.members, ordering);
  const ids: number[][] = space.members.map(() => []);
  if (ordered.length === 0) return toAssignment(space, ids);

  const subscribed = new Set<number>();
  for (const m of space.members) for (const t of m.topicIndices) subscribed.add(t);
  // Java sorts topics with a TreeSet (UTF-16 order), librdkafka with strcmp (byte order).
  const topicOrder = [...subscribed].sort(
    ordering === 'java' ? (a, b) => a - b : (a, b) => compareUtf8(space.topics[a]!, space.topics[b]!),
  );

  let cursor = 0;
  for (const t of topicOrder) {
    const topic = space.topics[t]!;
    const base = space.offsets[t]!;
    for (let p = 0; p < space.partitionCounts[t]!; p++) {
      // Terminates: the topic is in `subscribed`, so some member takes it within one lap.
      while (!ordered[cursor]!.subscription.has(topic)) cursor = (cursor + 1) % ordered.length;
      ids[ordered[cursor]!.index]!.push(base + p);
      cursor = (cursor + 1) % ordered.length;
    }
  }
  return toAssignment(space, ids);
}

export function roundRobinAssignor(options: RoundRobinOptions = {}): Assignor {
  const ordering = options.ordering ?? 'java';
  return {
    name: 'roundrobin',
    rebalanceProtocols: ['EAGER'],
    assign: (input) => assignRoundRobin(input, { ordering }),
  };
}

/** Java's RoundRobinAssignor ordering; use roundRobinAssignor({ ordering: 'librdkafka' }) for librdkafka's. */
export const roundRobin: Assignor = roundRobinAssignor();
