// One consumer group on its coordinator, consumer protocol (KIP-848, `group.protocol=consumer`). There is no join
// and sync phase: every member heartbeats (ConsumerGroupHeartbeat), and each heartbeat runs the coordinator's three
// steps (Kafka's GroupMetadataManager.consumerGroupHeartbeat):
//   1. update the member; a changed subscription, or a metadata image change of a subscribed topic (partitions
//      added, topic deleted or created), bumps the GROUP epoch;
//   2. when the group epoch is ahead of the assignment epoch, the server-side assignor computes a new target
//      assignment for everyone (target-assignment.ts);
//   3. the member reconciles towards its target (reconciliation.ts): revoke first, then get what others released.
// Members are fenced (removed, group epoch bumped) when their session times out
// (group.consumer.session.timeout.ms), when they sit on partitions to revoke longer than their rebalance timeout
// (max.poll.interval.ms), or when they leave. Heartbeats with a wrong member epoch get FENCED_MEMBER_EPOCH,
// unknown members UNKNOWN_MEMBER_ID; the client then gives up its partitions and rejoins with epoch 0.
// Static members (group.instance.id) that leave with epoch -2 keep their partitions until their session expires,
// and get them back, with no new epoch, when they rejoin in time.
// Members that speak the classic protocol (JoinGroup/SyncGroup/Heartbeat, during an online migration) are members
// like the others, with their classic session timeout (consumer-group-classic.ts answers their requests).
// The coordinator writes the group's records to __consumer_offsets after every change and answers once they are
// written (consumer-group-records.ts); a coordinator that takes over reloads the group (restore). The member timers
// are keyed as Kafka's coordinator timer keys them (member-timers.ts); DescribeGroups' view is
// consumer-group-describe.ts.
// Left out: regex subscriptions; rack-aware assignment.
// Facts: apache/kafka group-coordinator/.../GroupMetadataManager (consumerGroupHeartbeat, consumerGroupLeave,
// consumerGroupFenceMember, throwIfConsumerGroupMemberEpochIsInvalid, scheduleConsumerGroup*Timeout,
// onNewMetadataImage), modern/consumer/ConsumerGroup (state, currentPartitionEpoch), KIP-848.

import type { MetadataImage } from '../metadata/index.ts';
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type ConsumerGroupHeartbeatTopicPartitions,
  type DescribedGroup,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import type { ConsumerGroupConfig } from './consumer-group-config.ts';
import { describeAsClassicGroup } from './consumer-group-describe.ts';
import { fail, HeartbeatError, heartbeatErrorResponse } from './consumer-group-heartbeat.ts';
import {
  type ConsumerGroupMember,
  isReconciledTo,
  isSubset,
  newConsumerGroupMember,
  sameTopicNames,
  toTopicPartitions,
} from './consumer-group-member.ts';
import type { LoadedConsumerGroup } from './consumer-group-records.ts';
import { type MemberTimer, MemberTimers } from './member-timers.ts';
import { PartitionEpochs } from './partition-epochs.ts';
import { reconcile } from './reconciliation.ts';
import {
  assignmentEquals,
  EMPTY_ASSIGNMENT,
  type PartitionAssignment,
  partitionCount,
  serverAssignors,
} from './server-assignors/index.ts';
import {
  buildTargetAssignment,
  preferredServerAssignor,
  sameMetadata,
  subscriptionMetadataOf,
  type TopicMetadata,
} from './target-assignment.ts';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** What a consumer group needs from the coordinator that hosts it. */
export interface ConsumerGroupHost {
  readonly consumerConfig: ConsumerGroupConfig;
  now(): number;
  /** A timer that dies with the broker's incarnation. */
  schedule(delay: number, fn: () => void, label: string): Timer;
  emit(kind: string, fields: Record<string, unknown>): void;
  /** A new member id (a UUID, as Uuid.randomUuid). */
  newMemberId(): string;
  /** The coordinator broker's metadata image now. */
  image(): MetadataImage;
  /**
   * A member is about to be fenced or to leave: the coordinator converts the group to a classic one instead when
   * the classic members are all that remain (convertToClassicGroup). True when it did: the group is gone.
   */
  maybeDowngrade?(group: ConsumerGroup, leavingMemberId: string): boolean;
  /** A timer changed the group (a member fenced): its records are written. */
  persist?(group: ConsumerGroup): void;
}

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instanceId → memberId of static members. */
  readonly staticMembers = new Map<string, string>();
  readonly targetAssignment = new Map<string, PartitionAssignment>();
  /** Subscribed topic name → id and partition count, as of the last refresh. */
  subscriptionMetadata: Readonly<Record<string, TopicMetadata>> = {};
  /** `topicId:partition` → epoch of the member holding it (assigned or pending revocation). */
  private readonly partitionEpochs = new PartitionEpochs();
  /** A metadata image change touched a subscribed topic (ModernGroup.requestMetadataRefresh). */
  private metadataRefreshNeeded = true;
  /** The members' timers (the classic members' join and sync deadlines are set by consumer-group-classic.ts). */
  readonly timers: MemberTimers;
  private lastState: ConsumerGroupState = 'Empty';
  /** The server-side assignor of the last target assignment. */
  private assignorName: string | undefined;
  private dead = false;

  constructor(
    readonly groupId: string,
    readonly host: ConsumerGroupHost,
  ) {
    this.timers = new MemberTimers((delay, fn, label) => host.schedule(delay, fn, label));
  }

  /** The server-side assignor that computed the current target assignment (the default before the first). */
  get assignor(): string {
    return this.assignorName ?? this.host.consumerConfig['group.consumer.assignors'][0]!;
  }

  /** ConsumerGroup.maybeUpdateGroupState, computed. */
  get state(): ConsumerGroupState {
    if (this.dead) return 'Dead';
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  /** The epoch of the member holding a partition, -1 when free (ConsumerGroup.currentPartitionEpoch). */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.epochOf(topicId, partition);
  }

  /** Subscribed topic names of all members, each once. */
  subscribedTopicNames(): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) for (const t of m.subscribedTopicNames) out.add(t);
    return out;
  }

  /** The coordinator's image changed these topics (by name): the next heartbeat refreshes the metadata. */
  onTopicsChanged(topics: Iterable<string>): void {
    const subscribed = this.subscribedTopicNames();
    for (const t of topics)
      if (subscribed.has(t)) {
        this.metadataRefreshNeeded = true;
        this.emit('group.consumer.metadata-refresh-requested', { topic: t });
        return;
      }
  }

  emit(kind: string, fields: Record<string, unknown> = {}): void {
    this.host.emit(kind, { group: this.groupId, ...fields });
  }

  /** Emits group.state when the state changed since the last call. */
  noteState(): void {
    const now = this.state;
    if (now === this.lastState) return;
    this.emit('group.state', {
      from: this.lastState,
      to: now,
      groupEpoch: this.groupEpoch,
      assignmentEpoch: this.assignmentEpoch,
      members: this.members.size,
    });
    this.lastState = now;
  }

  // ---- ConsumerGroupHeartbeat --------------------------------------------------------------------------------

  /** Answers one heartbeat (the request is already validated). Errors come back as error responses. */
  heartbeat(req: ConsumerGroupHeartbeatRequest): ConsumerGroupHeartbeatResponse {
    try {
      const response =
        req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH
          ? this.leave(req)
          : this.join(req);
      this.noteState();
      return response;
    } catch (e) {
      if (!(e instanceof HeartbeatError)) throw e;
      this.noteState();
      return heartbeatErrorResponse(e.errorName, e.message);
    }
  }

  private join(req: ConsumerGroupHeartbeatRequest): ConsumerGroupHeartbeatResponse {
    const cfg = this.host.consumerConfig;
    const joining = req.memberEpoch === 0;
    this.throwIfFull(req.memberId);
    const memberId = req.memberId === '' ? this.host.newMemberId() : req.memberId;
    const member =
      req.instanceId === null
        ? this.dynamicMember(memberId, req, joining)
        : this.staticMember(memberId, req.instanceId, {
            joining,
            clientId: req.clientId,
            protocol: 'consumer',
            checkEpoch: (m) => this.checkMemberEpoch(m, req),
          });
    const updated = this.reconcileMember(
      member,
      {
        ...member,
        instanceId: req.instanceId ?? member.instanceId,
        rackId: req.rackId ?? member.rackId,
        rebalanceTimeoutMs:
          req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
        serverAssignor: req.serverAssignor ?? member.serverAssignor,
        subscribedTopicNames:
          req.subscribedTopicNames !== null
            ? [...new Set(req.subscribedTopicNames)].sort()
            : member.subscribedTopicNames,
        clientId: req.clientId,
        clientHost: req.clientHost,
        classicMemberMetadata: null,
      },
      req.topicPartitions,
    );
    this.scheduleSessionTimeout(memberId);

    const full =
      joining ||
      (req.rebalanceTimeoutMs !== -1 && req.subscribedTopicNames !== null && req.topicPartitions !== null);
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId,
      memberEpoch: updated.memberEpoch,
      heartbeatIntervalMs: cfg['group.consumer.heartbeat.interval.ms'],
      assignment:
        full || !assignmentEquals(member.assignedPartitions, updated.assignedPartitions)
          ? { topicPartitions: toTopicPartitions(updated.assignedPartitions) }
          : null,
    };
  }

  /** throwIfConsumerGroupIsFull: a member the group does not know yet is refused at group.consumer.max.size. */
  throwIfFull(memberId: string): void {
    const maxSize = this.host.consumerConfig['group.consumer.max.size'];
    if (this.members.size >= maxSize && (memberId === '' || !this.members.has(memberId)))
      fail(
        'GROUP_MAX_SIZE_REACHED',
        `The consumer group has reached its maximum capacity of ${maxSize} members.`,
      );
  }

  /**
   * The three steps for one member, whichever protocol it speaks: `updated` is `member` with what its request
   * said; `owned` what it says it owns (null: unchanged). Returns the member as it is now in the group.
   */
  reconcileMember(
    member: ConsumerGroupMember,
    updated: ConsumerGroupMember,
    owned: readonly ConsumerGroupHeartbeatTopicPartitions[] | null,
  ): ConsumerGroupMember {
    const memberId = updated.memberId;
    // 1. A changed subscription (or a refreshed topic) bumps the group epoch.
    let bump = !sameTopicNames(member.subscribedTopicNames, updated.subscribedTopicNames);
    let groupEpoch = this.groupEpoch;
    const replaced = this.replacedStaticMember(updated);
    const others = [...this.members.values()].filter(
      (m) => m.memberId !== memberId && m.memberId !== replaced,
    );
    const topicNames = new Set(updated.subscribedTopicNames);
    for (const m of others) for (const t of m.subscribedTopicNames) topicNames.add(t);
    const homogeneous = others.every((m) =>
      sameTopicNames(m.subscribedTopicNames, updated.subscribedTopicNames),
    );
    if (bump || this.metadataRefreshNeeded) {
      const metadata = subscriptionMetadataOf(topicNames, this.host.image());
      if (!sameMetadata(metadata, this.subscriptionMetadata)) {
        bump = true;
        this.subscriptionMetadata = metadata;
      }
      if (bump) {
        groupEpoch += 1;
        this.emit('group.consumer.epoch-bumped', {
          groupEpoch,
          reason:
            this.metadataRefreshNeeded &&
            sameTopicNames(member.subscribedTopicNames, updated.subscribedTopicNames)
              ? 'metadata'
              : `member ${memberId} subscription`,
        });
      }
      this.metadataRefreshNeeded = false;
      this.groupEpoch = groupEpoch;
    }
    if (replaced !== undefined) this.replaceStaticMember(replaced, updated);

    // 2. A new target assignment when the group epoch moved ahead of it.
    let target: PartitionAssignment;
    if (groupEpoch > this.assignmentEpoch) {
      const preferred =
        preferredServerAssignor(this.members.values(), member, updated) ??
        this.host.consumerConfig['group.consumer.assignors'][0]!;
      const next = buildTargetAssignment({
        assignor: serverAssignors[preferred]!,
        members: this.members,
        updated: new Map([[memberId, updated]]),
        staticMembers: this.staticMembers,
        targetAssignment: this.targetAssignment,
        subscriptionMetadata: this.subscriptionMetadata,
        homogeneous,
      });
      this.targetAssignment.clear();
      for (const [id, a] of next) this.targetAssignment.set(id, a);
      this.assignmentEpoch = groupEpoch;
      this.assignorName = preferred;
      this.emit('group.consumer.target-assignment', {
        assignmentEpoch: groupEpoch,
        assignor: preferred,
        members: next.size,
      });
      target = next.get(memberId) ?? EMPTY_ASSIGNMENT;
    } else {
      target = this.targetAssignment.get(memberId) ?? EMPTY_ASSIGNMENT;
    }

    // 3. Reconcile the member towards its target.
    if (!isReconciledTo(updated, this.assignmentEpoch)) {
      const next = reconcile(updated, {
        targetAssignmentEpoch: this.assignmentEpoch,
        targetAssignment: target,
        currentPartitionEpoch: (t, p) => this.currentPartitionEpoch(t, p),
        ownedTopicPartitions: owned,
      });
      if (next !== updated) {
        if (next.state === 'UNREVOKED_PARTITIONS') this.scheduleRebalanceTimeout(next);
        else this.timers.cancel('rebalance', memberId);
        updated = next;
      }
    }
    this.updateMember(updated);
    if (member.memberEpoch !== updated.memberEpoch || member.state !== updated.state)
      this.emit('group.consumer.member-epoch', {
        memberId,
        memberEpoch: updated.memberEpoch,
        state: updated.state,
        assigned: partitionCount(updated.assignedPartitions),
        revoking: partitionCount(updated.partitionsPendingRevocation),
      });
    return updated;
  }

  private dynamicMember(
    memberId: string,
    req: ConsumerGroupHeartbeatRequest,
    joining: boolean,
  ): ConsumerGroupMember {
    const existing = this.members.get(memberId);
    if (!existing) {
      if (!joining) fail('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${this.groupId}.`);
      this.emit('group.member-added', { memberId, clientId: req.clientId, protocol: 'consumer' });
      return newConsumerGroupMember(memberId);
    }
    this.checkMemberEpoch(existing, req);
    return existing;
  }

  /**
   * getOrMaybeSubscribeStaticConsumerGroupMember. A classic member joining without a member id takes over its
   * instance id whatever the former incarnation does; a consumer-protocol one only after it left (epoch -2).
   */
  staticMember(
    memberId: string,
    instanceId: string,
    how: {
      joining: boolean;
      clientId: string;
      protocol: 'consumer' | 'classic';
      checkEpoch?: (existing: ConsumerGroupMember) => void;
    },
  ): ConsumerGroupMember {
    const existingId = this.staticMembers.get(instanceId);
    const existing = existingId === undefined ? undefined : this.members.get(existingId);
    if (how.joining) {
      if (!existing) {
        this.emit('group.member-added', {
          memberId,
          clientId: how.clientId,
          instanceId,
          protocol: how.protocol,
        });
        return this.members.get(memberId) ?? newConsumerGroupMember(memberId);
      }
      if (how.protocol === 'consumer' && existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH)
        fail(
          'UNRELEASED_INSTANCE_ID',
          `Static member ${memberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
        );
      // The rejoining incarnation takes over what the former one held, at epoch 0.
      this.emit('group.consumer.static-member-rejoined', {
        memberId,
        instanceId,
        replaced: existing.memberId,
      });
      return { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
    }
    if (!existing) fail('UNKNOWN_MEMBER_ID', `Instance id ${instanceId} is unknown.`);
    if (existing!.memberId !== memberId)
      fail(
        'FENCED_INSTANCE_ID',
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing!.memberId}.`,
      );
    how.checkEpoch?.(existing!);
    return existing!;
  }

  /** throwIfConsumerGroupMemberEpochIsInvalid: only the current epoch, or the previous one after a lost response. */
  private checkMemberEpoch(member: ConsumerGroupMember, req: ConsumerGroupHeartbeatRequest): void {
    const received = req.memberEpoch;
    // A fenced member rejoins with epoch 0 under its old id; KAFKA-19233 lets it in whatever epoch it had.
    if (received === 0) return;
    if (received > member.memberEpoch)
      fail(
        'FENCED_MEMBER_EPOCH',
        `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    if (
      received < member.memberEpoch &&
      (received !== member.previousMemberEpoch || !isSubset(req.topicPartitions, member.assignedPartitions))
    )
      fail(
        'FENCED_MEMBER_EPOCH',
        `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
  }

  /** The former incarnation a rejoining static member replaces, if any. */
  private replacedStaticMember(updated: ConsumerGroupMember): string | undefined {
    if (updated.instanceId === null) return undefined;
    const previous = this.staticMembers.get(updated.instanceId);
    return previous !== undefined && previous !== updated.memberId ? previous : undefined;
  }

  private replaceStaticMember(previousId: string, updated: ConsumerGroupMember): void {
    const previous = this.members.get(previousId);
    const target = this.targetAssignment.get(previousId);
    if (previous) this.removeMemberState(previous);
    if (target) this.targetAssignment.set(updated.memberId, target);
    this.targetAssignment.delete(previousId);
  }

  // ---- leaving and fencing ------------------------------------------------------------------------------------

  private leave(req: ConsumerGroupHeartbeatRequest): ConsumerGroupHeartbeatResponse {
    const response = (memberEpoch: number): ConsumerGroupHeartbeatResponse => ({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    if (req.instanceId === null) {
      const member = this.members.get(req.memberId);
      if (!member)
        fail('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${this.groupId}.`);
      this.fenceMember(member!, 'the member left the group');
      return response(req.memberEpoch);
    }
    const id = this.staticMembers.get(req.instanceId);
    const member = id === undefined ? undefined : this.members.get(id);
    if (!member) fail('UNKNOWN_MEMBER_ID', `Instance id ${req.instanceId} is unknown.`);
    if (member!.memberId !== req.memberId)
      fail(
        'FENCED_INSTANCE_ID',
        `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member!.memberId}.`,
      );
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // Temporarily gone: its partitions stay assigned to it (nobody else gets them) until it rejoins or its
      // session expires (consumerGroupStaticMemberGroupLeave).
      this.updateMember({
        ...member!,
        memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
        partitionsPendingRevocation: EMPTY_ASSIGNMENT,
      });
      this.emit('group.consumer.static-member-left', {
        memberId: member!.memberId,
        instanceId: req.instanceId,
      });
      return response(LEAVE_GROUP_STATIC_MEMBER_EPOCH);
    }
    this.fenceMember(member!, 'the static member left the group');
    return response(req.memberEpoch);
  }

  /**
   * consumerGroupFenceMember: the member is removed and the group epoch bumped, unless the coordinator converts the
   * group to a classic one instead (the last consumer-protocol member leaves classic members behind).
   */
  fenceMember(member: ConsumerGroupMember, reason: string): void {
    if (this.members.get(member.memberId) !== member) return;
    if (this.host.maybeDowngrade?.(this, member.memberId)) return;
    this.removeMemberState(member);
    this.targetAssignment.delete(member.memberId);
    const metadata = subscriptionMetadataOf(this.subscribedTopicNames(), this.host.image());
    if (!sameMetadata(metadata, this.subscriptionMetadata)) this.subscriptionMetadata = metadata;
    this.groupEpoch += 1;
    this.emit('group.member-removed', { memberId: member.memberId, reason, groupEpoch: this.groupEpoch });
    this.noteState();
  }

  /** The member's session restarts: group.consumer.session.timeout.ms, or a classic member's own session timeout. */
  scheduleSessionTimeout(memberId: string): void {
    const classic = this.members.get(memberId)?.classicMemberMetadata;
    const timeout =
      classic?.sessionTimeoutMs ?? this.host.consumerConfig['group.consumer.session.timeout.ms'];
    this.scheduleMemberTimer('session', memberId, timeout, (m) => {
      this.emit('group.member-expired', { memberId, sessionTimeoutMs: timeout });
      this.fenceMember(m, 'the member session expired');
    });
  }

  /** A member that does not revoke within its rebalance timeout is fenced (scheduleConsumerGroupRebalanceTimeout). */
  private scheduleRebalanceTimeout(member: ConsumerGroupMember): void {
    const { memberId, memberEpoch, rebalanceTimeoutMs } = member;
    this.scheduleMemberTimer('rebalance', memberId, rebalanceTimeoutMs, (m) => {
      if (m.memberEpoch !== memberEpoch) return;
      this.fenceMember(m, `it failed to transition from epoch ${memberEpoch} within ${rebalanceTimeoutMs}ms`);
    });
  }

  /** Replaces the member's timer of this kind; `expired` runs if the member is still in the group then. */
  scheduleMemberTimer(
    kind: MemberTimer,
    memberId: string,
    delay: number,
    expired: (m: ConsumerGroupMember) => void,
  ): void {
    this.timers.set(
      kind,
      memberId,
      delay,
      () => {
        const m = this.members.get(memberId);
        if (!m) return;
        expired(m);
        this.host.persist?.(this);
      },
      kind === 'session' ? 'group.consumer.session-expiry' : `group.consumer.${kind}-timeout`,
    );
  }

  // ---- member bookkeeping -------------------------------------------------------------------------------------

  /** ConsumerGroup.updateMember: partition epochs follow the member's assignment. */
  updateMember(updated: ConsumerGroupMember): void {
    const old = this.members.get(updated.memberId);
    if (old) this.partitionEpochs.removeMember(old);
    this.members.set(updated.memberId, updated);
    this.partitionEpochs.addMember(updated);
    if (updated.instanceId !== null) this.staticMembers.set(updated.instanceId, updated.memberId);
  }

  private removeMemberState(member: ConsumerGroupMember): void {
    this.partitionEpochs.removeMember(member);
    this.members.delete(member.memberId);
    if (member.instanceId !== null && this.staticMembers.get(member.instanceId) === member.memberId)
      this.staticMembers.delete(member.instanceId);
    this.timers.cancelMember(member.memberId);
  }

  /**
   * The group rebuilt from its records (a coordinator took the partition over), or converted from a classic one
   * (ConsumerGroup.fromClassicGroup: every member Stable at the classic generation, its assignment its target).
   */
  restore(loaded: LoadedConsumerGroup): void {
    this.groupEpoch = loaded.groupEpoch;
    this.assignmentEpoch = loaded.assignmentEpoch;
    this.assignorName = loaded.assignor ?? undefined;
    this.subscriptionMetadata = loaded.subscriptionMetadata;
    for (const m of loaded.members.values()) this.updateMember(m);
    for (const [id, a] of loaded.targets) this.targetAssignment.set(id, a);
    for (const m of loaded.members.values()) {
      this.scheduleSessionTimeout(m.memberId);
      if (m.state === 'UNREVOKED_PARTITIONS') this.scheduleRebalanceTimeout(m);
    }
    this.lastState = this.state;
  }

  // ---- views and lifecycle ------------------------------------------------------------------------------------

  /** DescribeGroups' view of a consumer-protocol group: members with what they own now. */
  describe(): DescribedGroup {
    return describeAsClassicGroup(this, this.host.image());
  }

  /** The coordinator lost the group's partition (or converted it): timers stop, the state is dropped. */
  unload(): void {
    this.timers.cancelAll();
    this.dead = true;
  }
}
