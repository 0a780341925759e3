// A member's side of the classic group protocol (Java's AbstractCoordinator/ConsumerCoordinator, librdkafka's
// rd_kafka_cgrp): the join/sync state machine (member-state.ts in models/group), the leader's assignment, the
// errors every group response may carry, leaving, and when metadata changes ask for a rejoin.
//
// Metadata changes: Java (ConsumerCoordinator.rejoinNeededOrPending) — only the leader, which computed the
// assignment, compares the partition counts it assigned with (assignmentSnapshot) on every metadata update, i.e.
// on its metadata.max.age.ms refresh; followers learn from REBALANCE_IN_PROGRESS on their next heartbeat.
// librdkafka — every member compares its subscribed topics' partition counts on every metadata refresh
// (rd_kafka_cgrp_metadata_update_check) and rejoins on a change, but its range/roundrobin join metadata is the
// same every time, so the coordinator (GroupMetadataManager.classicGroupJoinExistingMember) hands a follower that
// rejoins a Stable group the current generation and its old assignment: only the leader's rejoin starts the
// rebalance, and whoever has not rejoined by then learns of it from a heartbeat. Both clients join from their
// metadata cache; librdkafka's leader asks for fresh metadata before it assigns ("partition assignor").
//
// Eager vs cooperative: Java uses COOPERATIVE only if every configured assignor supports it (ConsumerCoordinator);
// librdkafka follows the chosen assignor. Eager members commit (auto commit) and revoke everything before
// rejoining; cooperative members keep what they own, revoke only what the new assignment takes away, and rejoin
// at once so the second rebalance can hand those partitions over.

import {
  type Assignor,
  type AssignorMember,
  checkAssignment,
  type MemberEvent,
  type MemberStateName,
  nextMemberState,
} from '../group/index.ts';
import {
  brokerNodeId,
  type ErrorName,
  errorByCode,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type LeaveGroupResponse,
  type MetadataResponse,
  type SyncGroupResponse,
  type TopicPartition,
} from '../protocol/index.ts';
import type { NodeId, RandomStream, RequestOutcome, Timer } from '../sim/index.ts';
import type { ClientFlavour, ConsumerConfig } from './config.ts';
import type { GroupConsumerConfig } from './group-consumer-config.ts';
import type { MetadataCache } from './metadata-cache.ts';
import type { RebalanceHook } from './rebalance-listener.ts';
import type { TopicPartitionRef } from './topic-partition-key.ts';
import { byTopicPartition, keyOf } from './topic-partition-key.ts';

/** A rebalance seen from this member. */
export interface MemberAssignmentEvent {
  time: number;
  generationId: number;
  memberId: string;
  protocol: string | null;
  leader: boolean;
  assigned: TopicPartitionRef[];
  added: TopicPartitionRef[];
  revoked: TopicPartitionRef[];
}

const FATAL_JOIN_ERRORS: ReadonlySet<string> = new Set([
  'INCONSISTENT_GROUP_PROTOCOL',
  'GROUP_MAX_SIZE_REACHED',
  'INVALID_SESSION_TIMEOUT',
  'INVALID_GROUP_ID',
  'GROUP_AUTHORIZATION_FAILED',
]);

/** What the membership needs from its member: the node, the coordinator, the application thread, the partitions. */
export interface ClassicMembershipHost {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly flavour: ClientFlavour;
  readonly config: ConsumerConfig;
  readonly groupConfig: GroupConsumerConfig;
  readonly assignors: readonly Assignor[];
  readonly clientHost: string;
  readonly metadata: MetadataCache;
  readonly up: boolean;
  readonly now: number;
  /** consumer.close() has begun: no more rejoins. */
  readonly closing: boolean;
  random(name: string): RandomStream;
  request<R>(to: NodeId, payload: unknown, cb: (o: RequestOutcome<R>) => void, timeoutMs: number): void;
  schedule(delay: number, fn: () => void, label: string): Timer;
  trace(kind: string, fields: Record<string, unknown>): void;
  countError(code: number): void;
  readonly coordinatorId: number | undefined;
  findCoordinator(): void;
  markCoordinatorUnknown(why: string): void;
  /** The application is in poll and no rebalance callback holds it: group work may run on its thread. */
  threadFree(): boolean;
  callListeners(hook: RebalanceHook, partitions: readonly TopicPartitionRef[]): void;
  whenReleased(fn: () => void): void;
  ownedPartitions(): TopicPartitionRef[];
  addPartition(tp: TopicPartitionRef): void;
  dropPartitions(list: readonly TopicPartitionRef[]): void;
  commit(cb: () => void): void;
  fetchCommitted(partitions: readonly TopicPartitionRef[]): void;
  deliverBuffered(): void;
}

export class ClassicMembership {
  memberId = '';
  generationId = -1;
  protocolName: string | null = null;
  leaderId = '';
  /** Set when the group answered with an error the client does not retry (e.g. INCONSISTENT_GROUP_PROTOCOL). */
  fatalError: ErrorName | undefined;
  /** Every completed rebalance of this member, in order. */
  readonly assignments: MemberAssignmentEvent[] = [];
  /** The member's protocol state (member-state.ts); Unjoined until the client first starts. */
  #state: MemberStateName = 'Unjoined';
  private rejoinNeeded = true;
  private rejoinReason = 'initial join';
  /** Java leader: the partition counts it assigned (ConsumerCoordinator.assignmentSnapshot). */
  private assignmentSnapshot: Record<string, number> | undefined;
  /** librdkafka: the subscribed topics' partition counts last seen. */
  private seenCounts: Record<string, number> | undefined;
  /** The generation of the last assignment received (librdkafka's sticky assignor state). */
  private assignedGeneration = -1;

  constructor(private readonly host: ClassicMembershipHost) {}

  /** A restart: the member joins as a new member (its state becomes Unjoined at start()). */
  reset(): void {
    this.memberId = '';
    this.generationId = -1;
    this.protocolName = null;
    this.leaderId = '';
    this.rejoinNeeded = true;
    this.rejoinReason = 'initial join';
    this.assignmentSnapshot = undefined;
    this.seenCounts = undefined;
    this.assignedGeneration = -1;
  }

  start(): void {
    this.#state = 'Unjoined';
  }

  /** Where the member is in the protocol. */
  get state(): MemberStateName {
    return this.#state;
  }

  get isLeader(): boolean {
    return this.memberId !== '' && this.memberId === this.leaderId;
  }

  /** EAGER or COOPERATIVE, as the flavour decides it (see the header). */
  get rebalanceProtocol(): 'EAGER' | 'COOPERATIVE' {
    const coop = (a: Assignor) => (a.rebalanceProtocols ?? ['EAGER']).includes('COOPERATIVE');
    const assignors = this.host.assignors;
    if (this.host.flavour === 'java') return assignors.every(coop) ? 'COOPERATIVE' : 'EAGER';
    const chosen = assignors.find((a) => a.name === this.protocolName) ?? assignors[0]!;
    return coop(chosen) ? 'COOPERATIVE' : 'EAGER';
  }

  /** Moves the member's state; a client that is down takes no events (its state is as it went down). */
  send(event: MemberEvent): void {
    if (this.host.up) this.#state = nextMemberState(this.#state, event);
  }

  // ---- joining ----------------------------------------------------------------------------------------------

  requestRejoin(reason: string): void {
    if (!this.rejoinNeeded) this.host.trace('member.rejoin-needed', { reason });
    this.rejoinNeeded = true;
    this.rejoinReason = reason;
    this.maybeRejoin();
  }

  /** Starts the rejoin when it is needed and the application thread is free (in poll). */
  maybeRejoin(): void {
    const host = this.host;
    if (!host.up || host.closing || this.fatalError || !this.rejoinNeeded) return;
    const state = this.state;
    if (state !== 'Unjoined' && state !== 'Stable') return;
    if (!host.threadFree()) return;
    if (host.coordinatorId === undefined) return host.findCoordinator();
    this.prepareJoin();
  }

  /** ConsumerCoordinator.onJoinPrepare: lose (fenced), or commit and revoke (eager), then join. */
  private prepareJoin(): void {
    const host = this.host;
    this.send({ type: 'PREPARE' });
    const owned = host.ownedPartitions();
    const join = () =>
      host.whenReleased(() => {
        if (this.state === 'Preparing') this.sendJoin();
      });
    if (this.generationId < 0) {
      if (owned.length > 0) {
        host.callListeners('onPartitionsLost', owned);
        return host.whenReleased(() => {
          host.dropPartitions(owned);
          join();
        });
      }
      return join();
    }
    if (this.rebalanceProtocol === 'COOPERATIVE') return join();
    const revoke = () => {
      host.callListeners('onPartitionsRevoked', owned);
      host.whenReleased(() => {
        host.dropPartitions(owned);
        join();
      });
    };
    if (host.groupConfig['enable.auto.commit'] && owned.length > 0) host.commit(() => revoke());
    else revoke();
  }

  private sendJoin(): void {
    const host = this.host;
    if (host.coordinatorId === undefined) {
      this.send({ type: 'RESET' });
      this.rejoinNeeded = true;
      return host.findCoordinator();
    }
    // rd_kafka_cgrp_join (rd_kafka_cgrp_metadata_refresh "consumer join") and Java's ensureActiveGroup join from
    // the metadata cache; only a subscribed topic missing from it costs a Metadata round trip first.
    if (host.topics.some((t) => !host.metadata.hasTopic(t))) {
      return this.fetchMetadata(() => {
        if (host.flavour === 'librdkafka') this.seenCounts = this.subscribedCounts();
        this.sendJoinRequest();
      });
    }
    // librdkafka compares later refreshes with the topics it joined with (rkcg_subscribed_topics, set on the
    // first metadata it sees for the subscription).
    if (host.flavour === 'librdkafka') this.seenCounts ??= this.subscribedCounts();
    this.sendJoinRequest();
  }

  /**
   * The Subscription's generation field (ConsumerProtocolSubscription v2). Java writes its current generation
   * (ConsumerCoordinator.metadata). librdkafka writes -1 for assignors without user data (range, roundrobin:
   * rd_kafka_assignor_get_metadata_with_empty_userdata) and the generation of its last assignment for the sticky
   * ones (rd_kafka_sticky_assignor_get_metadata). Since the coordinator compares metadata byte for byte, a
   * librdkafka range member rejoining a Stable group gets the current generation back instead of a rebalance.
   */
  private subscriptionGeneration(assignor: Assignor): number {
    if (this.host.flavour === 'java') return this.generationId;
    return assignor.name === 'sticky' || assignor.name === 'cooperative-sticky'
      ? this.assignedGeneration
      : -1;
  }

  private sendJoinRequest(): void {
    const host = this.host;
    if (this.state !== 'Preparing' && this.state !== 'Joining') return;
    if (host.coordinatorId === undefined) return this.retryJoin('coordinator unknown', true);
    this.send({ type: 'JOIN_SENT' });
    this.rejoinNeeded = false;
    const owned = host.ownedPartitions();
    const rebalanceTimeoutMs = host.groupConfig['max.poll.interval.ms'];
    const req: JoinGroupRequest = {
      type: 'JoinGroup',
      groupId: host.groupId,
      sessionTimeoutMs: host.groupConfig['session.timeout.ms'],
      rebalanceTimeoutMs,
      memberId: this.memberId,
      groupInstanceId: host.groupConfig['group.instance.id'],
      protocolType: 'consumer',
      protocols: host.assignors.map((a) => ({
        name: a.name,
        metadata: {
          topics: [...host.topics].sort(),
          ownedPartitions: owned,
          generation: this.subscriptionGeneration(a),
        },
      })),
      clientId: host.config['client.id'],
      clientHost: host.clientHost,
      reason: this.rejoinReason,
    };
    host.trace('member.join', { reason: this.rejoinReason, generation: this.generationId });
    host.request<JoinGroupResponse>(
      brokerNodeId(host.coordinatorId),
      req,
      (o) => this.onJoinResponse(o.ok ? o.response : undefined, o.ok ? undefined : o.error),
      // AbstractCoordinator: the JoinGroup may be parked for the whole rebalance timeout, plus 5 s of lapse.
      Math.max(host.config['request.timeout.ms'], rebalanceTimeoutMs + 5000),
    );
  }

  private onJoinResponse(r: JoinGroupResponse | undefined, netError: string | undefined): void {
    const host = this.host;
    if (this.state !== 'Joining') return;
    if (!r) {
      host.markCoordinatorUnknown(`JoinGroup ${netError}`);
      return this.retryJoin(`JoinGroup ${netError}`, false);
    }
    const name = errorByCode(r.errorCode).name;
    if (name === 'NONE') {
      this.memberId = r.memberId;
      this.generationId = r.generationId;
      this.protocolName = r.protocolName;
      this.leaderId = r.leader;
      this.send({ type: 'JOINED' });
      host.trace('member.joined', { generation: r.generationId, leader: r.leader, protocol: r.protocolName });
      if (this.isLeader) this.performAssignment(r);
      else this.sendSync([]);
      return;
    }
    host.countError(r.errorCode);
    if (name === 'MEMBER_ID_REQUIRED') {
      this.memberId = r.memberId;
      return this.sendJoinRequest();
    }
    if (FATAL_JOIN_ERRORS.has(name)) return this.fail(name);
    this.onGroupError(name, this.generationId, 'JoinGroup');
    this.retryJoin(name, name === 'COORDINATOR_LOAD_IN_PROGRESS' || name === 'REBALANCE_IN_PROGRESS');
  }

  private retryJoin(reason: string, backoff: boolean): void {
    this.send({ type: 'RESET' });
    this.rejoinNeeded = true;
    this.rejoinReason = reason;
    if (backoff)
      this.host.schedule(this.host.config['retry.backoff.ms'], () => this.maybeRejoin(), 'member.join-retry');
    else this.maybeRejoin();
  }

  private fail(name: ErrorName): void {
    this.fatalError = name;
    this.send({ type: 'RESET' });
    this.host.trace('member.fatal', { error: name });
  }

  /** Errors every group response may carry: what they do to the membership. */
  onGroupError(name: ErrorName, generationAtRequest: number, what: string): void {
    switch (name) {
      case 'UNKNOWN_MEMBER_ID':
        this.memberId = '';
        this.resetGeneration(`${what}: ${name}`);
        break;
      case 'ILLEGAL_GENERATION':
        if (generationAtRequest === this.generationId) this.resetGeneration(`${what}: ${name}`);
        break;
      case 'NOT_COORDINATOR':
      case 'COORDINATOR_NOT_AVAILABLE':
        this.host.markCoordinatorUnknown(`${what}: ${name}`);
        break;
      default:
        break;
    }
  }

  /** The member is out of the group: its partitions are lost at its next rejoin. */
  private resetGeneration(reason: string): void {
    this.generationId = -1;
    this.protocolName = null;
    this.leaderId = '';
    this.assignmentSnapshot = undefined;
    const state = this.state;
    if (state === 'Stable' || state === 'Syncing') this.send({ type: 'RESET' });
    this.requestRejoin(reason);
  }

  /** The leader runs the chosen assignor over every member's subscription (ConsumerCoordinator.onLeaderElected). */
  private performAssignment(r: JoinGroupResponse): void {
    const host = this.host;
    const assignor = host.assignors.find((a) => a.name === r.protocolName);
    if (!assignor) return this.fail('INCONSISTENT_GROUP_PROTOCOL');
    const members: AssignorMember[] = r.members.map((m) => ({
      memberId: m.memberId,
      ...(m.groupInstanceId ? { groupInstanceId: m.groupInstanceId } : {}),
      topics: m.metadata.topics,
      ownedPartitions: m.metadata.ownedPartitions,
      generation: m.metadata.generation,
    }));
    const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
    const generation = this.generationId;
    const run = () => {
      if (this.state !== 'Syncing' || this.generationId !== generation) return;
      const partitionsPerTopic: Record<string, number> = {};
      for (const t of topics) {
        const n = host.metadata.partitionCount(t);
        if (n !== undefined) partitionsPerTopic[t] = n;
      }
      const result = assignor.assign({ partitionsPerTopic, members });
      checkAssignment(assignor.name, { partitionsPerTopic, members }, result);
      if (host.flavour === 'java') this.assignmentSnapshot = partitionsPerTopic;
      host.trace('member.assign', { generation, assignor: assignor.name, partitionsPerTopic });
      this.sendSync(members.map((m) => ({ memberId: m.memberId, assignment: result[m.memberId] ?? [] })));
    };
    // librdkafka's leader asks for fresh metadata before it assigns; Java's uses its cache unless a topic is missing.
    if (host.flavour === 'librdkafka' || topics.some((t) => !host.metadata.hasTopic(t)))
      this.fetchMetadata(run);
    else run();
  }

  private sendSync(assignments: { memberId: string; assignment: TopicPartition[] }[]): void {
    const host = this.host;
    if (host.coordinatorId === undefined) return this.retryJoin('coordinator unknown', true);
    const generation = this.generationId;
    host.request<SyncGroupResponse>(
      brokerNodeId(host.coordinatorId),
      {
        type: 'SyncGroup',
        groupId: host.groupId,
        generationId: generation,
        memberId: this.memberId,
        groupInstanceId: host.groupConfig['group.instance.id'],
        protocolName: this.protocolName,
        assignments,
      },
      (o) => {
        if (this.state !== 'Syncing' || this.generationId !== generation) return;
        if (!o.ok) {
          host.markCoordinatorUnknown(`SyncGroup ${o.error}`);
          return this.retryJoin(`SyncGroup ${o.error}`, false);
        }
        const name = errorByCode(o.response.errorCode).name;
        if (name === 'NONE') return this.onJoinComplete(o.response.assignment);
        host.countError(o.response.errorCode);
        this.onGroupError(name, generation, 'SyncGroup');
        this.retryJoin(name, false);
      },
      // A follower's SyncGroup is parked until the leader's arrives (bounded by the rebalance timeout).
      Math.max(host.config['request.timeout.ms'], host.groupConfig['max.poll.interval.ms'] + 5000),
    );
  }

  /** ConsumerCoordinator.onJoinComplete: revoke what was taken away (cooperative), take what is new. */
  private onJoinComplete(assignment: readonly TopicPartition[]): void {
    const host = this.host;
    this.send({ type: 'SYNCED' });
    this.assignedGeneration = this.generationId;
    const assigned = [...assignment].sort(byTopicPartition);
    const assignedKeys = new Set(assigned.map(keyOf));
    const owned = host.ownedPartitions();
    const ownedKeys = new Set(owned.map(keyOf));
    const revoked = owned.filter((tp) => !assignedKeys.has(keyOf(tp)));
    const added = assigned.filter((tp) => !ownedKeys.has(keyOf(tp)));
    this.assignments.push({
      time: host.now,
      generationId: this.generationId,
      memberId: this.memberId,
      protocol: this.protocolName,
      leader: this.isLeader,
      assigned,
      added,
      revoked,
    });
    host.trace('member.assigned', {
      generation: this.generationId,
      assigned: assigned.map(keyOf),
      added: added.map(keyOf),
      revoked: revoked.map(keyOf),
    });
    const take = () => {
      for (const tp of added) host.addPartition(tp);
      host.fetchCommitted(added);
      host.callListeners('onPartitionsAssigned', added);
      if (revoked.length > 0) this.requestRejoin('need to revoke partitions and re-join');
      host.whenReleased(() => {
        this.maybeRejoin();
        host.deliverBuffered();
      });
    };
    if (revoked.length === 0) return take();
    host.callListeners('onPartitionsRevoked', revoked);
    host.whenReleased(() => {
      host.dropPartitions(revoked);
      take();
    });
  }

  // ---- leaving --------------------------------------------------------------------------------------------

  /** LeaveGroup (fire and forget) and reset: the member joins as a new member next time. */
  leaveGroup(reason: string): void {
    const host = this.host;
    if (host.coordinatorId !== undefined && this.memberId !== '' && this.state !== 'Unjoined') {
      host.request<LeaveGroupResponse>(
        brokerNodeId(host.coordinatorId),
        {
          type: 'LeaveGroup',
          groupId: host.groupId,
          members: [
            { memberId: this.memberId, groupInstanceId: host.groupConfig['group.instance.id'], reason },
          ],
        },
        () => {},
        host.config['request.timeout.ms'],
      );
    }
    host.trace('member.leave', { reason });
    this.memberId = '';
    this.generationId = -1;
    this.protocolName = null;
    this.leaderId = '';
    this.assignmentSnapshot = undefined;
    this.send({ type: 'RESET' });
    this.rejoinNeeded = true;
    this.rejoinReason = reason;
  }

  // ---- metadata -------------------------------------------------------------------------------------------

  private subscribedCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const t of this.host.topics) {
      const n = this.host.metadata.partitionCount(t);
      if (n !== undefined) counts[t] = n;
    }
    return counts;
  }

  /** A metadata refresh: does it change what this member subscribed to (see the header)? */
  onMetadataUpdate(periodic: boolean): void {
    const host = this.host;
    if (host.flavour === 'java') {
      const snapshot = this.assignmentSnapshot;
      if (!snapshot || !this.isLeader) return;
      // Java's poll blocks in the join while a rebalance runs, and SyncGroup's success clears rejoinNeeded
      // (AbstractCoordinator's SyncGroupResponseHandler); the leader's new assignment then takes its snapshot
      // from fresh metadata. So a refresh during the join must not leave a rejoin pending: that would start a
      // second rebalance right after the one that already saw the change.
      if (this.state !== 'Stable') return;
      for (const [topic, n] of Object.entries(snapshot)) {
        if (host.metadata.partitionCount(topic) !== n)
          return this.requestRejoin('cached metadata has changed');
      }
      return;
    }
    // librdkafka checks the subscription only on its own refreshes (cgrp_update), not on a leader query's answer.
    if (!periodic) return;
    const now = this.subscribedCounts();
    const before = this.seenCounts;
    this.seenCounts = now;
    if (!before) return;
    const topics = new Set([...Object.keys(before), ...Object.keys(now)]);
    for (const t of topics) {
      if (before[t] !== now[t]) return this.requestRejoin('Metadata for subscribed topic(s) has changed');
    }
  }

  /** A Metadata request of its own, with a callback (the join and assignment paths wait for it). */
  private fetchMetadata(then: () => void): void {
    const host = this.host;
    host.request<MetadataResponse>(
      host.metadata.pickNode(host.random('metadata')),
      { type: 'Metadata', topics: null },
      (o) => {
        if (o.ok) host.metadata.update(o.response, host.now);
        then();
      },
      host.config['request.timeout.ms'],
    );
  }
}
