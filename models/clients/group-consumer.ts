// A consumer in subscribe mode: a member of a consumer group (classic protocol), in Java or librdkafka flavour.
//
// The application is modelled as a poll loop: poll() hands over buffered records (at most max.poll.records),
// the application processes them for a configurable time, then polls again. Group work that runs on the
// application's thread in the real clients (the rejoin with its commit and revoke callbacks, the assignment
// callback) waits until the application is back in poll, which is why a slow member delays a rebalance; the
// heartbeat runs in the background (Java's heartbeat thread, librdkafka's main thread), and a member that stays
// out of poll longer than max.poll.interval.ms leaves the group ("consumer poll timeout has expired").
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
//
// New partitions start at the committed offset (OffsetFetch) or else by auto.offset.reset, evaluated when the new
// owner resets (ListOffsets then): with `latest`, records written before that moment are skipped.

import {
  type Assignor,
  type AssignorMember,
  cooperativeSticky,
  heartbeats,
  type MemberEvent,
  type MemberStateName,
  nextMemberState,
  rangeAssignor,
  roundRobinAssignor,
  sticky,
} from '../group/index.ts';
import {
  brokerNodeId,
  type ErrorName,
  Errors,
  errorByCode,
  type FindCoordinatorResponse,
  type HeartbeatResponse,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type LeaveGroupResponse,
  type MetadataResponse,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
  type SyncGroupResponse,
  type TopicPartition,
} from '../protocol/index.ts';
import type { NodeId, Simulation, Timer } from '../sim/index.ts';
import type { RecordBatch } from '../storage/index.ts';
import type { ClientFlavour } from './config.ts';
import { type ConsumedBatches, Consumer, type PartitionState, type TopicPartitionRef } from './consumer.ts';
import {
  type GroupConsumerConfig,
  type GroupConsumerConfigInput,
  groupConsumerConfig,
} from './group-consumer-config.ts';

/** What a rebalance listener may do besides looking at the partitions. */
export interface RebalanceControl {
  readonly consumer: GroupConsumer;
  /**
   * Holds the rebalance on the application thread (the rejoin after a revoke, handing out records after an
   * assign) until the returned function is called, e.g. once a sink has flushed and committed.
   */
  hold(): () => void;
}

/** ConsumerRebalanceListener; librdkafka's rebalance_cb maps onto the same three moments. */
export interface RebalanceListener {
  onPartitionsRevoked?(partitions: readonly TopicPartitionRef[], ctl: RebalanceControl): void;
  onPartitionsAssigned?(partitions: readonly TopicPartitionRef[], ctl: RebalanceControl): void;
  /** The member lost its membership (fenced, left by poll timeout) before it could revoke. */
  onPartitionsLost?(partitions: readonly TopicPartitionRef[], ctl: RebalanceControl): void;
}

/** How long the application spends on the records one poll returned. */
export interface ProcessingModel {
  perPollMs?: number;
  perRecordMs?: number;
}

export interface GroupConsumerOptions {
  flavour?: ClientFlavour;
  groupId: string;
  topics: readonly string[];
  config?: GroupConsumerConfigInput;
  bootstrap: NodeId[];
  listener?: RebalanceListener;
  /** A user's assignors (same shape as `assignors.*`); when given they are the strategy list, in order. */
  assignors?: readonly Assignor[];
  processing?: ProcessingModel;
  /** The address the coordinator reports for this client (HOST column). Default `/127.0.0.1`. */
  clientHost?: string;
  /** Java's default client.id is `consumer-<group>-<n>`, n counting consumers in the process. Default 1. */
  clientSequence?: number;
}

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

interface Buffered {
  chunks: ConsumedBatches[];
}

const keyOf = (tp: TopicPartitionRef) => `${tp.topic}-${tp.partition}`;
const byTopicPartition = (a: TopicPartitionRef, b: TopicPartitionRef) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;

const FATAL_JOIN_ERRORS: ReadonlySet<string> = new Set([
  'INCONSISTENT_GROUP_PROTOCOL',
  'GROUP_MAX_SIZE_REACHED',
  'INVALID_SESSION_TIMEOUT',
  'INVALID_GROUP_ID',
  'GROUP_AUTHORIZATION_FAILED',
]);

/** The built-in assignors by protocol name, with the flavour's member ordering (librdkafka differs, §2). */
function builtInAssignor(name: string, flavour: ClientFlavour): Assignor | undefined {
  const ordering = flavour === 'java' ? 'java' : 'librdkafka';
  switch (name) {
    case 'range':
      return rangeAssignor({ ordering });
    case 'roundrobin':
      return roundRobinAssignor({ ordering });
    case 'sticky':
      return sticky;
    case 'cooperative-sticky':
      return cooperativeSticky;
    default:
      return undefined;
  }
}

export class GroupConsumer extends Consumer {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly groupConfig: GroupConsumerConfig;
  readonly assignors: readonly Assignor[];
  readonly clientHost: string;
  processing: ProcessingModel;
  memberId = '';
  generationId = -1;
  protocolName: string | null = null;
  leaderId = '';
  coordinatorId: number | undefined;
  /** Set when the group answered with an error the client does not retry (e.g. INCONSISTENT_GROUP_PROTOCOL). */
  fatalError: ErrorName | undefined;
  /** Every completed rebalance of this member, in order. */
  readonly assignments: MemberAssignmentEvent[] = [];
  /** Offsets this member committed successfully (`topic-partition` → offset). */
  readonly committed = new Map<string, number>();
  commitFailures = 0;
  /** Times the application spent longer than max.poll.interval.ms between polls. */
  pollTimeouts = 0;

  private readonly rebalanceListeners: RebalanceListener[] = [];
  /** The member's protocol state (member-state.ts); Unjoined until the client first starts. */
  #memberState: MemberStateName = 'Unjoined';
  private app: 'polling' | 'processing' = 'polling';
  private pollTimeoutTimer: Timer | undefined;
  private rejoinNeeded = true;
  private rejoinReason = 'initial join';
  private findingCoordinator = false;
  private heartbeatInFlight = false;
  private holds = 0;
  private afterHolds: (() => void)[] = [];
  private closing = false;
  /** Java: auto.commit.interval.ms passed while the application was processing; commit at the next poll. */
  private autoCommitDue = false;
  private buffers = new Map<string, Buffered>();
  private ready: string[] = [];
  /** Next offset the application gets per owned partition: what a commit stores. */
  private consumed = new Map<string, number>();
  /** Partitions whose committed offset is being fetched. */
  private awaitingCommitted = new Set<string>();
  /** Java leader: the partition counts it assigned (ConsumerCoordinator.assignmentSnapshot). */
  private assignmentSnapshot: Record<string, number> | undefined;
  /** librdkafka: the subscribed topics' partition counts last seen. */
  private seenCounts: Record<string, number> | undefined;
  /** The generation of the last assignment received (librdkafka's sticky assignor state). */
  private assignedGeneration = -1;

  constructor(sim: Simulation, id: NodeId, options: GroupConsumerOptions) {
    const flavour = options.flavour ?? 'java';
    const seq = options.clientSequence ?? 1;
    const config: GroupConsumerConfigInput = {
      'client.id': flavour === 'java' ? `consumer-${options.groupId}-${seq}` : 'rdkafka',
      ...options.config,
    };
    super(sim, id, { flavour, config, bootstrap: options.bootstrap });
    this.groupConfig = groupConsumerConfig(flavour, options.groupId, config);
    this.groupId = this.groupConfig['group.id'];
    this.topics = [...options.topics];
    this.clientHost = options.clientHost ?? '/127.0.0.1';
    this.processing = { ...options.processing };
    if (options.listener) this.rebalanceListeners.push(options.listener);
    this.assignors = options.assignors
      ? [...options.assignors]
      : this.groupConfig['partition.assignment.strategy'].map((name) => {
          const a = builtInAssignor(name, flavour);
          if (!a)
            throw new Error(`unknown partition.assignment.strategy '${name}' (pass the assignor object)`);
          return a;
        });
    if (this.assignors.length === 0) throw new Error('a group member needs at least one assignor');
  }

  // ---- public face ------------------------------------------------------------------------------------------

  addRebalanceListener(l: RebalanceListener): void {
    this.rebalanceListeners.push(l);
  }

  /** Where the member is in the protocol. */
  get memberState(): MemberStateName {
    return this.#memberState;
  }

  get isLeader(): boolean {
    return this.memberId !== '' && this.memberId === this.leaderId;
  }

  /** EAGER or COOPERATIVE, as the flavour decides it (see the header). */
  get rebalanceProtocol(): 'EAGER' | 'COOPERATIVE' {
    const coop = (a: Assignor) => (a.rebalanceProtocols ?? ['EAGER']).includes('COOPERATIVE');
    if (this.flavour === 'java') return this.assignors.every(coop) ? 'COOPERATIVE' : 'EAGER';
    const chosen = this.assignors.find((a) => a.name === this.protocolName) ?? this.assignors[0]!;
    return coop(chosen) ? 'COOPERATIVE' : 'EAGER';
  }

  /** The partitions this member owns now, sorted. */
  ownedPartitions(): TopicPartitionRef[] {
    return [...this.assignment.values()]
      .map(({ topic, partition }) => ({ topic, partition }))
      .sort(byTopicPartition);
  }

  override assign(_partitions: readonly TopicPartitionRef[]): void {
    throw new Error('Subscription to topics and manual partition assignment are mutually exclusive');
  }

  /** Moves an owned partition's position (KafkaConsumer.seek): buffered records are dropped. */
  override seek(tp: TopicPartitionRef, offset: number): void {
    const key = keyOf(tp);
    const st = this.assignment.get(key);
    if (!st) throw new Error(`seek: ${key} is not assigned to this member`);
    this.awaitingCommitted.delete(key);
    st.resetting = false;
    this.buffers.delete(key);
    this.ready = this.ready.filter((k) => k !== key);
    this.consumed.set(key, offset);
    super.seek(tp, offset);
  }

  /** The offset the next commit would store for a partition (the application's position). */
  consumedPosition(tp: TopicPartitionRef): number | undefined {
    return this.consumed.get(keyOf(tp));
  }

  /** Commits the application's positions of every owned partition (commitAsync). */
  commit(cb?: (errorCode: number) => void): void {
    const offsets: { topic: string; partition: number; offset: number }[] = [];
    for (const st of this.assignment.values()) {
      const offset = this.consumed.get(keyOf(st));
      if (offset !== undefined) offsets.push({ topic: st.topic, partition: st.partition, offset });
    }
    this.commitOffsets(offsets, cb);
  }

  /** Commits explicit offsets (commitAsync(Map)); `cb` gets the first error code, 0 on success. */
  commitOffsets(
    offsets: { topic: string; partition: number; offset: number }[],
    cb?: (errorCode: number) => void,
  ): void {
    const state = this.memberState;
    if (this.coordinatorId === undefined || (state !== 'Stable' && state !== 'Preparing')) {
      // Java: a member that is not Stable cannot commit (generationIfStable() is null).
      this.commitFailures++;
      this.emit('member.commit-failed', { group: this.groupId, reason: `member is ${state}` });
      cb?.(Errors.REBALANCE_IN_PROGRESS.code);
      return;
    }
    if (offsets.length === 0) return cb?.(0);
    const generationId = this.generationId;
    this.request<OffsetCommitResponse>(
      brokerNodeId(this.coordinatorId),
      {
        type: 'OffsetCommit',
        groupId: this.groupId,
        generationId,
        memberId: this.memberId,
        groupInstanceId: this.groupConfig['group.instance.id'],
        offsets,
      },
      (o) => {
        if (!o.ok) {
          this.markCoordinatorUnknown(`OffsetCommit ${o.error}`);
          this.commitFailures++;
          return cb?.(Errors.COORDINATOR_NOT_AVAILABLE.code);
        }
        const failed = o.response.partitions.find((p) => p.errorCode !== 0);
        if (!failed) {
          for (const p of offsets) this.committed.set(keyOf(p), p.offset);
          return cb?.(0);
        }
        this.commitFailures++;
        const name = errorByCode(failed.errorCode).name;
        this.countError(failed.errorCode);
        this.emit('member.commit-failed', { group: this.groupId, error: name });
        this.onGroupError(name, generationId, 'OffsetCommit');
        cb?.(failed.errorCode);
      },
      this.config['request.timeout.ms'],
    );
  }

  /** consumer.close(): commit (auto commit), revoke, LeaveGroup, then the client stops. */
  close(done?: () => void): void {
    if (this.closing || !this.up) return done?.();
    this.closing = true;
    const finish = () => {
      this.leaveGroup('the consumer is being closed');
      this.schedule(0, () => {
        this.send({ type: 'CLOSE' });
        this.stop();
        done?.();
      });
    };
    const owned = this.ownedPartitions();
    if (this.generationId < 0) {
      if (owned.length > 0) this.callListeners('onPartitionsLost', owned);
      return this.whenReleased(finish);
    }
    const revoke = () => {
      this.callListeners('onPartitionsRevoked', owned);
      this.whenReleased(finish);
    };
    if (this.groupConfig['enable.auto.commit']) this.commit(() => revoke());
    else revoke();
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------

  protected override onStart(): void {
    this.assignment = new Map();
    this.buffers = new Map();
    this.ready = [];
    this.consumed = new Map();
    this.awaitingCommitted = new Set();
    this.memberId = '';
    this.generationId = -1;
    this.protocolName = null;
    this.leaderId = '';
    this.coordinatorId = undefined;
    this.findingCoordinator = false;
    this.heartbeatInFlight = false;
    this.rejoinNeeded = true;
    this.rejoinReason = 'initial join';
    this.app = 'polling';
    this.holds = 0;
    this.afterHolds = [];
    this.closing = false;
    this.assignmentSnapshot = undefined;
    this.seenCounts = undefined;
    this.assignedGeneration = -1;
    super.onStart();
    this.#memberState = 'Unjoined';
    // The heartbeat thread: a heartbeat every heartbeat.interval.ms while the member's state heartbeats.
    this.every(
      this.groupConfig['heartbeat.interval.ms'],
      () => {
        if (heartbeats(this.#memberState)) this.sendHeartbeat();
      },
      'member.heartbeat',
    );
    if (this.groupConfig['enable.auto.commit'])
      this.every(this.groupConfig['auto.commit.interval.ms'], () => this.autoCommit(), 'member.auto-commit');
    this.findCoordinator();
  }

  /** Moves the member's state; a client that is down takes no events (its state is as it went down). */
  private send(event: MemberEvent): void {
    if (this.up) this.#memberState = nextMemberState(this.#memberState, event);
  }

  private trace(kind: string, fields: Record<string, unknown> = {}): void {
    this.emit(kind, { group: this.groupId, memberId: this.memberId, ...fields });
  }

  // ---- coordinator discovery ------------------------------------------------------------------------------

  private findCoordinator(): void {
    if (this.findingCoordinator || this.coordinatorId !== undefined || !this.up) return;
    this.findingCoordinator = true;
    this.request<FindCoordinatorResponse>(
      this.metadata.pickNode(this.random('coordinator')),
      { type: 'FindCoordinator', key: this.groupId },
      (o) => {
        this.findingCoordinator = false;
        if (o.ok && o.response.errorCode === 0) {
          this.coordinatorId = o.response.nodeId;
          this.trace('member.coordinator', { coordinator: o.response.nodeId });
          this.maybeRejoin();
          return;
        }
        if (o.ok) this.countError(o.response.errorCode);
        this.schedule(
          this.config['retry.backoff.ms'],
          () => this.findCoordinator(),
          'member.find-coordinator',
        );
      },
      this.config['request.timeout.ms'],
    );
  }

  private markCoordinatorUnknown(why: string): void {
    if (this.coordinatorId === undefined) return;
    this.trace('member.coordinator-unknown', { coordinator: this.coordinatorId, why });
    this.coordinatorId = undefined;
    this.findCoordinator();
  }

  // ---- joining ----------------------------------------------------------------------------------------------

  private requestRejoin(reason: string): void {
    if (!this.rejoinNeeded) this.trace('member.rejoin-needed', { reason });
    this.rejoinNeeded = true;
    this.rejoinReason = reason;
    this.maybeRejoin();
  }

  /** Starts the rejoin when it is needed and the application thread is free (in poll). */
  private maybeRejoin(): void {
    if (!this.up || this.closing || this.fatalError || !this.rejoinNeeded) return;
    const state = this.memberState;
    if (state !== 'Unjoined' && state !== 'Stable') return;
    if (this.app !== 'polling' || this.holds > 0) return;
    if (this.coordinatorId === undefined) return this.findCoordinator();
    this.prepareJoin();
  }

  /** ConsumerCoordinator.onJoinPrepare: lose (fenced), or commit and revoke (eager), then join. */
  private prepareJoin(): void {
    this.send({ type: 'PREPARE' });
    const owned = this.ownedPartitions();
    const join = () =>
      this.whenReleased(() => {
        if (this.memberState === 'Preparing') this.sendJoin();
      });
    if (this.generationId < 0) {
      if (owned.length > 0) {
        this.callListeners('onPartitionsLost', owned);
        return this.whenReleased(() => {
          this.dropPartitions(owned);
          join();
        });
      }
      return join();
    }
    if (this.rebalanceProtocol === 'COOPERATIVE') return join();
    const revoke = () => {
      this.callListeners('onPartitionsRevoked', owned);
      this.whenReleased(() => {
        this.dropPartitions(owned);
        join();
      });
    };
    if (this.groupConfig['enable.auto.commit'] && owned.length > 0) this.commit(() => revoke());
    else revoke();
  }

  private sendJoin(): void {
    if (this.coordinatorId === undefined) {
      this.send({ type: 'RESET' });
      this.rejoinNeeded = true;
      return this.findCoordinator();
    }
    // rd_kafka_cgrp_join (rd_kafka_cgrp_metadata_refresh "consumer join") and Java's ensureActiveGroup join from
    // the metadata cache; only a subscribed topic missing from it costs a Metadata round trip first.
    if (this.topics.some((t) => !this.metadata.hasTopic(t))) {
      return this.fetchMetadata(() => {
        if (this.flavour === 'librdkafka') this.seenCounts = this.subscribedCounts();
        this.sendJoinRequest();
      });
    }
    // librdkafka compares later refreshes with the topics it joined with (rkcg_subscribed_topics, set on the
    // first metadata it sees for the subscription).
    if (this.flavour === 'librdkafka') this.seenCounts ??= this.subscribedCounts();
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
    if (this.flavour === 'java') return this.generationId;
    return assignor.name === 'sticky' || assignor.name === 'cooperative-sticky'
      ? this.assignedGeneration
      : -1;
  }

  private sendJoinRequest(): void {
    if (this.memberState !== 'Preparing' && this.memberState !== 'Joining') return;
    if (this.coordinatorId === undefined) return this.retryJoin('coordinator unknown', true);
    this.send({ type: 'JOIN_SENT' });
    this.rejoinNeeded = false;
    const owned = this.ownedPartitions();
    const rebalanceTimeoutMs = this.groupConfig['max.poll.interval.ms'];
    const req: JoinGroupRequest = {
      type: 'JoinGroup',
      groupId: this.groupId,
      sessionTimeoutMs: this.groupConfig['session.timeout.ms'],
      rebalanceTimeoutMs,
      memberId: this.memberId,
      groupInstanceId: this.groupConfig['group.instance.id'],
      protocolType: 'consumer',
      protocols: this.assignors.map((a) => ({
        name: a.name,
        metadata: {
          topics: [...this.topics].sort(),
          ownedPartitions: owned,
          generation: this.subscriptionGeneration(a),
        },
      })),
      clientId: this.config['client.id'],
      clientHost: this.clientHost,
      reason: this.rejoinReason,
    };
    this.trace('member.join', { reason: this.rejoinReason, generation: this.generationId });
    this.request<JoinGroupResponse>(
      brokerNodeId(this.coordinatorId),
      req,
      (o) => this.onJoinResponse(o.ok ? o.response : undefined, o.ok ? undefined : o.error),
      // AbstractCoordinator: the JoinGroup may be parked for the whole rebalance timeout, plus 5 s of lapse.
      Math.max(this.config['request.timeout.ms'], rebalanceTimeoutMs + 5000),
    );
  }

  private onJoinResponse(r: JoinGroupResponse | undefined, netError: string | undefined): void {
    if (this.memberState !== 'Joining') return;
    if (!r) {
      this.markCoordinatorUnknown(`JoinGroup ${netError}`);
      return this.retryJoin(`JoinGroup ${netError}`, false);
    }
    const name = errorByCode(r.errorCode).name;
    if (name === 'NONE') {
      this.memberId = r.memberId;
      this.generationId = r.generationId;
      this.protocolName = r.protocolName;
      this.leaderId = r.leader;
      this.send({ type: 'JOINED' });
      this.trace('member.joined', { generation: r.generationId, leader: r.leader, protocol: r.protocolName });
      if (this.isLeader) this.performAssignment(r);
      else this.sendSync([]);
      return;
    }
    this.countError(r.errorCode);
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
      this.schedule(this.config['retry.backoff.ms'], () => this.maybeRejoin(), 'member.join-retry');
    else this.maybeRejoin();
  }

  private fail(name: ErrorName): void {
    this.fatalError = name;
    this.send({ type: 'RESET' });
    this.trace('member.fatal', { error: name });
  }

  /** Errors every group response may carry: what they do to the membership. */
  private onGroupError(name: ErrorName, generationAtRequest: number, what: string): void {
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
        this.markCoordinatorUnknown(`${what}: ${name}`);
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
    const state = this.memberState;
    if (state === 'Stable' || state === 'Syncing') this.send({ type: 'RESET' });
    this.requestRejoin(reason);
  }

  /** The leader runs the chosen assignor over every member's subscription (ConsumerCoordinator.onLeaderElected). */
  private performAssignment(r: JoinGroupResponse): void {
    const assignor = this.assignors.find((a) => a.name === r.protocolName);
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
      if (this.memberState !== 'Syncing' || this.generationId !== generation) return;
      const partitionsPerTopic: Record<string, number> = {};
      for (const t of topics) {
        const n = this.metadata.partitionCount(t);
        if (n !== undefined) partitionsPerTopic[t] = n;
      }
      const result = assignor.assign({ partitionsPerTopic, members });
      if (this.flavour === 'java') this.assignmentSnapshot = partitionsPerTopic;
      this.trace('member.assign', { generation, assignor: assignor.name, partitionsPerTopic });
      this.sendSync(members.map((m) => ({ memberId: m.memberId, assignment: result[m.memberId] ?? [] })));
    };
    // librdkafka's leader asks for fresh metadata before it assigns; Java's uses its cache unless a topic is missing.
    if (this.flavour === 'librdkafka' || topics.some((t) => !this.metadata.hasTopic(t)))
      this.fetchMetadata(run);
    else run();
  }

  private sendSync(assignments: { memberId: string; assignment: TopicPartition[] }[]): void {
    if (this.coordinatorId === undefined) return this.retryJoin('coordinator unknown', true);
    const generation = this.generationId;
    this.request<SyncGroupResponse>(
      brokerNodeId(this.coordinatorId),
      {
        type: 'SyncGroup',
        groupId: this.groupId,
        generationId: generation,
        memberId: this.memberId,
        groupInstanceId: this.groupConfig['group.instance.id'],
        protocolName: this.protocolName,
        assignments,
      },
      (o) => {
        if (this.memberState !== 'Syncing' || this.generationId !== generation) return;
        if (!o.ok) {
          this.markCoordinatorUnknown(`SyncGroup ${o.error}`);
          return this.retryJoin(`SyncGroup ${o.error}`, false);
        }
        const name = errorByCode(o.response.errorCode).name;
        if (name === 'NONE') return this.onJoinComplete(o.response.assignment);
        this.countError(o.response.errorCode);
        this.onGroupError(name, generation, 'SyncGroup');
        this.retryJoin(name, false);
      },
      // A follower's SyncGroup is parked until the leader's arrives (bounded by the rebalance timeout).
      Math.max(this.config['request.timeout.ms'], this.groupConfig['max.poll.interval.ms'] + 5000),
    );
  }

  /** ConsumerCoordinator.onJoinComplete: revoke what was taken away (cooperative), take what is new. */
  private onJoinComplete(assignment: readonly TopicPartition[]): void {
    this.send({ type: 'SYNCED' });
    this.assignedGeneration = this.generationId;
    const assigned = [...assignment].sort(byTopicPartition);
    const assignedKeys = new Set(assigned.map(keyOf));
    const owned = this.ownedPartitions();
    const ownedKeys = new Set(owned.map(keyOf));
    const revoked = owned.filter((tp) => !assignedKeys.has(keyOf(tp)));
    const added = assigned.filter((tp) => !ownedKeys.has(keyOf(tp)));
    this.assignments.push({
      time: this.sim.now,
      generationId: this.generationId,
      memberId: this.memberId,
      protocol: this.protocolName,
      leader: this.isLeader,
      assigned,
      added,
      revoked,
    });
    this.trace('member.assigned', {
      generation: this.generationId,
      assigned: assigned.map(keyOf),
      added: added.map(keyOf),
      revoked: revoked.map(keyOf),
    });
    const take = () => {
      for (const tp of added) this.addPartition(tp);
      this.fetchCommitted(added);
      this.callListeners('onPartitionsAssigned', added);
      if (revoked.length > 0) this.requestRejoin('need to revoke partitions and re-join');
      this.whenReleased(() => {
        this.maybeRejoin();
        this.deliverBuffered();
      });
    };
    if (revoked.length === 0) return take();
    this.callListeners('onPartitionsRevoked', revoked);
    this.whenReleased(() => {
      this.dropPartitions(revoked);
      take();
    });
  }

  // ---- heartbeat and leaving --------------------------------------------------------------------------------

  private sendHeartbeat(): void {
    if (this.heartbeatInFlight || this.generationId < 0 || this.memberId === '') return;
    if (this.coordinatorId === undefined) return this.findCoordinator();
    this.heartbeatInFlight = true;
    const generation = this.generationId;
    this.request<HeartbeatResponse>(
      brokerNodeId(this.coordinatorId),
      {
        type: 'Heartbeat',
        groupId: this.groupId,
        generationId: generation,
        memberId: this.memberId,
        groupInstanceId: this.groupConfig['group.instance.id'],
      },
      (o) => {
        this.heartbeatInFlight = false;
        if (!o.ok) return this.markCoordinatorUnknown(`Heartbeat ${o.error}`);
        const name = errorByCode(o.response.errorCode).name;
        if (name === 'NONE') return;
        this.countError(o.response.errorCode);
        if (name === 'REBALANCE_IN_PROGRESS') {
          if (this.memberState === 'Stable') this.requestRejoin('group is already rebalancing');
          return;
        }
        this.onGroupError(name, generation, 'Heartbeat');
      },
      this.config['request.timeout.ms'],
    );
  }

  /** LeaveGroup (fire and forget) and reset: the member joins as a new member next time. */
  private leaveGroup(reason: string): void {
    if (this.coordinatorId !== undefined && this.memberId !== '' && this.memberState !== 'Unjoined') {
      this.request<LeaveGroupResponse>(
        brokerNodeId(this.coordinatorId),
        {
          type: 'LeaveGroup',
          groupId: this.groupId,
          members: [
            { memberId: this.memberId, groupInstanceId: this.groupConfig['group.instance.id'], reason },
          ],
        },
        () => {},
        this.config['request.timeout.ms'],
      );
    }
    this.trace('member.leave', { reason });
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
    for (const t of this.topics) {
      const n = this.metadata.partitionCount(t);
      if (n !== undefined) counts[t] = n;
    }
    return counts;
  }

  protected override onMetadataUpdate(periodic: boolean): void {
    if (this.flavour === 'java') {
      const snapshot = this.assignmentSnapshot;
      if (!snapshot || !this.isLeader) return;
      // Java's poll blocks in the join while a rebalance runs, and SyncGroup's success clears rejoinNeeded
      // (AbstractCoordinator's SyncGroupResponseHandler); the leader's new assignment then takes its snapshot
      // from fresh metadata. So a refresh during the join must not leave a rejoin pending: that would start a
      // second rebalance right after the one that already saw the change.
      if (this.memberState !== 'Stable') return;
      for (const [topic, n] of Object.entries(snapshot)) {
        if (this.metadata.partitionCount(topic) !== n)
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
    this.request<MetadataResponse>(
      this.metadata.pickNode(this.random('metadata')),
      { type: 'Metadata', topics: null },
      (o) => {
        if (o.ok) this.metadata.update(o.response, this.sim.now);
        then();
      },
      this.config['request.timeout.ms'],
    );
  }

  // ---- partitions and positions ------------------------------------------------------------------------------

  private addPartition(tp: TopicPartitionRef): void {
    const key = keyOf(tp);
    // resetting: the committed offset is fetched first; only without one does auto.offset.reset apply.
    this.assignment.set(key, {
      topic: tp.topic,
      partition: tp.partition,
      key,
      position: undefined,
      highWatermark: -1,
      resetting: true,
    });
    this.awaitingCommitted.add(key);
  }

  private dropPartitions(list: readonly TopicPartitionRef[]): void {
    for (const tp of list) {
      const key = keyOf(tp);
      this.assignment.delete(key);
      this.buffers.delete(key);
      this.consumed.delete(key);
      this.awaitingCommitted.delete(key);
    }
    this.ready = this.ready.filter((k) => this.assignment.has(k));
  }

  /** OffsetFetch for new partitions: committed offsets become positions; the rest reset by auto.offset.reset. */
  private fetchCommitted(partitions: readonly TopicPartitionRef[]): void {
    const wanted = partitions.filter((tp) => this.awaitingCommitted.has(keyOf(tp)));
    if (wanted.length === 0) return;
    const retry = () =>
      this.schedule(
        this.config['retry.backoff.ms'],
        () => this.fetchCommitted(wanted.filter((tp) => this.awaitingCommitted.has(keyOf(tp)))),
        'member.offset-fetch-retry',
      );
    if (this.coordinatorId === undefined) {
      this.findCoordinator();
      return void retry();
    }
    this.request<OffsetFetchResponse>(
      brokerNodeId(this.coordinatorId),
      {
        type: 'OffsetFetch',
        groupId: this.groupId,
        partitions: wanted.map(({ topic, partition }) => ({ topic, partition })),
      },
      (o) => {
        if (!o.ok || o.response.errorCode !== 0) {
          if (!o.ok) this.markCoordinatorUnknown(`OffsetFetch ${o.error}`);
          else this.onGroupError(errorByCode(o.response.errorCode).name, this.generationId, 'OffsetFetch');
          return void retry();
        }
        for (const p of o.response.partitions) {
          const key = keyOf(p);
          const st = this.assignment.get(key);
          if (!st || !this.awaitingCommitted.delete(key)) continue;
          st.resetting = false;
          if (p.offset >= 0) {
            st.position = p.offset;
            this.consumed.set(key, p.offset);
          }
        }
        this.kick();
      },
      this.config['request.timeout.ms'],
    );
  }

  protected override onReset(st: PartitionState): void {
    this.consumed.set(st.key, st.position!);
  }

  protected override fetchable(st: PartitionState): boolean {
    return !this.buffers.get(st.key)?.chunks.length;
  }

  protected override onFetched(st: PartitionState, c: ConsumedBatches): void {
    const key = st.key;
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = { chunks: [] }));
    b.chunks.push(c);
    if (!this.ready.includes(key)) this.ready.push(key);
    this.deliverBuffered();
  }

  // ---- the application's poll loop ---------------------------------------------------------------------------

  /** poll(): hands buffered records to the application while it is in poll and nothing holds it. */
  private deliverBuffered(): void {
    const maxRecords = this.groupConfig['max.poll.records'];
    while (
      this.app === 'polling' &&
      this.holds === 0 &&
      this.memberState !== 'Preparing' &&
      this.ready.length > 0
    ) {
      let left = maxRecords;
      let handed = 0;
      while (left > 0 && this.ready.length > 0) {
        const key = this.ready[0]!;
        const b = this.buffers.get(key);
        const chunk = b?.chunks[0];
        if (!b || !chunk) {
          this.ready.shift();
          continue;
        }
        const taken = takeRecords(chunk, left);
        if (chunk.records === 0) b.chunks.shift();
        if (b.chunks.length === 0) this.ready.shift();
        left -= taken.records;
        handed += taken.records;
        this.consumed.set(key, taken.fromOffset + taken.records);
        this.recordsConsumed += taken.records;
        this.bytesConsumed += taken.bytes;
        for (const l of this.listeners) l(taken);
      }
      this.kick();
      const ms = (this.processing.perPollMs ?? 0) + (this.processing.perRecordMs ?? 0) * handed;
      if (handed > 0 && ms > 0) return this.startProcessing(ms);
    }
  }

  private startProcessing(ms: number): void {
    this.app = 'processing';
    this.pollTimeoutTimer?.cancel();
    this.pollTimeoutTimer = this.schedule(
      this.groupConfig['max.poll.interval.ms'],
      () => this.onPollTimeout(),
      'member.poll-timeout',
    );
    this.schedule(ms, () => this.enterPoll(), 'member.processing');
  }

  private enterPoll(): void {
    this.app = 'polling';
    this.pollTimeoutTimer?.cancel();
    this.pollTimeoutTimer = undefined;
    // Java commits on poll once auto.commit.interval.ms has passed.
    if (this.autoCommitDue && this.flavour === 'java') {
      this.autoCommitDue = false;
      this.commit();
    }
    this.maybeRejoin();
    this.deliverBuffered();
  }

  /** Auto commit: librdkafka commits from its own thread; Java only from poll (now, or at the next poll). */
  private autoCommit(): void {
    if (this.memberState !== 'Stable') return;
    if (this.flavour === 'java' && this.app !== 'polling') {
      this.autoCommitDue = true;
      return;
    }
    this.commit();
  }

  private onPollTimeout(): void {
    if (this.app !== 'processing') return;
    this.pollTimeouts++;
    this.trace('member.poll-timeout', { maxPollIntervalMs: this.groupConfig['max.poll.interval.ms'] });
    this.leaveGroup('consumer poll timeout has expired.');
  }

  // ---- rebalance listeners and holds ---------------------------------------------------------------------------

  private callListeners(
    hook: 'onPartitionsRevoked' | 'onPartitionsAssigned' | 'onPartitionsLost',
    partitions: readonly TopicPartitionRef[],
  ): void {
    this.trace(`member.${hook}`, { partitions: partitions.map(keyOf) });
    const ctl: RebalanceControl = { consumer: this, hold: () => this.hold() };
    for (const l of this.rebalanceListeners) {
      const fn = l[hook];
      if (fn) fn.call(l, partitions, ctl);
    }
  }

  private hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0) {
        const next = this.afterHolds;
        this.afterHolds = [];
        for (const fn of next) fn();
        this.maybeRejoin();
        this.deliverBuffered();
      }
    };
  }

  private whenReleased(fn: () => void): void {
    if (this.holds === 0) fn();
    else this.afterHolds.push(fn);
  }
}

/**
 * Takes up to `max` records from the front of a fetched chunk, leaving the rest in it. Offsets within a
 * partition are contiguous (no compaction or transaction markers here), so `fromOffset + records` is the end.
 */
function takeRecords(chunk: ConsumedBatches, max: number): ConsumedBatches {
  const n = Math.min(max, chunk.records);
  if (n === chunk.records) {
    const whole = { ...chunk };
    chunk.records = 0;
    return whole;
  }
  const from = chunk.fromOffset;
  const to = from + n;
  const bytes = chunk.bytes * (n / chunk.records);
  const batches: RecordBatch[] = chunk.batches.filter(
    (b) => b.baseOffset < to && b.baseOffset + b.count > from,
  );
  const taken: ConsumedBatches = { ...chunk, batches, fromOffset: from, records: n, bytes };
  chunk.fromOffset = to;
  chunk.records -= n;
  chunk.bytes -= bytes;
  chunk.batches = chunk.batches.filter((b) => b.baseOffset + b.count > to);
  return taken;
}
