// A consumer in subscribe mode: a member of a consumer group, in Java or librdkafka flavour, with the classic
// protocol or (group.protocol=consumer) KIP-848's. This file composes the member from its parts, each in its own
// file, as kafkajs separates consumerGroup, runner and offsetManager:
//   - classic-membership.ts: the join/sync state machine, the leader's assignment, leaving, metadata changes;
//   - consumer-membership.ts: group.protocol=consumer: ConsumerGroupHeartbeat, incremental reconciliation;
//   - coordinator-lookup.ts: FindCoordinator;
//   - member-heartbeat.ts: the classic heartbeat thread;
//   - poll-loop.ts: the application's poll loop, the fetched records it has not polled yet, the poll timeout;
//   - offset-manager.ts: positions, OffsetCommit, OffsetFetch;
//   - rebalance-listener.ts: the rebalance callbacks and the holds they put on the application thread;
//   - fetcher.ts: fetching the owned partitions (the same fetcher the assign-mode Consumer owns), whose records
//     wait in the poll loop's buffer, and consumer-metadata.ts: the metadata it fetches by.
//
// Group work that runs on the application's thread in the real clients (the rejoin with its commit and revoke
// callbacks, the assignment callback) waits until the application is back in poll, which is why a slow member
// delays a rebalance; the heartbeat runs in the background (Java's heartbeat thread, librdkafka's main thread).
// New partitions start at the committed offset (OffsetFetch) or else by auto.offset.reset, evaluated when the new
// owner resets (ListOffsets then): with `latest`, records written before that moment are skipped.

import {
  type Assignor,
  cooperativeSticky,
  type MemberStateName,
  rangeAssignor,
  roundRobinAssignor,
  sticky,
} from '../group/index.ts';
import type { ErrorName } from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation } from '../sim/index.ts';
import {
  ClassicMembership,
  type ClassicMembershipHost,
  type MemberAssignmentEvent,
} from './classic-membership.ts';
import { type ClientFlavour, type ConsumerConfig, consumerConfig } from './config.ts';
import {
  ConsumerMembership,
  type ConsumerMembershipHost,
  type ConsumerProtocolMemberState,
} from './consumer-membership.ts';
import { ConsumerMetadata } from './consumer-metadata.ts';
import { CoordinatorLookup } from './coordinator-lookup.ts';
import { countError, type ErrorCounts } from './error-counts.ts';
import { type ConsumedBatches, Fetcher, type OffsetReset } from './fetcher.ts';
import {
  type GroupConsumerConfig,
  type GroupConsumerConfigInput,
  groupConsumerConfig,
} from './group-consumer-config.ts';
import { MemberHeartbeat } from './member-heartbeat.ts';
import type { MetadataCache } from './metadata-cache.ts';
import { OffsetManager } from './offset-manager.ts';
import { PollLoop, type ProcessingModel } from './poll-loop.ts';
import { RebalanceCallbacks, type RebalanceListener } from './rebalance-listener.ts';
import { byTopicPartition, keyOf, type TopicPartitionRef } from './topic-partition-key.ts';

export type { MemberAssignmentEvent } from './classic-membership.ts';
export type { ProcessingModel } from './poll-loop.ts';
export type { RebalanceControl, RebalanceListener } from './rebalance-listener.ts';

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

/** The built-in assignors by protocol name, with the flavour's member ordering (librdkafka differs). */
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

export class GroupConsumer extends SimNode {
  readonly flavour: ClientFlavour;
  readonly config: ConsumerConfig;
  readonly metadata: MetadataCache;
  recordsConsumed = 0;
  bytesConsumed = 0;
  readonly errorCounts: ErrorCounts = {};
  /** Every auto.offset.reset this member did, in order. */
  readonly resets: readonly OffsetReset[];
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly groupConfig: GroupConsumerConfig;
  readonly assignors: readonly Assignor[];
  readonly clientHost: string;
  processing: ProcessingModel;
  /** Every completed rebalance of this member, in order. */
  readonly assignments: MemberAssignmentEvent[];
  /** Offsets this member committed successfully (`topic-partition` → offset). */
  readonly committed: Map<string, number>;

  private readonly listeners: ((c: ConsumedBatches) => void)[] = [];
  private readonly clusterMetadata: ConsumerMetadata;
  private readonly fetcher: Fetcher;
  /** group.protocol: classic (JoinGroup/SyncGroup) or consumer (KIP-848, consumer-membership.ts). */
  private readonly membership: ClassicMembership | ConsumerMembership;
  private readonly coordinator: CoordinatorLookup;
  private readonly heartbeat: MemberHeartbeat;
  private readonly pollLoop: PollLoop;
  private readonly offsets: OffsetManager;
  private readonly callbacks: RebalanceCallbacks;
  private closing = false;

  constructor(sim: Simulation, id: NodeId, options: GroupConsumerOptions) {
    const flavour = options.flavour ?? 'java';
    const seq = options.clientSequence ?? 1;
    const config: GroupConsumerConfigInput = {
      'client.id': flavour === 'java' ? `consumer-${options.groupId}-${seq}` : 'rdkafka',
      ...options.config,
    };
    super(sim, id);
    this.flavour = flavour;
    this.config = consumerConfig(flavour, config);
    this.groupConfig = groupConsumerConfig(flavour, options.groupId, config);
    this.groupId = this.groupConfig['group.id'];
    this.topics = [...options.topics];
    this.clientHost = options.clientHost ?? '/127.0.0.1';
    this.processing = { ...options.processing };
    this.assignors = options.assignors
      ? [...options.assignors]
      : this.groupConfig['partition.assignment.strategy'].map((name) => {
          const a = builtInAssignor(name, flavour);
          if (!a)
            throw new Error(`unknown partition.assignment.strategy '${name}' (pass the assignor object)`);
          return a;
        });
    if (this.assignors.length === 0) throw new Error('a group member needs at least one assignor');

    const self = this;
    const trace = (kind: string, fields: Record<string, unknown>) => this.trace(kind, fields);
    const request = this.request.bind(this);
    const schedule = this.schedule.bind(this);
    const countErrorCode = (code: number) => countError(this.errorCounts, code);
    const findCoordinator = () => this.coordinator.find();
    const markCoordinatorUnknown = (why: string) => this.coordinator.markUnknown(why);
    const onGroupError = (name: ErrorName, generation: number, what: string) =>
      this.membership.onGroupError(name, generation, what);
    this.clusterMetadata = new ConsumerMetadata(options.bootstrap, {
      node: this,
      config: this.config,
      answered: (ok, periodic) => {
        if (ok) this.membership.onMetadataUpdate(periodic);
        this.fetcher.kick();
      },
    });
    this.metadata = this.clusterMetadata.cache;
    this.fetcher = new Fetcher({
      node: this,
      flavour,
      config: this.config,
      metadata: this.metadata,
      errorCounts: this.errorCounts,
      requestMetadataUpdate: () => this.clusterMetadata.requestUpdate(),
      // A partition whose records wait for the application is not fetched again until they are polled.
      fetchable: (st) => !this.pollLoop.hasBuffered(st.key),
      onFetched: (st, c) => this.pollLoop.buffer(st.key, c),
      onReset: (st) => this.offsets.setPosition(st.key, st.position!),
    });
    this.resets = this.fetcher.resets;
    this.callbacks = new RebalanceCallbacks({
      consumer: this,
      trace,
      onReleased: () => {
        this.membership.maybeRejoin();
        this.pollLoop.deliverBuffered();
      },
    });
    if (options.listener) this.callbacks.add(options.listener);
    this.coordinator = new CoordinatorLookup({
      groupId: this.groupId,
      config: this.config,
      metadata: this.metadata,
      get up() {
        return self.up;
      },
      random: (name) => this.random(name),
      request,
      schedule,
      trace,
      countError: countErrorCode,
      onCoordinator: () => this.membership.maybeRejoin(),
    });
    const membershipHost: ClassicMembershipHost & ConsumerMembershipHost = {
      groupId: this.groupId,
      topics: this.topics,
      flavour,
      config: this.config,
      groupConfig: this.groupConfig,
      assignors: this.assignors,
      clientHost: this.clientHost,
      metadata: this.metadata,
      get up() {
        return self.up;
      },
      get now() {
        return self.sim.now;
      },
      get closing() {
        return self.closing;
      },
      get coordinatorId() {
        return self.coordinator.coordinatorId;
      },
      random: (name) => this.random(name),
      request,
      schedule,
      trace,
      countError: countErrorCode,
      findCoordinator,
      markCoordinatorUnknown,
      threadFree: () => this.pollLoop.polling && !this.callbacks.held,
      callListeners: (hook, partitions) => this.callbacks.call(hook, partitions),
      whenReleased: (fn) => this.callbacks.whenReleased(fn),
      ownedPartitions: () => this.ownedPartitions(),
      addPartition: (tp) => this.addPartition(tp),
      dropPartitions: (list) => this.dropPartitions(list),
      commit: (cb) => this.offsets.commit(cb),
      commitPositions: (partitions, cb) => this.commitPositions(partitions, cb),
      hasListeners: () => this.callbacks.size > 0,
      refreshMetadata: () => this.refreshMetadata(),
      fetchCommitted: (partitions) => this.offsets.fetchCommitted(partitions),
      deliverBuffered: () => this.pollLoop.deliverBuffered(),
    };
    this.membership =
      this.groupConfig['group.protocol'] === 'consumer'
        ? new ConsumerMembership(membershipHost)
        : new ClassicMembership(membershipHost);
    this.heartbeat = new MemberHeartbeat({
      groupId: this.groupId,
      config: this.config,
      groupConfig: this.groupConfig,
      member: this,
      every: (ms, fn, label) => this.every(ms, fn, label),
      request,
      countError: countErrorCode,
      findCoordinator,
      markCoordinatorUnknown,
      requestRejoin: (reason) => this.membership.requestRejoin(reason),
      onGroupError,
    });
    this.offsets = new OffsetManager({
      groupId: this.groupId,
      config: this.config,
      groupConfig: this.groupConfig,
      member: this,
      assignment: () => this.fetcher.assignment,
      request,
      schedule,
      emit: (kind, fields) => this.emit(kind, fields),
      countError: countErrorCode,
      findCoordinator,
      markCoordinatorUnknown,
      onGroupError,
      kick: () => this.fetcher.kick(),
    });
    this.pollLoop = new PollLoop({
      flavour,
      groupConfig: this.groupConfig,
      processing: () => this.processing,
      schedule,
      trace,
      mayDeliver: () => !this.callbacks.held && this.membership.state !== 'Preparing',
      handOver: (key, taken) => {
        this.offsets.setPosition(key, taken.fromOffset + taken.records);
        this.recordsConsumed += taken.records;
        this.bytesConsumed += taken.bytes;
        for (const l of this.listeners) l(taken);
      },
      kick: () => this.fetcher.kick(),
      stable: () => this.membership.state === 'Stable',
      commit: () => this.offsets.commit(),
      maybeRejoin: () => this.membership.maybeRejoin(),
      leaveGroup: (reason) => this.membership.leaveGroup(reason),
    });
    this.assignments = this.membership.assignments;
    this.committed = this.offsets.committed;
  }

  // ---- public face ------------------------------------------------------------------------------------------

  get memberId(): string {
    return this.membership.memberId;
  }

  get generationId(): number {
    return this.membership.generationId;
  }

  get protocolName(): string | null {
    return this.membership.protocolName;
  }

  get leaderId(): string {
    return this.membership.leaderId;
  }

  get coordinatorId(): number | undefined {
    return this.coordinator.coordinatorId;
  }

  /** Set when the group answered with an error the client does not retry (e.g. INCONSISTENT_GROUP_PROTOCOL). */
  get fatalError(): ErrorName | undefined {
    return this.membership.fatalError;
  }

  get commitFailures(): number {
    return this.offsets.commitFailures;
  }

  /** Times the application spent longer than max.poll.interval.ms between polls. */
  get pollTimeouts(): number {
    return this.pollLoop.pollTimeouts;
  }

  addRebalanceListener(l: RebalanceListener): void {
    this.callbacks.add(l);
  }

  /** Where the member is in the protocol. */
  get memberState(): MemberStateName {
    return this.membership.state;
  }

  /** group.protocol=consumer: Java's MemberState (JOINING, RECONCILING, ACKNOWLEDGING, STABLE, ...); else undefined. */
  get consumerProtocolState(): ConsumerProtocolMemberState | undefined {
    return this.membership instanceof ConsumerMembership ? this.membership.memberState : undefined;
  }

  get isLeader(): boolean {
    return this.membership.isLeader;
  }

  /** EAGER or COOPERATIVE, as the flavour decides it (classic-membership.ts). */
  get rebalanceProtocol(): 'EAGER' | 'COOPERATIVE' {
    return this.membership.rebalanceProtocol;
  }

  onRecords(listener: (c: ConsumedBatches) => void): void {
    this.listeners.push(listener);
  }

  /** The partitions this member owns now, sorted. */
  ownedPartitions(): TopicPartitionRef[] {
    return this.assignedPartitions().sort(byTopicPartition);
  }

  /** The partitions this member owns now, in the order it got them. */
  assignedPartitions(): TopicPartitionRef[] {
    return this.fetcher.assignedPartitions();
  }

  /** Moves an owned partition's position (KafkaConsumer.seek): buffered records are dropped. */
  seek(tp: TopicPartitionRef, offset: number): void {
    const key = keyOf(tp);
    const st = this.fetcher.assignment.get(key);
    if (!st) throw new Error(`seek: ${key} is not assigned to this member`);
    this.offsets.cancelCommittedFetch(key);
    st.resetting = false;
    this.pollLoop.discard(key);
    this.offsets.setPosition(key, offset);
    this.fetcher.seek(key, offset);
  }

  /** The next offset to fetch for a partition (records before it may still wait for the application's poll). */
  position(tp: TopicPartitionRef): number | undefined {
    return this.fetcher.position(keyOf(tp));
  }

  /** The lag the member knows of: high watermark − fetch position, summed over its partitions. */
  get lag(): number {
    return this.fetcher.lag;
  }

  /** Asks for metadata at once, past the backoff (Java's requestUpdateForNewTopics: new topics are wanted). */
  refreshMetadata(): void {
    this.clusterMetadata.refreshNow();
  }

  /** The offset the next commit would store for a partition (the application's position). */
  consumedPosition(tp: TopicPartitionRef): number | undefined {
    return this.offsets.position(keyOf(tp));
  }

  /** Commits the application's positions of every owned partition (commitAsync). */
  commit(cb?: (errorCode: number) => void): void {
    this.offsets.commit(cb);
  }

  /** Commits the consumed positions of these partitions, or of every owned one when `partitions` is undefined. */
  private commitPositions(
    partitions: readonly TopicPartitionRef[] | undefined,
    cb: (errorCode: number) => void,
  ): void {
    if (partitions === undefined) return this.offsets.commit(cb);
    const offsets: { topic: string; partition: number; offset: number }[] = [];
    for (const tp of partitions) {
      const offset = this.offsets.position(keyOf(tp));
      if (offset !== undefined) offsets.push({ topic: tp.topic, partition: tp.partition, offset });
    }
    this.offsets.commitOffsets(offsets, cb);
  }

  /** Commits explicit offsets (commitAsync(Map)); `cb` gets the first error code, 0 on success. */
  commitOffsets(
    offsets: { topic: string; partition: number; offset: number }[],
    cb?: (errorCode: number) => void,
  ): void {
    this.offsets.commitOffsets(offsets, cb);
  }

  /** consumer.close(): commit (auto commit), revoke, LeaveGroup, then the client stops. */
  close(done?: () => void): void {
    if (this.closing || !this.up) return done?.();
    this.closing = true;
    const finish = () => {
      this.membership.leaveGroup('the consumer is being closed');
      this.schedule(0, () => {
        this.membership.send({ type: 'CLOSE' });
        this.stop();
        done?.();
      });
    };
    const owned = this.ownedPartitions();
    if (this.generationId < 0) {
      if (owned.length > 0) this.callbacks.call('onPartitionsLost', owned);
      return this.callbacks.whenReleased(finish);
    }
    const revoke = () => {
      this.callbacks.call('onPartitionsRevoked', owned);
      this.callbacks.whenReleased(finish);
    };
    if (this.groupConfig['enable.auto.commit']) this.offsets.commit(() => revoke());
    else revoke();
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------

  protected override onStart(): void {
    // A restart forgets the partitions: they come with the next assignment, their positions from the commits.
    this.fetcher.clear();
    this.pollLoop.reset();
    this.offsets.reset();
    this.membership.reset();
    this.coordinator.reset();
    this.heartbeat.reset();
    this.callbacks.reset();
    this.closing = false;
    this.fetcher.restart();
    this.clusterMetadata.start();
    this.membership.start();
    // The consumer protocol's heartbeat is the membership's own (ConsumerGroupHeartbeat).
    if (this.membership instanceof ClassicMembership) this.heartbeat.start();
    if (this.groupConfig['enable.auto.commit'])
      this.every(
        this.groupConfig['auto.commit.interval.ms'],
        () => this.pollLoop.autoCommit(),
        'member.auto-commit',
      );
    this.coordinator.find();
  }

  private trace(kind: string, fields: Record<string, unknown> = {}): void {
    this.emit(kind, { group: this.groupId, memberId: this.memberId, ...fields });
  }

  // ---- partitions ----------------------------------------------------------------------------------------------

  private addPartition(tp: TopicPartitionRef): void {
    const key = keyOf(tp);
    // resetting: the committed offset is fetched first; only without one does auto.offset.reset apply.
    this.fetcher.add(tp, key, true);
    this.offsets.expectCommitted(key);
  }

  private dropPartitions(list: readonly TopicPartitionRef[]): void {
    const keys = list.map(keyOf);
    for (const key of keys) {
      this.fetcher.remove(key);
      this.offsets.forget(key);
    }
    this.pollLoop.discardAll(keys, (k) => this.fetcher.assignment.has(k));
  }
}
