// A test fixture: a stand-in consumer group for sink workers: an in-process coordinator (no network, one round-trip
// delay per call) over assign-mode consumers from models/clients. It keeps the behaviour a sink depends on, with the
// classic protocol's rules (Kafka's GroupMetadataManager): eager rebalances (every member's partitions are revoked,
// members rejoin, the first member by id computes the assignment with the configured assignor), the initial rebalance
// delay of an Empty group, session-timeout removal of a member that died, rejoin of every member when the subscribed
// topic's partition count changes (librdkafka's metadata check, at topic.metadata.refresh.interval.ms),
// generation-checked offset commits (ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS while CompletingRebalance), and
// positions from committed offsets or auto.offset.reset. Left out: heartbeats as messages, max.poll.interval.ms,
// static membership, cooperative protocols, coordinator failover; the group lives outside the brokers. models/group
// is the real protocol (the ingest service's workers use it); this stand-in lets a test drive the sink's rules with
// rebalances exactly when it asks.

import { Consumer, type ConsumerConfigInput } from '../../../models/clients/index.ts';
import { type Assignor, assignors, type TopicPartition } from '../../../models/group/assignors/index.ts';
import { FetchQueue } from '../../../models/lake/fetch-queue.ts';
import type {
  CommitOffset,
  MessageSlice,
  RebalanceEvent,
  SinkConsumer,
  SinkConsumerFactory,
} from '../../../models/lake/index.ts';
import type { NodeId, Simulation } from '../../../models/sim/index.ts';

export type LocalGroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable';

export interface LocalGroupOptions {
  groupId: string;
  /** group.initial.rebalance.delay.ms (broker). Default 3000. */
  initialRebalanceDelayMs?: number;
  /** session.timeout.ms (librdkafka default 45000): how long a dead member keeps its partitions. */
  sessionTimeoutMs?: number;
  /** max.poll.interval.ms, sent as the rebalance timeout: how long a rebalance waits for members. */
  rebalanceTimeoutMs?: number;
  /** One round trip to the coordinator (JoinGroup, SyncGroup, OffsetCommit, OffsetFetch). Default 2 ms. */
  rttMs?: number;
}

interface Member {
  readonly memberId: string;
  readonly consumer: LocalGroupConsumer;
  /** Rejoined in the current PreparingRebalance. */
  joined: boolean;
  assignment: TopicPartition[];
  /** Died without leaving; removed when its session expires. */
  dead: boolean;
}

export interface LocalGroupDescription {
  groupId: string;
  state: LocalGroupState;
  generation: number;
  protocol: string;
  members: { memberId: string; clientId: string; assignment: TopicPartition[] }[];
  committed: { topic: string; partition: number; offset: number }[];
}

const ASSIGNORS: Record<string, Assignor> = {
  range: assignors.range,
  roundrobin: assignors.roundRobin,
  sticky: assignors.sticky,
  'cooperative-sticky': assignors.cooperativeSticky,
};

export class LocalGroup {
  state: LocalGroupState = 'Empty';
  generation = 0;
  protocol = '';
  readonly groupId: string;
  private readonly members = new Map<string, Member>();
  private readonly committed = new Map<string, CommitOffset>();
  private readonly initialDelayMs: number;
  readonly sessionTimeoutMs: number;
  private readonly rebalanceTimeoutMs: number;
  readonly rttMs: number;
  private joinTimer: { cancel(): void } | undefined;
  private joinDeadline = 0;
  private initialJoin = false;
  private memberSeq = 0;

  constructor(
    readonly sim: Simulation,
    options: LocalGroupOptions,
  ) {
    this.groupId = options.groupId;
    this.initialDelayMs = options.initialRebalanceDelayMs ?? 3000;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 45_000;
    this.rebalanceTimeoutMs = options.rebalanceTimeoutMs ?? 300_000;
    this.rttMs = options.rttMs ?? 2;
  }

  /** A new member id, as the coordinator hands out on the first JoinGroup. */
  newMemberId(clientId: string): string {
    return `${clientId}-${String(++this.memberSeq).padStart(4, '0')}`;
  }

  /** A member (re)joins. */
  join(consumer: LocalGroupConsumer): void {
    let m = this.members.get(consumer.memberId);
    if (!m) {
      m = { memberId: consumer.memberId, consumer, joined: false, assignment: [], dead: false };
      this.members.set(m.memberId, m);
    }
    if (this.state === 'Empty') {
      m.joined = true;
      this.state = 'PreparingRebalance';
      this.initialJoin = true;
      this.emit('group.preparing-rebalance', { reason: `member ${m.memberId} joined an Empty group` });
      // KIP-134: wait for more members before the first rebalance, extended while they keep coming.
      this.joinDeadline = this.sim.now + Math.max(0, this.rebalanceTimeoutMs - this.initialDelayMs);
      this.armJoinTimer(this.initialDelayMs);
      return;
    }
    if (this.state !== 'PreparingRebalance') this.prepareRebalance(`member ${m.memberId} joined`, m);
    m.joined = true;
    this.maybeCompleteJoin();
  }

  /** A member leaves gracefully (LeaveGroup). */
  leave(memberId: string): void {
    if (!this.members.delete(memberId)) return;
    this.afterRemoval(`member ${memberId} left`);
  }

  /** A member died without leaving: it is removed when its session expires. */
  memberDied(memberId: string): void {
    const m = this.members.get(memberId);
    if (!m) return;
    m.dead = true;
    this.sim.schedule(
      this.sessionTimeoutMs,
      () => {
        if (this.members.get(memberId) !== m) return;
        this.members.delete(memberId);
        this.emit('group.member-expired', { memberId });
        this.afterRemoval(`member ${memberId} session expired`);
      },
      'local-group.session-timeout',
    );
  }

  /** A member saw a metadata change (or anything else that needs a new assignment). */
  requestRebalance(reason: string): void {
    if (this.state === 'Empty' || this.state === 'PreparingRebalance') return;
    this.prepareRebalance(reason);
  }

  private afterRemoval(reason: string): void {
    if (this.members.size === 0) {
      this.joinTimer?.cancel();
      this.joinTimer = undefined;
      this.state = 'Empty';
      this.generation++;
      return;
    }
    if (this.state === 'PreparingRebalance') this.maybeCompleteJoin();
    else this.prepareRebalance(reason);
  }

  private prepareRebalance(reason: string, joining?: Member): void {
    this.state = 'PreparingRebalance';
    this.initialJoin = false;
    this.emit('group.preparing-rebalance', { reason });
    for (const m of this.members.values()) m.joined = false;
    this.joinDeadline = this.sim.now + this.rebalanceTimeoutMs;
    this.armJoinTimer(this.rebalanceTimeoutMs);
    for (const m of this.members.values()) if (!m.dead && m !== joining) m.consumer.revokeAndRejoin();
  }

  private armJoinTimer(delay: number): void {
    this.joinTimer?.cancel();
    let members = this.members.size;
    this.joinTimer = this.sim.schedule(
      delay,
      () => {
        this.joinTimer = undefined;
        if (this.state !== 'PreparingRebalance') return;
        if (this.initialJoin) {
          const remaining = this.joinDeadline - this.sim.now;
          if (this.members.size > members && remaining > 0) {
            members = this.members.size;
            this.armJoinTimer(Math.min(this.initialDelayMs, remaining));
            return;
          }
        }
        // The rebalance timeout: members that did not rejoin are out.
        for (const [id, m] of this.members) if (!m.joined) this.members.delete(id);
        this.completeJoin();
      },
      'local-group.join-timer',
    );
  }

  /** A rebalance completes as soon as every member rejoined; the first one waits for its initial delay. */
  private maybeCompleteJoin(): void {
    if (this.state !== 'PreparingRebalance' || this.initialJoin || this.joinTimer === undefined) return;
    for (const m of this.members.values()) if (!m.joined) return;
    this.joinTimer.cancel();
    this.joinTimer = undefined;
    this.completeJoin();
  }

  private completeJoin(): void {
    this.initialJoin = false;
    if (this.members.size === 0) {
      this.state = 'Empty';
      return;
    }
    this.generation++;
    this.state = 'CompletingRebalance';
    const members = [...this.members.values()];
    const strategies = members[0]!.consumer.strategies;
    const name = strategies.find((s) => members.every((m) => m.consumer.strategies.includes(s))) ?? 'range';
    const assignor = ASSIGNORS[name];
    if (!assignor) throw new Error(`unknown partition.assignment.strategy "${name}"`);
    this.protocol = name;
    const leader = members.slice().sort((a, b) => (a.memberId < b.memberId ? -1 : 1))[0]!;
    const generation = this.generation;
    this.emit('group.completing-rebalance', { generation, protocol: name, leader: leader.memberId });
    // The leader asks for the subscribed topics' metadata before it runs the assignor, then sends SyncGroup;
    // every member gets its part in the SyncGroup answer.
    const asked = this.sim.now;
    leader.consumer.consumer.refreshMetadata();
    const sync = () => {
      if (this.generation !== generation || this.state !== 'CompletingRebalance') return;
      // Wait for the answer (a refresh already in flight answers too), but not forever.
      if (leader.consumer.consumer.metadata.lastRefresh < asked && this.sim.now - asked < 1000) {
        leader.consumer.consumer.refreshMetadata();
        this.sim.schedule(this.rttMs, sync, 'local-group.leader-metadata');
        return;
      }
      {
        const partitionsPerTopic: Record<string, number> = {};
        for (const m of this.members.values())
          for (const t of m.consumer.topics) {
            const n = leader.consumer.partitionCount(t);
            if (n !== undefined) partitionsPerTopic[t] = n;
          }
        const result = assignor.assign({
          partitionsPerTopic,
          members: [...this.members.values()].map((m) => ({
            memberId: m.memberId,
            topics: [...m.consumer.topics],
          })),
        });
        this.state = 'Stable';
        this.emit('group.stable', { generation });
        for (const m of this.members.values()) {
          m.assignment = result[m.memberId] ?? [];
          if (!m.dead) m.consumer.assigned(generation, m.assignment, partitionsPerTopic);
        }
      }
    };
    this.sim.schedule(this.rttMs, sync, 'local-group.sync');
  }

  /** OffsetCommit as the classic coordinator answers it; undefined = committed. */
  commit(memberId: string, generation: number, offsets: readonly CommitOffset[]): string | undefined {
    const m = this.members.get(memberId);
    if (generation < 0 && memberId === '') {
      if (this.state !== 'Empty') return 'UNKNOWN_MEMBER_ID';
    } else {
      if (!m) return 'UNKNOWN_MEMBER_ID';
      if (this.state === 'CompletingRebalance') return 'REBALANCE_IN_PROGRESS';
      if (generation !== this.generation) return 'ILLEGAL_GENERATION';
    }
    for (const o of offsets) this.committed.set(`${o.topic}\u0000${o.partition}`, o);
    return undefined;
  }

  committedOffset(topic: string, partition: number): number | undefined {
    return this.committed.get(`${topic}\u0000${partition}`)?.offset;
  }

  describe(): LocalGroupDescription {
    return {
      groupId: this.groupId,
      state: this.state,
      generation: this.generation,
      protocol: this.state === 'Stable' ? this.protocol : '',
      members: [...this.members.values()]
        .filter((m) => !m.dead || this.state === 'Stable')
        .map((m) => ({ memberId: m.memberId, clientId: m.consumer.clientId, assignment: m.assignment })),
      committed: [...this.committed.values()].map((o) => ({ ...o })),
    };
  }

  private emit(kind: string, fields: Record<string, unknown>): void {
    this.sim.trace.emit(kind, `group/${this.groupId}`, fields);
  }
}

export interface LocalGroupConsumerOptions {
  clientId: string;
  topic: string;
  bootstrap: string[];
  /** partition.assignment.strategy, in order of preference. Default ['range', 'roundrobin'] (librdkafka). */
  strategies?: string[];
  /** topic.metadata.refresh.interval.ms: how often the member checks the topic's partition count. */
  metadataRefreshMs?: number;
  /** Consumer settings (auto.offset.reset, fetch.*); the sink sets earliest. */
  config?: ConsumerConfigInput;
}

/** A sink consumer: an assign-mode consumer whose assignment comes from a LocalGroup. */
export class LocalGroupConsumer implements SinkConsumer {
  readonly clientId: string;
  readonly topics: readonly string[];
  readonly strategies: readonly string[];
  readonly consumer: Consumer;
  memberId = '';
  generation = -1;
  private readonly fetched = new FetchQueue();
  private rebalanceListener: ((e: RebalanceEvent) => void) | undefined;
  private manualRevoke = false;
  private partitions: TopicPartition[] = [];
  private knownPartitionCount: number | undefined;
  private readonly refreshMs: number;
  private started = false;

  constructor(
    private readonly group: LocalGroup,
    options: LocalGroupConsumerOptions,
  ) {
    this.clientId = options.clientId;
    this.topics = [options.topic];
    this.strategies = options.strategies ?? ['range', 'roundrobin'];
    this.refreshMs = options.metadataRefreshMs ?? 300_000;
    this.consumer = new Consumer(group.sim, options.clientId, {
      flavour: 'librdkafka',
      bootstrap: options.bootstrap,
      config: { 'topic.metadata.refresh.interval.ms': this.refreshMs, ...options.config },
    });
    this.consumer.onRecords((c) => this.fetched.add(c));
  }

  partitionCount(topic: string): number | undefined {
    return this.consumer.metadata.partitionCount(topic);
  }

  start(): void {
    if (!this.consumer.up) this.consumer.start();
    this.started = true;
    this.memberId = this.group.newMemberId(this.clientId);
    this.generation = -1;
    this.knownPartitionCount = undefined;
    // JoinGroup once the first metadata answer says the topic exists.
    const tryJoin = () => {
      if (!this.consumer.up) return;
      const n = this.partitionCount(this.topics[0]!);
      if (n === undefined) {
        this.consumer.schedule(100, tryJoin, 'local-group.wait-topic');
        return;
      }
      this.knownPartitionCount = n;
      this.consumer.schedule(this.group.rttMs, () => this.group.join(this), 'local-group.join');
    };
    this.consumer.schedule(0, tryJoin, 'local-group.start');
    // librdkafka compares partition counts on every metadata refresh; the check runs just after the refresh.
    this.consumer.every(
      this.refreshMs,
      () => {
        const n = this.partitionCount(this.topics[0]!);
        if (n !== undefined && this.knownPartitionCount !== undefined && n !== this.knownPartitionCount) {
          this.knownPartitionCount = n;
          this.consumer.emit('consumer.metadata-changed', { topic: this.topics[0], partitions: n });
          this.group.requestRebalance(`metadata for ${this.topics[0]} changed (${n} partitions)`);
        }
      },
      'local-group.metadata-check',
      this.refreshMs + 50,
    );
  }

  close(): void {
    if (!this.started) return;
    this.started = false;
    this.revokeLocally();
    this.group.leave(this.memberId);
    this.consumer.stop();
  }

  crash(): void {
    if (!this.started) return;
    this.started = false;
    this.partitions = [];
    this.fetched.drop();
    this.group.memberDied(this.memberId);
    this.consumer.crash();
  }

  get queued(): number {
    return this.fetched.queued;
  }

  onReadable(listener: () => void): void {
    this.fetched.onReadable(listener);
  }

  poll(max: number): MessageSlice[] {
    return this.fetched.poll(max);
  }

  commit(offsets: readonly CommitOffset[], done: (error: string | undefined) => void): void {
    const memberId = this.memberId;
    const generation = this.generation;
    const incarnation = this.consumer.incarnation;
    this.group.sim.schedule(
      this.group.rttMs,
      () => {
        if (!this.consumer.up || this.consumer.incarnation !== incarnation) return;
        done(this.group.commit(memberId, generation, offsets));
      },
      'local-group.commit',
    );
  }

  onRebalance(listener: (event: RebalanceEvent) => void, options: { manualRevoke: boolean }): void {
    this.rebalanceListener = listener;
    this.manualRevoke = options.manualRevoke;
  }

  assignment(): TopicPartition[] {
    return this.partitions.slice();
  }

  /** The coordinator started a rebalance: revoke everything (eager), then rejoin. */
  revokeAndRejoin(): void {
    const revoked = this.partitions.slice();
    const rejoin = () => {
      if (!this.started) return;
      this.consumer.schedule(this.group.rttMs, () => this.group.join(this), 'local-group.rejoin');
    };
    if (this.manualRevoke && revoked.length > 0) {
      let released = false;
      this.rebalanceListener?.({
        type: 'revoked',
        partitions: revoked,
        release: () => {
          if (released) return;
          released = true;
          this.revokeLocally();
          rejoin();
        },
      });
      return;
    }
    this.revokeLocally();
    if (revoked.length > 0)
      this.rebalanceListener?.({ type: 'revoked', partitions: revoked, release: () => undefined });
    rejoin();
  }

  /**
   * SyncGroup's answer: the new assignment, positions from committed offsets (OffsetFetch). The partition
   * counts the leader assigned from become the member's reference for its metadata check.
   */
  assigned(
    generation: number,
    partitions: readonly TopicPartition[],
    partitionCounts: Readonly<Record<string, number>>,
  ): void {
    if (!this.started) return;
    const n = partitionCounts[this.topics[0]!];
    if (n !== undefined) this.knownPartitionCount = n;
    this.consumer.schedule(
      this.group.rttMs,
      () => {
        this.generation = generation;
        this.partitions = partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
        this.consumer.assign(this.partitions);
        for (const p of this.partitions) {
          const committed = this.group.committedOffset(p.topic, p.partition);
          if (committed !== undefined) this.consumer.seek(p, committed);
        }
        this.rebalanceListener?.({ type: 'assigned', partitions: this.partitions.slice() });
      },
      'local-group.offset-fetch',
    );
  }

  private revokeLocally(): void {
    this.partitions = [];
    if (this.consumer.up) this.consumer.assign([]);
    this.fetched.drop();
  }
}

/**
 * The ingest service's `consumers` option for a test: every worker an assign-mode consumer in one stand-in
 * group (created with the first worker, named by the service's KafkaConsumerGroup). `group()` returns it.
 */
export function localGroupConsumers(
  sim: Simulation,
  bootstrap: NodeId[],
): { factory: SinkConsumerFactory; group: () => LocalGroup } {
  let group: LocalGroup | undefined;
  const factory: SinkConsumerFactory = (_i, clientId, svc) => {
    group ??= new LocalGroup(sim, { groupId: svc.config.KafkaConsumerGroup });
    return new LocalGroupConsumer(group, {
      clientId,
      topic: svc.config.kafkaTopic,
      bootstrap,
      strategies: svc.config.partitionAssignmentStrategy.split(',').map((s) => s.trim()),
      metadataRefreshMs: svc.config.topicMetadataRefreshIntervalMs,
      config: svc.consumerConfig(),
    });
  };
  return {
    factory,
    group: () => {
      if (!group) throw new Error('no worker has started: the stand-in group does not exist yet');
      return group;
    },
  };
}
