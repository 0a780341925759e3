// A consumer-protocol group's records in __consumer_offsets (KIP-848), so that a coordinator that takes the
// partition over reloads the group with its epochs, members, target and current assignments, and members keep
// heartbeating at their epoch instead of being fenced. Kafka writes one record per changed part, keyed so that
// compaction keeps the latest: ConsumerGroupMetadata (group epoch), ConsumerGroupPartitionMetadata (the subscribed
// topics' metadata), ConsumerGroupMemberMetadata (a member's subscription, timeouts, client), ConsumerGroupTarget-
// AssignmentMetadata (assignment epoch), ConsumerGroupTargetAssignmentMember (a member's target),
// ConsumerGroupCurrentMemberAssignment (a member's epochs, state, assigned and revoking partitions); a removed
// member or group is written as tombstones (null values). kafkasim computes the group's record set after every
// change and writes what differs from what it wrote last (the same records Kafka's handlers add one by one), as
// JSON strings like the classic group's records (offsets-records.ts).
// Facts: apache/kafka GroupCoordinatorRecordHelpers (newConsumerGroup*Record / *Tombstone), GroupMetadataManager
// (replay of the consumer group records, onLoaded scheduling session and rebalance timeouts).
import type { RecordData } from '../storage/index.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import type { ConsumerGroupMember } from './consumer-group-member.ts';
import type { PartitionAssignment } from './server-assignors/index.ts';
import type { TopicMetadata } from './target-assignment.ts';

const GROUP = 'ConsumerGroupMetadata';
const PARTITIONS = 'ConsumerGroupPartitionMetadata';
const MEMBER = 'ConsumerGroupMemberMetadata';
const TARGET_EPOCH = 'ConsumerGroupTargetAssignmentMetadata';
const TARGET = 'ConsumerGroupTargetAssignmentMember';
const CURRENT = 'ConsumerGroupCurrentMemberAssignment';
const TAGS: ReadonlySet<string> = new Set([GROUP, PARTITIONS, MEMBER, TARGET_EPOCH, TARGET, CURRENT]);

/** A consumer group as its records say, before it is rebuilt. */
export interface LoadedConsumerGroup {
  groupEpoch: number;
  assignmentEpoch: number;
  assignor: string | null;
  subscriptionMetadata: Record<string, TopicMetadata>;
  /** memberId → the member (from its metadata and current assignment records). */
  members: Map<string, ConsumerGroupMember>;
  targets: Map<string, PartitionAssignment>;
}

type MemberMetadata = Pick<
  ConsumerGroupMember,
  | 'instanceId'
  | 'rackId'
  | 'clientId'
  | 'clientHost'
  | 'rebalanceTimeoutMs'
  | 'subscribedTopicNames'
  | 'serverAssignor'
  | 'classicMemberMetadata'
>;
type CurrentAssignment = Pick<
  ConsumerGroupMember,
  'memberEpoch' | 'previousMemberEpoch' | 'state' | 'assignedPartitions' | 'partitionsPendingRevocation'
>;

const key = (tag: string, groupId: string, memberId?: string) =>
  JSON.stringify(memberId === undefined ? [tag, groupId] : [tag, groupId, memberId]);

/** The group's records now: record key → JSON value. */
export function consumerGroupRecordSet(group: ConsumerGroup): Map<string, string> {
  const out = new Map<string, string>();
  const id = group.groupId;
  out.set(key(GROUP, id), JSON.stringify({ epoch: group.groupEpoch }));
  out.set(key(PARTITIONS, id), JSON.stringify(group.subscriptionMetadata));
  out.set(
    key(TARGET_EPOCH, id),
    JSON.stringify({ assignmentEpoch: group.assignmentEpoch, assignor: group.assignor }),
  );
  for (const m of group.members.values()) {
    const metadata: MemberMetadata = {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      subscribedTopicNames: m.subscribedTopicNames,
      serverAssignor: m.serverAssignor,
      classicMemberMetadata: m.classicMemberMetadata,
    };
    const current: CurrentAssignment = {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assignedPartitions: m.assignedPartitions,
      partitionsPendingRevocation: m.partitionsPendingRevocation,
    };
    out.set(key(MEMBER, id, m.memberId), JSON.stringify(metadata));
    out.set(key(CURRENT, id, m.memberId), JSON.stringify(current));
  }
  for (const [memberId, a] of group.targetAssignment) out.set(key(TARGET, id, memberId), JSON.stringify(a));
  return out;
}

/**
 * What to write to go from the records written before to the records now: changed or new values, and
 * tombstones for keys that are gone. Members' tombstones come before the group's (Kafka deletes a group last).
 */
export function recordsBetween(
  before: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): RecordData[] {
  const out: RecordData[] = [];
  for (const [k, v] of now) if (before.get(k) !== v) out.push({ key: k, value: v });
  const gone = [...before.keys()].filter((k) => !now.has(k));
  const memberLevel = (k: string) => (JSON.parse(k) as string[]).length === 3;
  for (const k of [...gone.filter(memberLevel), ...gone.filter((k) => !memberLevel(k))])
    out.push({ key: k, value: null });
  return out;
}

/** Whether a parsed record key ([tag, groupId, memberId?]) is one of a consumer group's. */
export function consumerGroupKey(k: readonly string[]): boolean {
  return TAGS.has(k[0]!);
}

/** Replays one of the group's records: the latest value of a key wins, a tombstone deletes it. */
export function replayConsumerGroupRecord(
  records: Map<string, string>,
  rawKey: string,
  value: string | null,
): void {
  if (value === null) records.delete(rawKey);
  else records.set(rawKey, value);
}

/** The group its surviving records describe, or undefined when its group record is gone. */
export function consumerGroupOf(records: ReadonlyMap<string, string>): LoadedConsumerGroup | undefined {
  let group: LoadedConsumerGroup | undefined;
  const metadata = new Map<string, MemberMetadata>();
  const current = new Map<string, CurrentAssignment>();
  const targets = new Map<string, PartitionAssignment>();
  let partitions: Record<string, TopicMetadata> = {};
  let target = { assignmentEpoch: 0, assignor: null as string | null };
  for (const [rawKey, value] of records) {
    const [tag, , memberId] = JSON.parse(rawKey) as string[];
    const v = JSON.parse(value);
    if (tag === GROUP)
      group = {
        groupEpoch: v.epoch,
        assignmentEpoch: 0,
        assignor: null,
        subscriptionMetadata: {},
        members: new Map(),
        targets,
      };
    else if (tag === PARTITIONS) partitions = v;
    else if (tag === TARGET_EPOCH) target = v;
    else if (tag === MEMBER) metadata.set(memberId!, v);
    else if (tag === CURRENT) current.set(memberId!, v);
    else if (tag === TARGET) targets.set(memberId!, v);
  }
  if (!group) return undefined;
  group.assignmentEpoch = target.assignmentEpoch;
  group.assignor = target.assignor;
  group.subscriptionMetadata = partitions;
  for (const [memberId, m] of metadata) {
    const c = current.get(memberId);
    if (c) group.members.set(memberId, { memberId, ...m, ...c });
  }
  return group;
}

/**
 * The records to write for the group now (`gone`: it was deleted or converted, all tombstones), and `written`
 * updated to what they leave in the log.
 */
export function recordsToWrite(
  written: Map<string, Map<string, string>>,
  group: ConsumerGroup,
  gone: boolean,
): RecordData[] {
  const before = written.get(group.groupId) ?? new Map<string, string>();
  const now = gone ? new Map<string, string>() : consumerGroupRecordSet(group);
  if (gone) written.delete(group.groupId);
  else written.set(group.groupId, now);
  return recordsBetween(before, now);
}
