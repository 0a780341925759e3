// The group coordinator of one broker. A group belongs to the __consumer_offsets partition
// abs(groupId.hashCode) % offsets.topic.num.partitions, and its coordinator is whichever broker leads that
// partition: this one serves the groups of the partitions it leads, loads them from the partition's log when it
// becomes leader (COORDINATOR_LOAD_IN_PROGRESS meanwhile), and drops them when it stops leading (requests then
// get NOT_COORDINATOR and clients find the new coordinator). Offsets and group metadata are appended to the
// partition like an acks=all produce, so they survive a coordinator failure as well as the partition does.
// FindCoordinator is answered by any broker from its metadata image; the first one creates __consumer_offsets
// through the controller, as Kafka's KafkaApis does (answering COORDINATOR_NOT_AVAILABLE until it exists).
// Facts: GroupCoordinatorConfig (defaults), Errors.java (errors); KafkaApis.handleFindCoordinator,
// GroupCoordinatorService.partitionFor, CoordinatorRuntime load/unload on leader election.

import type { Actor, AnyActorLogic } from 'xstate';
import type { MetadataImage } from '../metadata/index.ts';
import {
  type ConsumerGroupDescribeResponse,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type CreatableTopic,
  type DescribeGroupsResponse,
  type ErrorName,
  Errors,
  type FindCoordinatorResponse,
  type GroupRequest,
  type JoinGroupRequest,
  type ListGroupsResponse,
  OFFSETS_TOPIC,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
} from '../protocol/index.ts';
import type { RandomStream, Timer } from '../sim/index.ts';
import type { PartitionLog, ProducerBatchData, RecordData, StorageMode } from '../storage/index.ts';
import { ClassicGroup, type GroupHost } from './classic-group.ts';
import { type GroupCoordinatorConfig, groupCoordinatorConfig } from './config.ts';
import { ConsumerGroup, type ConsumerGroupHost } from './consumer-group.ts';
import { type ConsumerGroupConfig, consumerGroupConfig } from './consumer-group-config.ts';
import { describeConsumerGroup } from './consumer-group-describe.ts';
import { HeartbeatError, heartbeatErrorResponse, validateHeartbeat } from './consumer-group-heartbeat.ts';
import { commitErrorOf, consumerGroupCommitDecision, errorResponse } from './coordinator-answers.ts';
import { offsetCommitDecision } from './group-state.ts';
import { uuid } from './member-id.ts';
import {
  groupMetadataRecord,
  offsetCommitRecord,
  offsetKey,
  recordBytes,
  replayOffsetsLog,
} from './offsets-records.ts';
import { partitionForGroup } from './protocol-selection.ts';

/** What the coordinator uses of its broker (a SimNode with a metadata image). */
export interface CoordinatorBroker {
  readonly brokerId: number;
  readonly storageMode: StorageMode;
  readonly staticConfigs: Readonly<Record<string, string>>;
  readonly config: { readonly 'offsets.topic.num.partitions': number };
  readonly image: MetadataImage;
  readonly sim: { readonly now: number };
  schedule(delay: number, fn: () => void, label?: string): Timer;
  spawn<L extends AnyActorLogic>(logic: L, options?: { input?: unknown }): Actor<L>;
  emit(kind: string, fields?: Record<string, unknown>): void;
  random(name: string): RandomStream;
}

/** The broker's own paths the coordinator writes through. */
export interface CoordinatorIo {
  /** CreateTopics through the controller; `done` gets the topic's error code (-1 when no answer). */
  createTopic(topic: CreatableTopic, done: (errorCode: number) => void): void;
  /** Appends to a __consumer_offsets partition this broker leads, acks=all; `done` gets the error code. */
  append(
    partition: number,
    batch: ProducerBatchData,
    timeoutMs: number,
    done: (errorCode: number) => void,
  ): void;
}

interface OffsetsPartition {
  readonly partition: number;
  readonly leaderEpoch: number;
  loading: boolean;
  readonly groups: Map<string, ClassicGroup>;
  /** Consumer-protocol groups (KIP-848); a group id is in at most one of the two maps. */
  readonly consumerGroups: Map<string, ConsumerGroup>;
  /** groupId → (`topic\u0000partition` → committed offset). */
  readonly offsets: Map<string, Map<string, number>>;
}

const code = (name: ErrorName) => Errors[name].code;

export class GroupCoordinator {
  config: GroupCoordinatorConfig;
  consumerConfig: ConsumerGroupConfig;
  private partitions = new Map<number, OffsetsPartition>();
  private creatingTopic = false;
  private groupHost: GroupHost;

  constructor(
    private readonly broker: CoordinatorBroker,
    private readonly io: CoordinatorIo,
  ) {
    this.config = this.resolveConfig();
    this.consumerConfig = consumerGroupConfig(this.broker.staticConfigs);
    this.groupHost = this.makeGroupHost();
    this.consumerGroupHost = this.makeConsumerGroupHost();
  }

  private consumerGroupHost: ConsumerGroupHost;

  private makeConsumerGroupHost(): ConsumerGroupHost {
    const broker = this.broker;
    return {
      consumerConfig: this.consumerConfig,
      now: () => broker.sim.now,
      schedule: (delay, fn, label) => broker.schedule(delay, fn, label),
      emit: (kind, fields) => broker.emit(kind, fields),
      newMemberId: () => uuid(broker.random('group-coordinator/member-id')),
      image: () => broker.image,
    };
  }

  private makeGroupHost(): GroupHost {
    const broker = this.broker;
    return {
      config: this.config,
      now: () => broker.sim.now,
      schedule: (delay, fn, label) => broker.schedule(delay, fn, label),
      spawn: (logic, input) => broker.spawn(logic, { input }),
      emit: (kind, fields) => broker.emit(kind, fields),
      newMemberId: (clientId) => `${clientId}-${uuid(broker.random('group-coordinator/member-id'))}`,
      storeGroup: (group, done) => this.storeGroup(group, done),
    };
  }

  private resolveConfig(): GroupCoordinatorConfig {
    return groupCoordinatorConfig(this.broker.staticConfigs, {
      'offsets.topic.num.partitions': this.broker.config['offsets.topic.num.partitions'],
    });
  }

  /** The broker (re)started: coordinator state is volatile, the logs are not. */
  reset(): void {
    this.partitions = new Map();
    this.creatingTopic = false;
    this.config = this.resolveConfig();
    this.consumerConfig = consumerGroupConfig(this.broker.staticConfigs);
    this.groupHost = this.makeGroupHost();
    this.consumerGroupHost = this.makeConsumerGroupHost();
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.config['offsets.topic.num.partitions']);
  }

  /** The groups this broker coordinates now (loaded partitions only). */
  groups(): ClassicGroup[] {
    const out: ClassicGroup[] = [];
    for (const p of this.partitions.values()) if (!p.loading) out.push(...p.groups.values());
    return out;
  }

  group(groupId: string): ClassicGroup | undefined {
    const p = this.partitions.get(this.partitionFor(groupId));
    return p && !p.loading ? p.groups.get(groupId) : undefined;
  }

  /** The consumer-protocol groups this broker coordinates now. */
  consumerGroups(): ConsumerGroup[] {
    const out: ConsumerGroup[] = [];
    for (const p of this.partitions.values()) if (!p.loading) out.push(...p.consumerGroups.values());
    return out;
  }

  consumerGroup(groupId: string): ConsumerGroup | undefined {
    const p = this.partitions.get(this.partitionFor(groupId));
    return p && !p.loading ? p.consumerGroups.get(groupId) : undefined;
  }

  /**
   * The broker replayed metadata (GroupMetadataManager.onNewMetadataImage): consumer groups subscribed to a topic
   * that changed (partitions added, created, deleted) refresh their metadata at their next heartbeat.
   */
  onMetadataImage(before: MetadataImage, after: MetadataImage): void {
    if (before.topics === after.topics) return;
    const changed: string[] = [];
    for (const name in after.topics) if (before.topics[name] !== after.topics[name]) changed.push(name);
    for (const name in before.topics) if (!(name in after.topics)) changed.push(name);
    if (changed.length === 0) return;
    for (const g of this.consumerGroups()) g.onTopicsChanged(changed);
  }

  /** Committed offsets of a group on this coordinator (`topic\u0000partition` → offset). */
  committedOffsets(groupId: string): ReadonlyMap<string, number> | undefined {
    return this.partitions.get(this.partitionFor(groupId))?.offsets.get(groupId);
  }

  // ---- leadership of __consumer_offsets partitions -------------------------------------------------------

  /**
   * Called by the broker whenever its role for a partition changes. 'opening' (shared storage: the new leader
   * opens the partition before it serves) counts as loading.
   */
  onPartitionRole(
    topic: string,
    partition: number,
    role: 'leader' | 'opening' | 'follower' | 'offline',
    leaderEpoch: number,
    log: PartitionLog,
  ): void {
    if (topic !== OFFSETS_TOPIC) return;
    const current = this.partitions.get(partition);
    if (role !== 'leader' && role !== 'opening') {
      if (!current) return;
      this.partitions.delete(partition);
      for (const g of current.groups.values()) g.unload();
      for (const g of current.consumerGroups.values()) g.unload();
      this.broker.emit('group.coordinator-unloaded', { partition, groups: current.groups.size });
      return;
    }
    if (current && current.leaderEpoch === leaderEpoch) {
      if (role === 'leader' && current.loading) this.load(current, log);
      return;
    }
    if (current) for (const g of [...current.groups.values(), ...current.consumerGroups.values()]) g.unload();
    const p: OffsetsPartition = {
      partition,
      leaderEpoch,
      loading: true,
      groups: new Map(),
      consumerGroups: new Map(),
      offsets: new Map(),
    };
    this.partitions.set(partition, p);
    if (role === 'leader') this.load(p, log);
  }

  /** Loading is a scheduled step: requests that arrive in between get COORDINATOR_LOAD_IN_PROGRESS. */
  private load(p: OffsetsPartition, log: PartitionLog): void {
    this.broker.schedule(
      0,
      () => {
        if (this.partitions.get(p.partition) !== p || !p.loading) return;
        for (const [groupId, loaded] of replayOffsetsLog(log.allBatches())) {
          if (loaded.offsets.size > 0) p.offsets.set(groupId, loaded.offsets);
          p.groups.set(groupId, new ClassicGroup(groupId, this.groupHost, loaded.metadata));
        }
        p.loading = false;
        this.broker.emit('group.coordinator-loaded', {
          partition: p.partition,
          leaderEpoch: p.leaderEpoch,
          groups: p.groups.size,
        });
      },
      'group.coordinator-load',
    );
  }

  // ---- requests ------------------------------------------------------------------------------------------

  handle(req: GroupRequest, done: (response: unknown) => void): void {
    switch (req.type) {
      case 'FindCoordinator':
        return done(this.findCoordinator(req.key));
      case 'DescribeGroups':
        return done(this.describeGroups(req.groups));
      case 'ConsumerGroupDescribe':
        return done(this.consumerGroupDescribe(req.groupIds));
      case 'ListGroups':
        return done(this.listGroups());
      default:
        break;
    }
    const p = this.partitions.get(this.partitionFor(req.groupId));
    const error: ErrorName | undefined =
      req.groupId === ''
        ? 'INVALID_GROUP_ID'
        : !p
          ? 'NOT_COORDINATOR'
          : p.loading
            ? 'COORDINATOR_LOAD_IN_PROGRESS'
            : undefined;
    if (error !== undefined) return done(errorResponse(req, code(error)));
    const part = p!;
    switch (req.type) {
      case 'JoinGroup':
        return this.joinGroup(part, req, done);
      case 'ConsumerGroupHeartbeat':
        return done(this.consumerGroupHeartbeat(part, req));
      case 'SyncGroup': {
        const g = part.groups.get(req.groupId);
        if (!g) return done({ errorCode: code('UNKNOWN_MEMBER_ID'), protocolName: null, assignment: [] });
        return g.sync(req, done);
      }
      case 'Heartbeat': {
        const g = part.groups.get(req.groupId);
        return done(g ? g.heartbeat(req) : { errorCode: code('UNKNOWN_MEMBER_ID') });
      }
      case 'LeaveGroup': {
        const g = part.groups.get(req.groupId);
        if (!g)
          return done({
            errorCode: 0,
            members: req.members.map((m) => ({ memberId: m.memberId, errorCode: code('UNKNOWN_MEMBER_ID') })),
          });
        return done(g.leave(req));
      }
      case 'OffsetCommit':
        return this.offsetCommit(part, req, done);
      case 'OffsetFetch':
        return done(this.offsetFetch(part, req));
    }
  }

  private findCoordinator(groupId: string): FindCoordinatorResponse {
    const none = (errorCode: number): FindCoordinatorResponse => ({
      errorCode,
      nodeId: -1,
      host: '',
      port: -1,
    });
    if (groupId === '') return none(code('INVALID_GROUP_ID'));
    const topic = this.broker.image.topics[OFFSETS_TOPIC];
    if (!topic) {
      this.maybeCreateOffsetsTopic();
      return none(code('COORDINATOR_NOT_AVAILABLE'));
    }
    const reg = topic.partitions[this.partitionFor(groupId)];
    const leader = reg && reg.leader >= 0 ? this.broker.image.brokers[reg.leader] : undefined;
    if (!leader || leader.fenced) return none(code('COORDINATOR_NOT_AVAILABLE'));
    return { errorCode: 0, nodeId: leader.brokerId, host: leader.host, port: leader.port };
  }

  /**
   * Kafka creates __consumer_offsets on the first FindCoordinator (offsets.topic.num.partitions,
   * offsets.topic.replication.factor, compacted). Shared storage (AutoMQ) has one replica per partition. In
   * kafka mode the factor is capped at the number of registered brokers: real Kafka refuses to create it with
   * fewer live brokers than offsets.topic.replication.factor, and groups then never find a coordinator; the
   * cap (as the brief for this model asks) keeps small test clusters usable.
   */
  private maybeCreateOffsetsTopic(): void {
    if (this.creatingTopic) return;
    this.creatingTopic = true;
    const brokers = Object.values(this.broker.image.brokers).length;
    const replicationFactor =
      this.broker.storageMode === 'shared'
        ? 1
        : Math.max(1, Math.min(this.config['offsets.topic.replication.factor'], brokers));
    this.broker.emit('group.create-offsets-topic', {
      partitions: this.config['offsets.topic.num.partitions'],
      replicationFactor,
    });
    this.io.createTopic(
      {
        name: OFFSETS_TOPIC,
        numPartitions: this.config['offsets.topic.num.partitions'],
        replicationFactor,
        configs: {
          'cleanup.policy': 'compact',
          'compression.type': 'producer',
          'segment.bytes': '104857600',
        },
      },
      () => {
        // Created, already there, or failed: either way the next FindCoordinator looks again.
        this.creatingTopic = false;
      },
    );
  }

  private joinGroup(p: OffsetsPartition, req: JoinGroupRequest, done: (r: unknown) => void): void {
    const fail = (name: ErrorName) =>
      done({
        errorCode: code(name),
        generationId: -1,
        protocolName: null,
        leader: '',
        memberId: req.memberId,
        members: [],
      });
    if (
      req.sessionTimeoutMs < this.config['group.min.session.timeout.ms'] ||
      req.sessionTimeoutMs > this.config['group.max.session.timeout.ms']
    )
      return fail('INVALID_SESSION_TIMEOUT');
    const consumerGroup = p.consumerGroups.get(req.groupId);
    if (consumerGroup) {
      // An empty consumer group becomes a classic one; classic members inside a non-empty consumer group (Kafka
      // 3.9's online migration) are not modelled: the join is refused as Kafka refused it before that.
      if (consumerGroup.members.size > 0) return fail('GROUP_ID_NOT_FOUND');
      consumerGroup.unload();
      p.consumerGroups.delete(req.groupId);
      this.broker.emit('group.converted', { group: req.groupId, from: 'consumer', to: 'classic' });
    }
    let g = p.groups.get(req.groupId);
    if (!g) {
      // Only a member without an id may create the group; a known id for an unknown group is stale.
      if (req.memberId !== '') return fail('UNKNOWN_MEMBER_ID');
      g = new ClassicGroup(req.groupId, this.groupHost);
      p.groups.set(req.groupId, g);
    }
    g.join(req, done);
  }

  private offsetCommit(
    p: OffsetsPartition,
    req: OffsetCommitRequest,
    done: (r: OffsetCommitResponse) => void,
  ): void {
    const answer = (errorCode: number) =>
      done({ partitions: req.offsets.map((o) => ({ topic: o.topic, partition: o.partition, errorCode })) });
    const consumerGroup = p.consumerGroups.get(req.groupId);
    if (consumerGroup) {
      const decision = consumerGroupCommitDecision(consumerGroup, req);
      if (decision !== 'NONE') return answer(code(decision));
      return this.storeOffsets(p, req, answer);
    }
    let g = p.groups.get(req.groupId);
    if (!g) {
      // A member's commit to a group the coordinator does not know (e.g. lost with an unreplicated log).
      if (req.generationId >= 0 || req.memberId !== '') return answer(code('ILLEGAL_GENERATION'));
      g = new ClassicGroup(req.groupId, this.groupHost);
      p.groups.set(req.groupId, g);
    }
    const member = g.members.get(req.memberId);
    const decision = offsetCommitDecision(g.state, req, {
      known: member !== undefined,
      generationMatches: req.generationId === g.generationId,
    });
    if (decision !== 'NONE') return answer(code(decision));
    if (member) g.touch(member.memberId);
    this.storeOffsets(p, req, answer);
  }

  private storeOffsets(
    p: OffsetsPartition,
    req: OffsetCommitRequest,
    answer: (errorCode: number) => void,
  ): void {
    if (req.offsets.length === 0) return answer(0);
    const records = req.offsets.map((o) => offsetCommitRecord(req.groupId, o.topic, o.partition, o.offset));
    this.append(p, records, (appendError) => {
      const errorCode = commitErrorOf(appendError);
      if (errorCode === 0 && this.partitions.get(p.partition) === p) {
        let offsets = p.offsets.get(req.groupId);
        if (!offsets) p.offsets.set(req.groupId, (offsets = new Map()));
        for (const o of req.offsets) offsets.set(offsetKey(o.topic, o.partition), o.offset);
      }
      answer(errorCode);
    });
  }

  private offsetFetch(p: OffsetsPartition, req: OffsetFetchRequest): OffsetFetchResponse {
    const offsets = p.offsets.get(req.groupId);
    const wanted =
      req.partitions ??
      [...(offsets?.keys() ?? [])].map((k) => {
        const i = k.lastIndexOf('\u0000');
        return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
      });
    return {
      errorCode: 0,
      partitions: wanted.map(({ topic, partition }) => ({
        topic,
        partition,
        offset: offsets?.get(offsetKey(topic, partition)) ?? -1,
        errorCode: 0,
      })),
    };
  }

  private describeGroups(groupIds: string[]): DescribeGroupsResponse {
    return {
      groups: groupIds.map((groupId) => {
        const p = this.partitions.get(this.partitionFor(groupId));
        const dead = (errorCode: number) => ({
          errorCode,
          groupId,
          groupState: 'Dead',
          protocolType: '',
          protocolData: '',
          members: [],
        });
        if (!p) return dead(code('NOT_COORDINATOR'));
        if (p.loading) return dead(code('COORDINATOR_LOAD_IN_PROGRESS'));
        return (p.groups.get(groupId) ?? p.consumerGroups.get(groupId))?.describe() ?? dead(0);
      }),
    };
  }

  private consumerGroupDescribe(groupIds: string[]): ConsumerGroupDescribeResponse {
    return {
      groups: groupIds.map((groupId) => {
        const p = this.partitions.get(this.partitionFor(groupId));
        const error = !p ? 'NOT_COORDINATOR' : p.loading ? 'COORDINATOR_LOAD_IN_PROGRESS' : undefined;
        if (error)
          return {
            ...describeConsumerGroup(groupId, undefined, this.broker.image),
            errorCode: code(error),
            errorMessage: null,
          };
        return describeConsumerGroup(groupId, p!.consumerGroups.get(groupId), this.broker.image);
      }),
    };
  }

  private listGroups(): ListGroupsResponse {
    const groups: ListGroupsResponse['groups'] = this.groups()
      .filter((g) => g.state !== 'Dead')
      .map((g) => ({
        groupId: g.groupId,
        protocolType: g.protocolType ?? '',
        groupState: g.state as string,
        groupType: 'classic',
      }));
    for (const g of this.consumerGroups())
      groups.push({
        groupId: g.groupId,
        protocolType: 'consumer',
        groupState: g.state,
        groupType: 'consumer',
      });
    return { errorCode: 0, groups };
  }

  /**
   * ConsumerGroupHeartbeat (GroupMetadataManager.consumerGroupHeartbeat / consumerGroupLeave): finds or creates the
   * group. An empty classic group (e.g. one that only holds committed offsets) becomes a consumer group; a
   * non-empty classic group is not converted online here (GROUP_ID_NOT_FOUND, as with the migration disabled).
   */
  private consumerGroupHeartbeat(
    p: OffsetsPartition,
    req: ConsumerGroupHeartbeatRequest,
  ): ConsumerGroupHeartbeatResponse {
    try {
      validateHeartbeat(req, this.consumerConfig);
    } catch (e) {
      if (e instanceof HeartbeatError) return heartbeatErrorResponse(e.errorName, e.message);
      throw e;
    }
    let group = p.consumerGroups.get(req.groupId);
    if (!group) {
      const classic = p.groups.get(req.groupId);
      if (req.memberEpoch !== 0) {
        // Kafka answers GROUP_ID_NOT_FOUND; kafkasim keeps no consumer group across a coordinator failover, so the
        // member is told it is unknown and rejoins (see consumer-group.ts, "Left out").
        return heartbeatErrorResponse(
          'UNKNOWN_MEMBER_ID',
          `Member ${req.memberId} is not a member of group ${req.groupId}.`,
        );
      }
      if (classic && classic.members.size > 0)
        return heartbeatErrorResponse('GROUP_ID_NOT_FOUND', `Group ${req.groupId} is not a consumer group`);
      if (classic) {
        classic.unload();
        p.groups.delete(req.groupId);
        this.broker.emit('group.converted', { group: req.groupId, from: 'classic', to: 'consumer' });
      }
      group = new ConsumerGroup(req.groupId, this.consumerGroupHost);
      p.consumerGroups.set(req.groupId, group);
    }
    return group.heartbeat(req);
  }

  // ---- writes to __consumer_offsets ------------------------------------------------------------------------

  private storeGroup(group: ClassicGroup, done: (errorCode: number) => void): void {
    const p = this.partitions.get(this.partitionFor(group.groupId));
    if (!p || p.groups.get(group.groupId) !== group) return done(code('NOT_COORDINATOR'));
    this.append(p, [groupMetadataRecord(group.groupId, group.toRecord())], (e) => done(commitErrorOf(e)));
  }

  private append(p: OffsetsPartition, records: RecordData[], done: (errorCode: number) => void): void {
    let bytes = 61; // the v2 batch header
    for (const r of records) bytes += recordBytes(r);
    const batch: ProducerBatchData = {
      count: records.length,
      bytes,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      origin: `broker-${this.broker.brokerId}/group-coordinator`,
      runs: [],
      records,
    };
    this.io.append(p.partition, batch, this.config['offsets.commit.timeout.ms'], done);
  }
}
