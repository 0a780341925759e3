// Classic-protocol members inside a consumer group (KIP-848's online migration, Kafka 3.8+): while a group
// converts, members that still run the classic protocol keep sending JoinGroup, SyncGroup, Heartbeat and
// LeaveGroup, and the coordinator answers them from the consumer group. A JoinGroup runs the same three steps
// as a ConsumerGroupHeartbeat (the subscription's ownedPartitions say what the member still owns) and is
// answered at once: the member is never the leader (it gets no member list) and its SyncGroup returns the
// partitions it may own now. A Heartbeat answers REBALANCE_IN_PROGRESS whenever the member has to rejoin to move
// on: the group epoch passed its epoch, it must revoke, or the partitions it waits for were released. The
// member's generation is its member epoch. Deadlines: its own session timeout, a rejoin within its rebalance
// timeout after REBALANCE_IN_PROGRESS (join timeout), a SyncGroup within it after the join (sync timeout).
// Facts: apache/kafka GroupMetadataManager (classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
// classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup, throwIfRebalanceInProgress,
// throwIfClassicProtocolIsNotSupported, scheduleConsumerGroupJoinTimeoutIfAbsent/SyncTimeout),
// ConsumerGroup.supportsClassicProtocols / waitingOnUnreleasedPartition.

import type { MetadataImage } from '../metadata/index.ts';
import {
  type ConsumerGroupHeartbeatTopicPartitions,
  type ErrorName,
  Errors,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  type SyncGroupRequest,
  type SyncGroupResponse,
  type TopicPartition,
} from '../protocol/index.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import { fail, HeartbeatError } from './consumer-group-heartbeat.ts';
import {
  type ConsumerGroupMember,
  newConsumerGroupMember,
  usesClassicProtocol,
} from './consumer-group-member.ts';
import { type PartitionAssignment, partitionsOf } from './server-assignors/index.ts';

const code = (name: ErrorName) => Errors[name].code;

/** Runs a handler; a HeartbeatError becomes its error code. */
function answer<T>(body: () => T, onError: (errorCode: number) => T): T {
  try {
    return body();
  } catch (e) {
    if (!(e instanceof HeartbeatError)) throw e;
    return onError(code(e.errorName));
  }
}

/** Partitions by topic name → by topic id (topics the image does not know are dropped). */
export function byTopicId(
  tps: readonly TopicPartition[],
  image: MetadataImage,
): ConsumerGroupHeartbeatTopicPartitions[] {
  const by = new Map<string, number[]>();
  for (const { topic, partition } of tps) {
    const id = image.topics[topic]?.topicId;
    if (id !== undefined) by.set(id, [...(by.get(id) ?? []), partition]);
  }
  return [...by].map(([topicId, partitions]) => ({ topicId, partitions }));
}

/** An assignment by topic id → the classic assignment by topic name. */
export function byTopicName(a: PartitionAssignment, image: MetadataImage): TopicPartition[] {
  return [...partitionsOf(a)].map(([t, partition]) => ({ topic: image.topicNamesById[t] ?? t, partition }));
}

/** ConsumerGroup.supportsClassicProtocols: some protocol every classic member (this one aside) supports. */
function supportsClassicProtocols(group: ConsumerGroup, memberId: string, req: JoinGroupRequest): boolean {
  if (req.protocolType !== 'consumer' || req.protocols.length === 0) return false;
  const classic = [...group.members.values()].filter(
    (m) => m.memberId !== memberId && usesClassicProtocol(m),
  );
  return req.protocols.some((p) =>
    classic.every((m) => m.classicMemberMetadata!.supportedProtocols.some((q) => q.name === p.name)),
  );
}

/** validateConsumerGroupMember + throwIfMemberDoesNotUseClassicProtocol. */
function classicMember(
  group: ConsumerGroup,
  memberId: string,
  instanceId: string | null,
): ConsumerGroupMember {
  let member: ConsumerGroupMember | undefined;
  if (instanceId === null) member = group.members.get(memberId);
  else {
    const id = group.staticMembers.get(instanceId);
    member = id === undefined ? undefined : group.members.get(id);
    if (member && member.memberId !== memberId)
      fail('FENCED_INSTANCE_ID', `Static member ${memberId} with instance id ${instanceId} was fenced.`);
  }
  if (!member)
    return fail('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${group.groupId}.`);
  if (!usesClassicProtocol(member))
    fail('UNKNOWN_MEMBER_ID', `Member ${member.memberId} does not use the classic protocol.`);
  return member;
}

function throwIfGenerationIdUnmatched(member: ConsumerGroupMember, generationId: number): void {
  if (member.memberEpoch !== generationId)
    fail(
      'ILLEGAL_GENERATION',
      `The request generation id ${generationId} is not equal to the member epoch ${member.memberEpoch} of member ${member.memberId}.`,
    );
}

/** The member must rejoin within its rebalance timeout, or it is fenced (scheduleConsumerGroupJoinTimeoutIfAbsent). */
function scheduleJoinTimeoutIfAbsent(group: ConsumerGroup, member: ConsumerGroupMember): void {
  if (group.timers.isScheduled('join', member.memberId)) return;
  group.scheduleMemberTimer('join', member.memberId, member.rebalanceTimeoutMs, (m) =>
    group.fenceMember(m, `it did not rejoin within ${m.rebalanceTimeoutMs}ms`),
  );
}

/** ConsumerGroup.waitingOnUnreleasedPartition: a partition of its target is still held by someone else. */
function waitingOnUnreleasedPartition(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
  if (member.state !== 'UNRELEASED_PARTITIONS') return false;
  const target = group.targetAssignment.get(member.memberId) ?? {};
  for (const [t, p] of partitionsOf(target))
    if (!member.assignedPartitions[t]?.includes(p) && group.currentPartitionEpoch(t, p) !== -1) return true;
  return false;
}

/** classicGroupJoinToConsumerGroup: answered at once with the member's epoch as the generation. */
export function classicJoinToConsumerGroup(group: ConsumerGroup, req: JoinGroupRequest): JoinGroupResponse {
  const failed = (errorCode: number, memberId = req.memberId): JoinGroupResponse => ({
    errorCode,
    generationId: -1,
    protocolName: null,
    leader: '',
    memberId,
    members: [],
  });
  return answer(() => {
    const unknown = req.memberId === '';
    const memberId = unknown ? group.host.newMemberId() : req.memberId;
    group.throwIfFull(memberId);
    if (!supportsClassicProtocols(group, memberId, req))
      fail('INCONSISTENT_GROUP_PROTOCOL', `Member ${memberId}'s protocols are not supported.`);
    // JoinGroup v4+: a dynamic member without an id gets one and joins again with it.
    if (unknown && req.groupInstanceId === null) return failed(code('MEMBER_ID_REQUIRED'), memberId);
    let member: ConsumerGroupMember;
    if (req.groupInstanceId === null) {
      const existing = group.members.get(memberId);
      if (!existing)
        group.emit('group.member-added', { memberId, clientId: req.clientId, protocol: 'classic' });
      member = existing ?? newConsumerGroupMember(memberId);
    } else
      member = group.staticMember(memberId, req.groupInstanceId, {
        joining: unknown,
        clientId: req.clientId,
        protocol: 'classic',
      });
    // Every protocol carries the same subscription: Kafka reads the first.
    const subscription = req.protocols[0]!.metadata;
    const image = group.host.image();
    const updated = group.reconcileMember(
      member,
      {
        ...member,
        instanceId: req.groupInstanceId ?? member.instanceId,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs,
        subscribedTopicNames: [...new Set(subscription.topics)].sort(),
        clientId: req.clientId,
        clientHost: req.clientHost,
        classicMemberMetadata: { sessionTimeoutMs: req.sessionTimeoutMs, supportedProtocols: req.protocols },
      },
      byTopicId(subscription.ownedPartitions, image),
    );
    group.timers.cancel('join', memberId);
    group.scheduleSessionTimeout(memberId);
    group.scheduleMemberTimer('sync', memberId, req.rebalanceTimeoutMs, (m) =>
      group.fenceMember(m, `it did not send SyncGroup within ${req.rebalanceTimeoutMs}ms`),
    );
    group.noteState();
    return {
      errorCode: 0,
      generationId: updated.memberEpoch,
      protocolName: req.protocols[0]!.name,
      leader: '',
      memberId,
      members: [],
    };
  }, failed);
}

/** classicGroupSyncToConsumerGroup: the partitions the member may own now. */
export function classicSyncToConsumerGroup(group: ConsumerGroup, req: SyncGroupRequest): SyncGroupResponse {
  return answer<SyncGroupResponse>(
    () => {
      const member = classicMember(group, req.memberId, req.groupInstanceId);
      throwIfGenerationIdUnmatched(member, req.generationId);
      const protocolName = member.classicMemberMetadata!.supportedProtocols[0]!.name;
      if (req.protocolName !== null && req.protocolName !== protocolName)
        fail('INCONSISTENT_GROUP_PROTOCOL', `The protocol name ${req.protocolName} is not ${protocolName}.`);
      // throwIfRebalanceInProgress: a member that is not revoking rejoins to catch up with a newer group epoch.
      if (group.groupEpoch > member.memberEpoch && member.state !== 'UNREVOKED_PARTITIONS') {
        scheduleJoinTimeoutIfAbsent(group, member);
        fail('REBALANCE_IN_PROGRESS', `A new rebalance is triggered in group ${group.groupId}.`);
      }
      group.timers.cancel('sync', member.memberId);
      group.scheduleSessionTimeout(member.memberId);
      return {
        errorCode: 0,
        protocolName,
        assignment: byTopicName(member.assignedPartitions, group.host.image()),
      };
    },
    (errorCode) => ({ errorCode, protocolName: null, assignment: [] }),
  );
}

/** classicGroupHeartbeatToConsumerGroup: REBALANCE_IN_PROGRESS whenever the member must rejoin to move on. */
export function classicHeartbeatToConsumerGroup(
  group: ConsumerGroup,
  req: HeartbeatRequest,
): HeartbeatResponse {
  return answer(
    () => {
      const member = classicMember(group, req.memberId, req.groupInstanceId);
      throwIfGenerationIdUnmatched(member, req.generationId);
      group.scheduleSessionTimeout(member.memberId);
      if (
        member.memberEpoch < group.groupEpoch ||
        member.state === 'UNREVOKED_PARTITIONS' ||
        (member.state === 'UNRELEASED_PARTITIONS' && !waitingOnUnreleasedPartition(group, member))
      ) {
        scheduleJoinTimeoutIfAbsent(group, member);
        return { errorCode: code('REBALANCE_IN_PROGRESS') };
      }
      return { errorCode: 0 };
    },
    (errorCode) => ({ errorCode }),
  );
}

/** classicGroupLeaveToConsumerGroup: each leaving member is fenced (an admin may name only the instance id). */
export function classicLeaveToConsumerGroup(
  group: ConsumerGroup,
  req: LeaveGroupRequest,
): LeaveGroupResponse {
  const members = req.members.map(({ memberId, groupInstanceId, reason }) =>
    answer(
      () => {
        const member =
          groupInstanceId !== null && memberId === ''
            ? group.members.get(group.staticMembers.get(groupInstanceId) ?? '')
            : classicMember(group, memberId, groupInstanceId);
        if (!member) return fail('UNKNOWN_MEMBER_ID', `Instance id ${groupInstanceId} is unknown.`);
        group.fenceMember(member, `member left the group: ${reason ?? 'no reason given'}`);
        return { memberId, errorCode: 0 };
      },
      (errorCode) => ({ memberId, errorCode }),
    ),
  );
  return { errorCode: 0, members };
}
