// A member's side of the consumer group protocol (KIP-848, group.protocol=consumer): Java's AsyncKafkaConsumer
// (ConsumerMembershipManager with AbstractMembershipManager, ConsumerHeartbeatRequestManager) and librdkafka's
// KIP-848 mode (rd_kafka_cgrp_consumer_*). There is no join/sync: the member heartbeats ConsumerGroupHeartbeat,
// at the interval the coordinator gives (group.consumer.heartbeat.interval.ms) and at once when it joins, has
// finished a reconciliation (the acknowledgement) or leaves. The coordinator computes the assignment; the member
// reconciles towards what the coordinator last sent:
//   commit (enable.auto.commit: Java commits every consumed position, librdkafka those of the partitions it gives
//   up) -> onPartitionsRevoked(revoked) -> drop them -> take the added ones -> onPartitionsAssigned(added) ->
//   acknowledge with a heartbeat that lists what it owns now.
// The callbacks run on the application thread, in poll, when the application has a rebalance listener (Java
// enqueues them for poll(); librdkafka serves rebalance_cb from poll); without one the whole reconciliation runs
// in the background (Java's background thread, librdkafka's main thread), so a member busy processing still
// releases partitions on time. FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID: onPartitionsLost, then rejoin with
// epoch 0 under the same member id. A member whose assignment names a topic id its metadata does not know asks for
// metadata and reconciles the part it can resolve. Heartbeat fields the coordinator already has are sent as null
// (Java's HeartbeatState "sent fields"); after an error the next heartbeat is full.
// Poll timeout (max.poll.interval.ms): the member leaves (epoch -1, Java's transitionToSendingLeaveGroup) and
// rejoins when the application polls again. close(): commit, revoke, leave (-1, or -2 for a static member).
// Left out: regex subscriptions, client.rack, the heartbeat's exponential backoff beyond retry.backoff.ms.
// Facts: apache/kafka clients/.../consumer/internals/ (AbstractMembershipManager.maybeReconcile, revokeAndAssign,
// transitionToFenced; ConsumerMembershipManager.signalReconciliationStarted -> maybeAutoCommitSyncBeforeRevocation;
// ConsumerHeartbeatRequestManager), confluentinc/librdkafka src/rdkafka_cgrp.c, KIP-848.

import type { MemberEvent, MemberStateName } from '../group/index.ts';
import {
  brokerNodeId,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type ConsumerGroupHeartbeatTopicPartitions,
  type ErrorName,
  errorByCode,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import type { ClassicMembershipHost, MemberAssignmentEvent } from './classic-membership.ts';
import type { TopicPartitionRef } from './topic-partition-key.ts';

/** Java's MemberState for the consumer protocol (librdkafka's join states map onto the same steps). */
export type ConsumerProtocolMemberState =
  | 'UNSUBSCRIBED'
  | 'JOINING'
  | 'RECONCILING'
  | 'ACKNOWLEDGING'
  | 'STABLE'
  | 'FENCED'
  | 'PREPARE_LEAVING'
  | 'LEAVING'
  | 'STALE'
  | 'FATAL'
  | 'CLOSED';

/**
 * What the membership needs from its member: what the classic membership needs (the node, the coordinator, the
 * application thread, the partitions) less the client-side assignors, plus the few things only this one asks.
 */
export interface ConsumerMembershipHost extends Omit<ClassicMembershipHost, 'assignors' | 'commit'> {
  /** Whether the application registered a rebalance listener (callbacks then need its thread). */
  hasListeners(): boolean;
  /** Commits the consumed positions of these partitions (all owned when omitted); `cb` gets the error code. */
  commitPositions(
    partitions: readonly TopicPartitionRef[] | undefined,
    cb: (errorCode: number) => void,
  ): void;
  /** Asks for metadata now (an assigned topic id is unknown). */
  refreshMetadata(): void;
}

const FATAL: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'GROUP_AUTHORIZATION_FAILED',
  'INVALID_REQUEST',
  'UNSUPPORTED_ASSIGNOR',
  'UNRELEASED_INSTANCE_ID',
  'GROUP_MAX_SIZE_REACHED',
  'GROUP_ID_NOT_FOUND',
  'UNSUPPORTED_VERSION',
]);

const keyOf = (tp: TopicPartitionRef) => `${tp.topic}-${tp.partition}`;
const byTopicPartition = (a: TopicPartitionRef, b: TopicPartitionRef) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;

export class ConsumerMembership {
  memberId = '';
  memberEpoch = 0;
  /** Java's MemberState name (the classic names are `state`). */
  memberState: ConsumerProtocolMemberState = 'UNSUBSCRIBED';
  fatalError: ErrorName | undefined;
  /** The heartbeat interval the coordinator gave (0 until the first answer). */
  heartbeatIntervalMs = 0;
  /** Every completed reconciliation, in order (generationId: the member epoch it came with). */
  readonly assignments: MemberAssignmentEvent[] = [];
  /** The last assignment the coordinator sent, by topic id; undefined before the first. */
  private target: ConsumerGroupHeartbeatTopicPartitions[] | undefined;
  private targetEpoch = 0;
  private reconciling = false;
  /** A reconciliation waits for the application thread (poll) to run the callbacks. */
  private waitingForThread: (() => void) | undefined;
  private inFlight = false;
  private beatTimer: Timer | undefined;
  /** What the coordinator has of this member, so unchanged fields go as null (HeartbeatState). */
  private sent: { full: boolean; owned: string | undefined } = { full: true, owned: undefined };
  private rejoinOnPoll = false;
  private waitingForCoordinator = false;

  constructor(private readonly host: ConsumerMembershipHost) {}

  /** A restart: a new member, no id, nothing owned. */
  reset(): void {
    this.memberId = '';
    this.memberEpoch = 0;
    this.memberState = 'UNSUBSCRIBED';
    this.target = undefined;
    this.targetEpoch = 0;
    this.reconciling = false;
    this.waitingForThread = undefined;
    this.inFlight = false;
    this.beatTimer = undefined;
    this.sent = { full: true, owned: undefined };
    this.rejoinOnPoll = false;
    this.waitingForCoordinator = false;
    this.heartbeatIntervalMs = 0;
  }

  /** Starts unsubscribed; the join goes once the coordinator is known (maybeRejoin). */
  start(): void {
    this.memberState = 'UNSUBSCRIBED';
  }

  /** The classic member's state names, for the parts of the consumer both protocols share. */
  get state(): MemberStateName {
    switch (this.memberState) {
      case 'UNSUBSCRIBED':
      case 'FENCED':
      case 'STALE':
      case 'FATAL':
        return 'Unjoined';
      case 'JOINING':
        return 'Joining';
      case 'PREPARE_LEAVING':
      case 'LEAVING':
        return 'Preparing';
      case 'CLOSED':
        return 'Closed';
      default:
        return 'Stable';
    }
  }

  /** No leader, no client-side assignor: the coordinator assigns, incrementally. */
  readonly isLeader = false;
  readonly leaderId = '';
  readonly rebalanceProtocol = 'COOPERATIVE' as const;

  /** The server-side assignor asked for (null: the coordinator's default). */
  get protocolName(): string | null {
    return this.host.groupConfig['group.remote.assignor'];
  }

  /** The classic member's events: only CLOSE means something here. */
  send(event: MemberEvent): void {
    if (event.type === 'CLOSE') this.close();
  }

  /** The member epoch while in the group, else -1 (what commits and the views read as the generation). */
  get generationId(): number {
    return this.memberEpoch > 0 ? this.memberEpoch : -1;
  }

  private trace(kind: string, fields: Record<string, unknown> = {}): void {
    this.host.trace(kind, { memberEpoch: this.memberEpoch, state: this.memberState, ...fields });
  }

  private transition(to: ConsumerProtocolMemberState): void {
    if (this.memberState === to || this.memberState === 'CLOSED') return;
    this.trace('member.state', { from: this.memberState, to });
    this.memberState = to;
  }

  // ---- joining and heartbeats ---------------------------------------------------------------------------------

  /** Joins (epoch 0) once the coordinator is known. */
  private join(): void {
    const host = this.host;
    if (!host.up || host.closing || this.fatalError) return;
    if (this.memberState !== 'UNSUBSCRIBED' && this.memberState !== 'FENCED' && this.memberState !== 'STALE')
      return;
    this.memberEpoch = 0;
    this.sent = { full: true, owned: undefined };
    this.transition('JOINING');
    this.beatNow();
  }

  /** Heartbeat at once (a join, an acknowledgement, a leave): replaces the interval timer. */
  private beatNow(): void {
    this.beatTimer?.cancel();
    this.beatTimer = this.host.schedule(0, () => this.heartbeat(), 'member.consumer-heartbeat');
  }

  private beatAfter(ms: number): void {
    this.beatTimer?.cancel();
    this.beatTimer = this.host.schedule(ms, () => this.heartbeat(), 'member.consumer-heartbeat');
  }

  /** Topic-id form of what the member owns now (sorted), and its key for "changed since last sent". */
  private ownedByTopicId(): { list: ConsumerGroupHeartbeatTopicPartitions[]; key: string } {
    const by = new Map<string, number[]>();
    for (const tp of this.host.ownedPartitions()) {
      const id = this.host.metadata.topicId(tp.topic);
      if (id === undefined) continue;
      const list = by.get(id) ?? [];
      list.push(tp.partition);
      by.set(id, list);
    }
    const list = [...by.keys()].sort().map((topicId) => ({ topicId, partitions: by.get(topicId)! }));
    return { list, key: JSON.stringify(list) };
  }

  private heartbeat(): void {
    const host = this.host;
    this.beatTimer = undefined;
    const state = this.memberState;
    // On close the leave goes even with a heartbeat in flight (AbstractHeartbeatRequestManager.pollOnClose): the
    // client stops right after, and would otherwise never say it left.
    if (!host.up || (this.inFlight && !(state === 'LEAVING' && host.closing))) return;
    if (
      state === 'UNSUBSCRIBED' ||
      state === 'FENCED' ||
      state === 'STALE' ||
      state === 'FATAL' ||
      state === 'CLOSED'
    )
      return;
    if (state === 'PREPARE_LEAVING') return; // the leave heartbeat goes once the callbacks ran
    if (host.coordinatorId === undefined) {
      // The heartbeat goes when the lookup finds the coordinator (maybeRejoin).
      this.waitingForCoordinator = true;
      return host.findCoordinator();
    }
    const leaving = state === 'LEAVING';
    const joining = this.memberEpoch === 0;
    const full = joining || this.sent.full;
    const owned = this.ownedByTopicId();
    const staticId = host.groupConfig['group.instance.id'];
    const req: ConsumerGroupHeartbeatRequest = {
      type: 'ConsumerGroupHeartbeat',
      groupId: host.groupId,
      memberId: this.memberId,
      memberEpoch: leaving
        ? staticId !== null
          ? LEAVE_GROUP_STATIC_MEMBER_EPOCH
          : LEAVE_GROUP_MEMBER_EPOCH
        : this.memberEpoch,
      instanceId: full || leaving ? staticId : null,
      rackId: null,
      rebalanceTimeoutMs: full ? host.groupConfig['max.poll.interval.ms'] : -1,
      subscribedTopicNames: full ? [...host.topics].sort() : null,
      subscribedTopicRegex: null,
      serverAssignor: full ? host.groupConfig['group.remote.assignor'] : null,
      topicPartitions: joining ? [] : full || owned.key !== this.sent.owned ? owned.list : null,
      clientId: host.config['client.id'],
      clientHost: host.clientHost,
    };
    this.inFlight = true;
    const epochSent = this.memberEpoch;
    host.request<ConsumerGroupHeartbeatResponse>(
      brokerNodeId(host.coordinatorId),
      req,
      (o) => {
        this.inFlight = false;
        if (!o.ok) {
          this.sent.full = true;
          if (this.memberState === 'LEAVING') return leaving ? this.leftGroup() : this.beatNow();
          this.waitingForCoordinator = true;
          host.markCoordinatorUnknown(`ConsumerGroupHeartbeat ${o.error}`);
          return;
        }
        this.onResponse(o.response, req, epochSent, owned.key);
      },
      host.config['request.timeout.ms'],
    );
  }

  private onResponse(
    r: ConsumerGroupHeartbeatResponse,
    req: ConsumerGroupHeartbeatRequest,
    epochSent: number,
    ownedKey: string,
  ): void {
    const host = this.host;
    const name = errorByCode(r.errorCode).name;
    // The leave was asked for while another heartbeat was in flight: it goes now.
    if (this.memberState === 'LEAVING') return req.memberEpoch < 0 ? this.leftGroup() : this.beatNow();
    if (name !== 'NONE') {
      host.countError(r.errorCode);
      this.sent.full = true;
      this.trace('member.heartbeat-error', { error: name });
      if (name === 'NOT_COORDINATOR' || name === 'COORDINATOR_NOT_AVAILABLE') {
        this.waitingForCoordinator = true;
        host.markCoordinatorUnknown(`ConsumerGroupHeartbeat ${name}`);
        return;
      }
      if (name === 'FENCED_MEMBER_EPOCH' || name === 'UNKNOWN_MEMBER_ID') return this.fenced(name);
      if (FATAL.has(name)) {
        this.fatalError = name;
        this.transition('FATAL');
        this.trace('member.fatal', { error: name, message: r.errorMessage });
        return;
      }
      return this.beatAfter(host.config['retry.backoff.ms']);
    }
    if (epochSent !== this.memberEpoch && this.memberState !== 'JOINING') {
      // A response to an older epoch (the member was fenced or rejoined meanwhile): ignore it.
      return this.beatAfter(this.heartbeatIntervalMs);
    }
    this.memberId = r.memberId ?? this.memberId;
    if (r.memberEpoch !== this.memberEpoch)
      this.trace('member.epoch', { from: this.memberEpoch, to: r.memberEpoch });
    this.memberEpoch = r.memberEpoch;
    this.heartbeatIntervalMs = r.heartbeatIntervalMs;
    this.sent = { full: false, owned: req.topicPartitions !== null ? ownedKey : this.sent.owned };
    if (this.memberState === 'ACKNOWLEDGING') this.transition('STABLE');
    if (r.assignment !== null) {
      this.target = r.assignment.topicPartitions;
      this.targetEpoch = r.memberEpoch;
      if (this.memberState === 'JOINING' || !this.targetReconciled()) this.transition('RECONCILING');
    }
    this.maybeReconcile();
    if (this.beatTimer === undefined) this.beatAfter(this.heartbeatIntervalMs);
  }

  // ---- reconciliation -----------------------------------------------------------------------------------------

  /** The target's partitions whose topic names the metadata knows; `unresolved` when some are not known yet. */
  private resolvedTarget(): { partitions: TopicPartitionRef[]; unresolved: boolean } {
    const out: TopicPartitionRef[] = [];
    let unresolved = false;
    for (const tp of this.target ?? []) {
      const topic = this.host.metadata.topicName(tp.topicId);
      if (topic === undefined) {
        unresolved = true;
        continue;
      }
      for (const partition of tp.partitions) out.push({ topic, partition });
    }
    return { partitions: out.sort(byTopicPartition), unresolved };
  }

  private targetReconciled(): boolean {
    const { partitions, unresolved } = this.resolvedTarget();
    const owned = this.host.ownedPartitions();
    return (
      !unresolved &&
      partitions.length === owned.length &&
      partitions.every((tp, i) => keyOf(tp) === keyOf(owned[i]!))
    );
  }

  /** AbstractMembershipManager.maybeReconcile: commit, revoke, assign, acknowledge. */
  maybeReconcile(): void {
    const host = this.host;
    if (this.memberState !== 'RECONCILING' || this.reconciling || this.target === undefined) return;
    const { partitions: assigned, unresolved } = this.resolvedTarget();
    if (unresolved) host.refreshMetadata();
    const owned = host.ownedPartitions();
    const assignedKeys = new Set(assigned.map(keyOf));
    const ownedKeys = new Set(owned.map(keyOf));
    const revoked = owned.filter((tp) => !assignedKeys.has(keyOf(tp)));
    const added = assigned.filter((tp) => !ownedKeys.has(keyOf(tp)));
    if (revoked.length === 0 && added.length === 0) {
      // Nothing to do, or only unresolved topics: acknowledge what it has.
      this.transition('ACKNOWLEDGING');
      return this.beatNow();
    }
    this.reconciling = true;
    const epoch = this.targetEpoch;
    this.trace('member.reconcile', {
      assigned: assigned.map(keyOf),
      added: added.map(keyOf),
      revoked: revoked.map(keyOf),
    });
    const aborted = () => this.memberState !== 'RECONCILING' || !host.up;
    const finish = () => {
      this.reconciling = false;
      if (aborted()) return;
      this.assignments.push({
        time: host.now,
        generationId: epoch,
        memberId: this.memberId,
        protocol: host.groupConfig['group.remote.assignor'],
        leader: false,
        assigned,
        added,
        revoked,
      });
      this.trace('member.assigned', {
        assigned: assigned.map(keyOf),
        added: added.map(keyOf),
        revoked: revoked.map(keyOf),
      });
      this.transition('ACKNOWLEDGING');
      this.beatNow();
      host.deliverBuffered();
    };
    const assign = () => {
      if (aborted()) return void (this.reconciling = false);
      for (const tp of added) host.addPartition(tp);
      host.fetchCommitted(added);
      this.onThread(() => {
        if (aborted()) return void (this.reconciling = false);
        host.callListeners('onPartitionsAssigned', added);
        host.whenReleased(finish);
      });
    };
    const revoke = () => {
      if (aborted()) return void (this.reconciling = false);
      if (revoked.length === 0) return assign();
      this.onThread(() => {
        if (aborted()) return void (this.reconciling = false);
        host.callListeners('onPartitionsRevoked', revoked);
        host.whenReleased(() => {
          host.dropPartitions(revoked);
          assign();
        });
      });
    };
    // Commit before reconciling (ConsumerMembershipManager.signalReconciliationStarted); a failed commit does
    // not stop the reconciliation.
    if (
      host.groupConfig['enable.auto.commit'] &&
      owned.length > 0 &&
      (revoked.length > 0 || host.flavour === 'java')
    )
      host.commitPositions(host.flavour === 'java' ? undefined : revoked, () => revoke());
    else revoke();
  }

  /** Runs `fn` on the application thread when callbacks need it, else at once (background thread). */
  private onThread(fn: () => void): void {
    if (!this.host.hasListeners() || this.host.threadFree()) return fn();
    this.waitingForThread = fn;
  }

  /** The application thread is free (it polls, or a hold was released): deferred group work runs now. */
  maybeRejoin(): void {
    const host = this.host;
    if (!host.up) return;
    if (this.waitingForCoordinator && host.coordinatorId !== undefined) {
      this.waitingForCoordinator = false;
      this.beatNow();
    }
    if (host.closing) return;
    const waiting = this.waitingForThread;
    if (waiting && host.threadFree()) {
      this.waitingForThread = undefined;
      waiting();
    }
    if (this.rejoinOnPoll && host.threadFree()) {
      this.rejoinOnPoll = false;
      this.loseAndRejoin('rejoining after the poll timeout');
    }
    if (this.memberState === 'UNSUBSCRIBED' && host.coordinatorId !== undefined) this.join();
    this.maybeReconcile();
  }

  /** The classic member's rejoin request: the consumer protocol has none (the coordinator drives changes). */
  requestRejoin(_reason: string): void {}

  /** transitionToFenced: the partitions are lost (callback), then the member rejoins with epoch 0. */
  private fenced(error: ErrorName): void {
    this.transition('FENCED');
    this.trace('member.fenced', { error });
    this.memberEpoch = 0;
    this.target = undefined;
    this.reconciling = false;
    this.loseAndRejoin(error);
  }

  private loseAndRejoin(reason: string): void {
    const host = this.host;
    const owned = host.ownedPartitions();
    const rejoin = () => {
      if (owned.length > 0) host.dropPartitions(owned);
      if (this.memberState === 'FENCED' || this.memberState === 'STALE') this.join();
    };
    if (owned.length === 0) return rejoin();
    this.trace('member.partitions-lost', { reason, partitions: owned.map(keyOf) });
    this.onThread(() => {
      host.callListeners('onPartitionsLost', owned);
      host.whenReleased(rejoin);
    });
  }

  // ---- leaving ------------------------------------------------------------------------------------------------

  /**
   * Leaves the group: on close (the consumer already committed and revoked) and on a poll timeout, after which
   * the member rejoins at its next poll (Java's STALE, librdkafka's "max.poll.interval.ms exceeded").
   */
  leaveGroup(reason: string): void {
    if (this.memberState === 'UNSUBSCRIBED' || this.memberState === 'CLOSED' || this.memberState === 'FATAL')
      return;
    this.trace('member.leave', { reason });
    const stale = !this.host.closing;
    if (this.memberEpoch > 0 || this.memberId !== '') {
      this.transition('LEAVING');
      this.beatNow();
    } else this.leftGroup();
    if (stale) this.rejoinOnPoll = true;
  }

  private leftGroup(): void {
    this.memberEpoch = 0;
    this.target = undefined;
    this.reconciling = false;
    this.waitingForThread = undefined;
    if (this.memberState === 'CLOSED') return;
    this.transition(this.host.closing ? 'UNSUBSCRIBED' : 'STALE');
  }

  /** consumer.close() finished. */
  close(): void {
    this.beatTimer?.cancel();
    this.transition('CLOSED');
  }

  /** Errors on commits: a moved coordinator is looked up again; fencing is the heartbeat's business. */
  onGroupError(name: ErrorName, _generationAtRequest: number, what: string): void {
    if (name === 'NOT_COORDINATOR' || name === 'COORDINATOR_NOT_AVAILABLE')
      this.host.markCoordinatorUnknown(`${what}: ${name}`);
  }

  /** New metadata may resolve topic ids of the assignment. */
  onMetadataUpdate(_periodic: boolean): void {
    if (
      this.memberState === 'RECONCILING' ||
      (this.memberState === 'STABLE' && this.target !== undefined && !this.targetReconciled())
    ) {
      this.transition('RECONCILING');
      this.maybeReconcile();
    }
  }
}
