// One member of a consumer-protocol group as its coordinator knows it (Kafka's modern/consumer/ConsumerGroupMember):
// an immutable value, replaced on every change. memberEpoch is the epoch of the assignment the member has been
// given; previousMemberEpoch lets a heartbeat whose response was lost be accepted once. `state` says where the
// member is in its reconciliation towards the group's target assignment (Kafka's modern/MemberState).
import type { ConsumerGroupHeartbeatTopicPartitions, JoinGroupProtocol } from '../protocol/index.ts';
import { EMPTY_ASSIGNMENT, type PartitionAssignment } from './server-assignors/index.ts';

/** What the coordinator keeps of a member that speaks the classic protocol inside a consumer group. */
export interface ClassicMemberMetadata {
  /** The session.timeout.ms of its JoinGroup: its session, instead of group.consumer.session.timeout.ms. */
  readonly sessionTimeoutMs: number;
  /** Its JoinGroup protocols (assignor names with their subscriptions), in its order of preference. */
  readonly supportedProtocols: readonly JoinGroupProtocol[];
}

/** STABLE: has everything it may have now; UNREVOKED_PARTITIONS: must give partitions up first; UNRELEASED_PARTITIONS: waits for others to give some up. */
export type ConsumerMemberState = 'STABLE' | 'UNREVOKED_PARTITIONS' | 'UNRELEASED_PARTITIONS';

export interface ConsumerGroupMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: ConsumerMemberState;
  /** max.poll.interval.ms of the member: how long it may take to revoke. */
  readonly rebalanceTimeoutMs: number;
  /** Sorted, without duplicates. */
  readonly subscribedTopicNames: readonly string[];
  /** group.remote.assignor; null when the member named none. */
  readonly serverAssignor: string | null;
  /** What the member owns or may own now (at memberEpoch). */
  readonly assignedPartitions: PartitionAssignment;
  /** What it must give up before it moves on. */
  readonly partitionsPendingRevocation: PartitionAssignment;
  /** Set while the member uses the classic protocol (JoinGroup/SyncGroup/Heartbeat), null otherwise. */
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
}

export function newConsumerGroupMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: 'STABLE',
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: [],
    serverAssignor: null,
    assignedPartitions: EMPTY_ASSIGNMENT,
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    classicMemberMetadata: null,
  };
}

/** ConsumerGroupMember.useClassicProtocol. */
export const usesClassicProtocol = (m: ConsumerGroupMember): boolean => m.classicMemberMetadata !== null;

/** ConsumerGroupMember.isReconciledTo. */
export function isReconciledTo(m: ConsumerGroupMember, targetAssignmentEpoch: number): boolean {
  return m.state === 'STABLE' && m.memberEpoch === targetAssignmentEpoch;
}

/** Builder.updateMemberEpoch: the previous epoch remembers the current one. */
export function withMemberEpoch(m: ConsumerGroupMember, epoch: number): ConsumerGroupMember {
  return { ...m, previousMemberEpoch: m.memberEpoch, memberEpoch: epoch };
}

export function sameTopicNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Whether every partition `owned` names is in `assigned` (GroupMetadataManager.isSubset). */
export function isSubset(
  owned: readonly ConsumerGroupHeartbeatTopicPartitions[] | null,
  assigned: PartitionAssignment,
): boolean {
  if (owned === null) return false;
  return owned.every((tp) => {
    const mine = assigned[tp.topicId];
    return tp.partitions.every((p) => mine?.includes(p) ?? false);
  });
}

export const toTopicPartitions = (a: PartitionAssignment): ConsumerGroupHeartbeatTopicPartitions[] =>
  Object.keys(a).map((topicId) => ({ topicId, partitions: [...a[topicId]!] }));
