// Incremental reconciliation of one member towards the group's target assignment (Kafka's
// modern/consumer/CurrentAssignmentBuilder), a pure function. A member first gives up what the target takes from
// it (UNREVOKED_PARTITIONS, at its current epoch); only when its heartbeat no longer lists those partitions does it
// move to the target epoch and get new partitions, and only those no other member still holds
// (UNRELEASED_PARTITIONS until they are released). So a partition is never owned by two members at once.
import type { ConsumerGroupHeartbeatTopicPartitions } from '../protocol/index.ts';
import { type ConsumerGroupMember, withMemberEpoch } from './consumer-group-member.ts';
import { assignmentOf, EMPTY_ASSIGNMENT, type PartitionAssignment } from './server-assignors/index.ts';

export interface ReconcileInput {
  targetAssignmentEpoch: number;
  /** The member's part of the target assignment. */
  targetAssignment: PartitionAssignment;
  /** The epoch of the member holding a partition now, -1 when nobody does. */
  currentPartitionEpoch(topicId: string, partition: number): number;
  /** What the member says it owns in this heartbeat; null when it did not say (unchanged). */
  ownedTopicPartitions: readonly ConsumerGroupHeartbeatTopicPartitions[] | null;
}

/** Whether the member still owns any partition of `pending` (not saying counts as still owning). */
export function ownsRevokedPartitions(
  owned: readonly ConsumerGroupHeartbeatTopicPartitions[] | null,
  pending: PartitionAssignment,
): boolean {
  if (owned === null) return true;
  for (const tp of owned) {
    const revoking = pending[tp.topicId];
    if (revoking && tp.partitions.some((p) => revoking.includes(p))) return true;
  }
  return false;
}

/** CurrentAssignmentBuilder.build: the member's next state, or the same object when it cannot move. */
export function reconcile(member: ConsumerGroupMember, input: ReconcileInput): ConsumerGroupMember {
  switch (member.state) {
    case 'STABLE':
      return member.memberEpoch !== input.targetAssignmentEpoch
        ? computeNextAssignment(member, member.memberEpoch, input)
        : member;
    case 'UNREVOKED_PARTITIONS':
      if (ownsRevokedPartitions(input.ownedTopicPartitions, member.partitionsPendingRevocation))
        return member;
      return computeNextAssignment(member, member.memberEpoch + 1, input);
    case 'UNRELEASED_PARTITIONS':
      return computeNextAssignment(member, member.memberEpoch, input);
  }
}

function computeNextAssignment(
  member: ConsumerGroupMember,
  memberEpoch: number,
  input: ReconcileInput,
): ConsumerGroupMember {
  const target = input.targetAssignment;
  const current = member.assignedPartitions;
  let hasUnreleased = false;
  const assigned = new Map<string, number[]>();
  const revoking = new Map<string, number[]>();
  const toAssign = new Map<string, number[]>();
  const topics = [...new Set([...Object.keys(target), ...Object.keys(current)])].sort();
  for (const t of topics) {
    const want = new Set(target[t] ?? []);
    const have = current[t] ?? [];
    const keep = have.filter((p) => want.has(p));
    const give = have.filter((p) => !want.has(p));
    const keepSet = new Set(keep);
    const get: number[] = [];
    for (const p of target[t] ?? []) {
      if (keepSet.has(p)) continue;
      if (input.currentPartitionEpoch(t, p) !== -1) hasUnreleased = true;
      else get.push(p);
    }
    if (keep.length > 0) assigned.set(t, keep);
    if (give.length > 0) revoking.set(t, give);
    if (get.length > 0) toAssign.set(t, get);
  }
  const pending = assignmentOf(revoking);
  if (revoking.size > 0 && ownsRevokedPartitions(input.ownedTopicPartitions, pending)) {
    return {
      ...withMemberEpoch(member, memberEpoch),
      state: 'UNREVOKED_PARTITIONS',
      assignedPartitions: assignmentOf(assigned),
      partitionsPendingRevocation: pending,
    };
  }
  for (const [t, ps] of toAssign) assigned.set(t, [...(assigned.get(t) ?? []), ...ps]);
  return {
    ...withMemberEpoch(member, input.targetAssignmentEpoch),
    state: hasUnreleased ? 'UNRELEASED_PARTITIONS' : 'STABLE',
    assignedPartitions: assignmentOf(assigned),
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
  };
}
