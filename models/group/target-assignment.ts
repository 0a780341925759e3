// The group's target assignment, recomputed when the group epoch moves past the assignment epoch (Kafka's
// modern/TargetAssignmentBuilder): every member's subscription (by topic id, existing topics only) and current
// target go to the server-side assignor. A static member that replaces its former incarnation starts from that
// incarnation's target, so its partitions wait for it.
import type { MetadataImage } from '../metadata/index.ts';
import type { ConsumerGroupMember } from './consumer-group-member.ts';
import {
  EMPTY_ASSIGNMENT,
  type PartitionAssignment,
  type ServerAssignor,
  type ServerAssignorMember,
} from './server-assignors/index.ts';

export interface TopicMetadata {
  readonly topicId: string;
  readonly numPartitions: number;
}

export interface TargetAssignmentInput {
  readonly assignor: ServerAssignor;
  /** The group's members before this change. */
  readonly members: ReadonlyMap<string, ConsumerGroupMember>;
  /** Members added or changed (a value) or removed (null) by this change. */
  readonly updated: ReadonlyMap<string, ConsumerGroupMember | null>;
  /** instanceId → memberId before this change. */
  readonly staticMembers: ReadonlyMap<string, string>;
  readonly targetAssignment: ReadonlyMap<string, PartitionAssignment>;
  /** Subscribed topic name → its id and partition count (topics that exist). */
  readonly subscriptionMetadata: Readonly<Record<string, TopicMetadata>>;
  readonly homogeneous: boolean;
}

export function buildTargetAssignment(input: TargetAssignmentInput): Map<string, PartitionAssignment> {
  const specOf = (m: ConsumerGroupMember, assignment: PartitionAssignment): ServerAssignorMember => ({
    memberId: m.memberId,
    instanceId: m.instanceId,
    subscribedTopicIds: m.subscribedTopicNames
      .map((name) => input.subscriptionMetadata[name]?.topicId)
      .filter((id): id is string => id !== undefined)
      .sort(),
    assignment,
  });
  const specs = new Map<string, ServerAssignorMember>();
  for (const [id, m] of input.members)
    specs.set(id, specOf(m, input.targetAssignment.get(id) ?? EMPTY_ASSIGNMENT));
  for (const [id, m] of input.updated) {
    if (m === null) {
      specs.delete(id);
      continue;
    }
    let assignment = input.targetAssignment.get(id) ?? EMPTY_ASSIGNMENT;
    if (m.instanceId !== null) {
      const previous = input.staticMembers.get(m.instanceId);
      if (previous !== undefined && previous !== id)
        assignment = input.targetAssignment.get(previous) ?? EMPTY_ASSIGNMENT;
    }
    specs.set(id, specOf(m, assignment));
  }
  const byId = new Map<string, number>();
  for (const meta of Object.values(input.subscriptionMetadata)) byId.set(meta.topicId, meta.numPartitions);
  const members = [...specs.values()].sort((a, b) =>
    a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0,
  );
  const result = input.assignor.assign({ members, homogeneous: input.homogeneous }, (t) => byId.get(t) ?? -1);
  const out = new Map<string, PartitionAssignment>();
  for (const m of members) out.set(m.memberId, result[m.memberId] ?? EMPTY_ASSIGNMENT);
  return out;
}

/** ConsumerGroup.computeSubscriptionMetadata: the subscribed topics that exist, with id and partition count. */
export function subscriptionMetadataOf(
  topicNames: Iterable<string>,
  image: MetadataImage,
): Record<string, TopicMetadata> {
  const out: Record<string, TopicMetadata> = {};
  for (const name of [...topicNames].sort()) {
    const topic = image.topics[name];
    if (topic) out[name] = { topicId: topic.topicId, numPartitions: topic.partitions.length };
  }
  return out;
}

export function sameMetadata(
  a: Readonly<Record<string, TopicMetadata>>,
  b: Readonly<Record<string, TopicMetadata>>,
): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => b[k]?.topicId === a[k]!.topicId && b[k]?.numPartitions === a[k]!.numPartitions);
}

/** ConsumerGroup.computePreferredServerAssignor: the assignor most members name (ties: by name), `old` replaced by `updated`. */
export function preferredServerAssignor(
  members: Iterable<ConsumerGroupMember>,
  old: ConsumerGroupMember,
  updated: ConsumerGroupMember,
): string | undefined {
  const counts = new Map<string, number>();
  for (const m of members) {
    if (m.memberId === old.memberId || m.serverAssignor === null) continue;
    counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
  }
  if (updated.serverAssignor !== null)
    counts.set(updated.serverAssignor, (counts.get(updated.serverAssignor) ?? 0) + 1);
  let best: string | undefined;
  for (const [name, n] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    if (best === undefined || n > counts.get(best)!) best = name;
  return best;
}
