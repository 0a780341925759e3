import { buildSpace, toAssignment } from './assignment-space.ts';
import { sortMembers } from './member-order.ts';
import type { AssignInput, Assignor, MemberOrdering, TopicPartition } from './types.ts';

// Kafka's RangeAssignor (clients/.../consumer/RangeAssignor.java) and librdkafka's
// rdkafka_range_assignor.c, without rack awareness: per topic, the subscribers in member order get
// contiguous ranges; the first `P % C` get one partition more, so the same low-sorted members get the
// extra partition of every topic (RangeAssignor.assign).

export interface RangeOptions {
  ordering?: MemberOrdering;
}

export function assignRange(
  input: AssignInput,
  options: RangeOptions = {},
): Record<string, TopicPartition[]> {
  const space = buildSpace(input);
  const ordered = sortMembers(space.members, options.ordering ?? 'java');
  const ids: number[][] = space.members.map(() => []);
  for (let t = 0; t < space.topics.length; t++) {
    const numPartitions = space.partitionCounts[t]!;
    if (numPartitions === 0) continue;
    const topic = space.topics[t]!;
    const consumers = ordered.filter((m) => m.subscription.has(topic));
    if (consumers.length === 0) continue;
    const perConsumer = Math.floor(numPartitions / consumers.length);
    const withExtra = numPartitions % consumers.length;
    const base = space.offsets[t]!;
    for (let i = 0; i < consumers.length; i++) {
      const start = perConsumer * i + Math.min(i, withExtra);
      const length = perConsumer + (i < withExtra ? 1 : 0);
      const target = ids[consumers[i]!.index]!;
      for (let p = start; p < start + length; p++) target.push(base + p);
    }
  }
  return toAssignment(space, ids);
}

export function rangeAssignor(options: RangeOptions = {}): Assignor {
  const ordering = options.ordering ?? 'java';
  return {
    name: 'range',
    rebalanceProtocols: ['EAGER'],
    assign: (input) => assignRange(input, { ordering }),
  };
}

/** Java's RangeAssignor ordering; use rangeAssignor({ ordering: 'librdkafka' }) for librdkafka's. */
export const range: Assignor = rangeAssignor();
