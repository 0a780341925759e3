import { compareUtf16 } from './member-order.ts';
import type { AssignInput, TopicPartition } from './types.ts';

// The validated, indexed form of an AssignInput that every built-in assignor works on. Partitions are
// numbered densely in (topic, partition) order, topics sorted as Java sorts Strings, so sorting partition
// ids sorts by topic then partition, and members are listed in member-id order so that nothing depends
// on the order of the input.

export const NO_GENERATION = -1; // AbstractStickyAssignor.DEFAULT_GENERATION

export interface SpaceMember {
  /** Position in member-id order. */
  readonly index: number;
  readonly memberId: string;
  readonly groupInstanceId: string | undefined;
  /** The subscription as given (deduplicated), existing topics or not. */
  readonly subscription: ReadonlySet<string>;
  /** Indices of subscribed topics that exist, ascending. */
  readonly topicIndices: readonly number[];
  readonly ownedPartitions: readonly TopicPartition[];
  readonly generation: number;
}

export interface AssignmentSpace {
  /** All topics of partitionsPerTopic, sorted. */
  readonly topics: readonly string[];
  readonly topicIndex: ReadonlyMap<string, number>;
  readonly partitionCounts: readonly number[];
  /** offsets[t] is the id of partition 0 of topic t. */
  readonly offsets: readonly number[];
  readonly totalPartitions: number;
  readonly members: readonly SpaceMember[];
}

const MAX_PARTITIONS = 0x7fffffff; // Java int

export function buildSpace(input: AssignInput): AssignmentSpace {
  if (input === null || typeof input !== 'object') throw new Error('assign input must be an object');
  const { partitionsPerTopic, members } = input;
  if (partitionsPerTopic === null || typeof partitionsPerTopic !== 'object') {
    throw new Error('partitionsPerTopic must be an object of topic -> partition count');
  }
  if (!Array.isArray(members)) throw new Error('members must be an array');

  const topics = Object.keys(partitionsPerTopic).sort(compareUtf16);
  const topicIndex = new Map<string, number>();
  const partitionCounts: number[] = [];
  const offsets: number[] = [];
  let totalPartitions = 0;
  for (const topic of topics) {
    const count = partitionsPerTopic[topic];
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_PARTITIONS) {
      throw new Error(
        `partition count of topic '${topic}' must be a non-negative integer, got ${String(count)}`,
      );
    }
    topicIndex.set(topic, partitionCounts.length);
    offsets.push(totalPartitions);
    partitionCounts.push(count);
    totalPartitions += count;
  }

  const seen = new Set<string>();
  for (const member of members) {
    if (member === null || typeof member !== 'object' || typeof member.memberId !== 'string') {
      throw new Error('every member needs a string memberId');
    }
    if (seen.has(member.memberId)) throw new Error(`duplicate memberId '${member.memberId}'`);
    seen.add(member.memberId);
    if (!Array.isArray(member.topics) || member.topics.some((t) => typeof t !== 'string')) {
      throw new Error(`topics of member '${member.memberId}' must be an array of strings`);
    }
    if (member.generation !== undefined && !Number.isInteger(member.generation)) {
      throw new Error(
        `generation of member '${member.memberId}' must be an integer, got ${member.generation}`,
      );
    }
    if (member.groupInstanceId != null && typeof member.groupInstanceId !== 'string') {
      throw new Error(`groupInstanceId of member '${member.memberId}' must be a string`);
    }
  }

  const sorted = [...members].sort((a, b) => compareUtf16(a.memberId, b.memberId));
  const spaceMembers: SpaceMember[] = sorted.map((m, index) => {
    const subscription = new Set(m.topics);
    const topicIndices: number[] = [];
    for (const topic of subscription) {
      const t = topicIndex.get(topic);
      if (t !== undefined) topicIndices.push(t);
    }
    topicIndices.sort((a, b) => a - b);
    return {
      index,
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId ?? undefined,
      subscription,
      topicIndices,
      ownedPartitions: Array.isArray(m.ownedPartitions) ? m.ownedPartitions : [],
      generation: m.generation ?? NO_GENERATION,
    };
  });

  return { topics, topicIndex, partitionCounts, offsets, totalPartitions, members: spaceMembers };
}

/** The id of a claimed partition, or -1 when its topic or partition does not exist. */
export function partitionId(space: AssignmentSpace, tp: TopicPartition): number {
  if (tp === null || typeof tp !== 'object') return -1;
  const t = space.topicIndex.get(tp.topic);
  if (t === undefined) return -1;
  const p = tp.partition;
  if (!Number.isInteger(p) || p < 0 || p >= space.partitionCounts[t]!) return -1;
  return space.offsets[t]! + p;
}

/** Maps each partition id to its topic index. */
export function topicOfIds(space: AssignmentSpace): Int32Array {
  const topicOf = new Int32Array(space.totalPartitions);
  for (let t = 0; t < space.topics.length; t++) {
    const start = space.offsets[t]!;
    topicOf.fill(t, start, start + space.partitionCounts[t]!);
  }
  return topicOf;
}

/**
 * Turns per-member partition ids (indexed like space.members) into the public result: every member is a
 * key, in member-id order, with its partitions sorted by topic then partition.
 */
export function toAssignment(
  space: AssignmentSpace,
  idsPerMember: readonly (readonly number[])[],
): Record<string, TopicPartition[]> {
  const topicOf = topicOfIds(space);
  const result: Record<string, TopicPartition[]> = {};
  for (const member of space.members) {
    const ids = Int32Array.from(idsPerMember[member.index] ?? []).sort();
    const list: TopicPartition[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const t = topicOf[id]!;
      list[i] = { topic: space.topics[t]!, partition: id - space.offsets[t]! };
    }
    // defineProperty keeps a member id such as '__proto__' an ordinary own key.
    Object.defineProperty(result, member.memberId, {
      value: list,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}
