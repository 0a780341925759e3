// The group coordinator of one broker, mirroring Kafka's GroupCoordinator interface as GroupCoordinatorService
// implements it (with the load and unload CoordinatorRuntime does on leader election). A group belongs to the
// __consumer_offsets partition abs(groupId.hashCode) % offsets.topic.num.partitions, and its coordinator is
// whichever broker leads that partition: this one keeps a GroupCoordinatorShard (coordinator-shard.ts) for every
// partition it leads, loads it from the partition's log when it becomes leader (COORDINATOR_LOAD_IN_PROGRESS
// meanwhile), and drops it when it stops leading (requests then get NOT_COORDINATOR and clients find the new
// coordinator). A request about one group goes to its partition's shard, which hands it to the shard's
// GroupMetadataManager (membership, both protocols, conversions) or OffsetMetadataManager (offset commits and
// fetches). The shards' records are appended to their partition like an acks=all produce, so they survive a
// coordinator failure as well as the partition does. FindCoordinator is answered by any broker from its metadata
// image; the first one creates __consumer_offsets through the controller, as Kafka's KafkaApis does (answering
// COORDINATOR_NOT_AVAILABLE until it exists); DescribeGroups, ConsumerGroupDescribe and ListGroups read every
// shard (coordinator-views.ts).
// Facts: GroupCoordinatorConfig (defaults), Errors.java (errors); KafkaApis.handleFindCoordinator,
// GroupCoordinatorService.partitionFor, CoordinatorRuntime (scheduleLoadOperation, scheduleUnloadOperation).

import type { Actor, AnyActorLogic } from 'xstate';
import type { MetadataImage } from '../metadata/index.ts';
import {
  type CreatableTopic,
  type ErrorName,
  Errors,
  type FindCoordinatorResponse,
  type GroupRequest,
  OFFSETS_TOPIC,
} from '../protocol/index.ts';
import type { RandomStream, Timer } from '../sim/index.ts';
import type { PartitionLog, ProducerBatchData, RecordData, StorageMode } from '../storage/index.ts';
import type { ClassicGroup } from './classic-group.ts';
import { type GroupCoordinatorConfig, groupCoordinatorConfig } from './config.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import { type ConsumerGroupConfig, consumerGroupConfig } from './consumer-group-config.ts';
import { errorResponse } from './coordinator-answers.ts';
import { GroupCoordinatorShard } from './coordinator-shard.ts';
import { consumerGroupDescribe, describeGroups, type HostedGroups, listGroups } from './coordinator-views.ts';
import { coordinatorNotFound, findCoordinator, offsetsTopic } from './find-coordinator.ts';
import { recordBytes } from './offsets-records.ts';
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

const code = (name: ErrorName) => Errors[name].code;

export class GroupCoordinator {
  config: GroupCoordinatorConfig;
  consumerConfig: ConsumerGroupConfig;
  /** __consumer_offsets partition → its shard, for the partitions this broker leads. */
  private shards = new Map<number, GroupCoordinatorShard>();
  private creatingTopic = false;

  constructor(
    private readonly broker: CoordinatorBroker,
    private readonly io: CoordinatorIo,
  ) {
    this.config = this.resolveConfig();
    this.consumerConfig = consumerGroupConfig(this.broker.staticConfigs);
  }

  private resolveConfig(): GroupCoordinatorConfig {
    return groupCoordinatorConfig(this.broker.staticConfigs, {
      'offsets.topic.num.partitions': this.broker.config['offsets.topic.num.partitions'],
    });
  }

  /** The broker (re)started: coordinator state is volatile, the logs are not. */
  reset(): void {
    for (const shard of this.shards.values()) shard.drop();
    this.shards = new Map();
    this.creatingTopic = false;
    this.config = this.resolveConfig();
    this.consumerConfig = consumerGroupConfig(this.broker.staticConfigs);
  }

  /** What the coordinator's views read (coordinator-views.ts). */
  private readonly hosted: HostedGroups = {
    lookup: (groupId) => this.shards.get(this.partitionFor(groupId)),
    groups: () => this.groups(),
    consumerGroups: () => this.consumerGroups(),
    image: () => this.broker.image,
  };

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.config['offsets.topic.num.partitions']);
  }

  /** The shard of a group's partition once it is loaded. */
  private loadedShard(groupId: string): GroupCoordinatorShard | undefined {
    const shard = this.shards.get(this.partitionFor(groupId));
    return shard && !shard.loading ? shard : undefined;
  }

  /** The groups this broker coordinates now (loaded partitions only). */
  groups(): ClassicGroup[] {
    const out: ClassicGroup[] = [];
    for (const shard of this.shards.values()) if (!shard.loading) out.push(...shard.groups.values());
    return out;
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.loadedShard(groupId)?.groups.get(groupId);
  }

  /** The consumer-protocol groups this broker coordinates now. */
  consumerGroups(): ConsumerGroup[] {
    const out: ConsumerGroup[] = [];
    for (const shard of this.shards.values()) if (!shard.loading) out.push(...shard.consumerGroups.values());
    return out;
  }

  consumerGroup(groupId: string): ConsumerGroup | undefined {
    return this.loadedShard(groupId)?.consumerGroups.get(groupId);
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
    for (const shard of this.shards.values())
      if (!shard.loading) shard.groupMetadataManager.onNewMetadataImage(changed);
  }

  /** Committed offsets of a group on this coordinator (`topic\u0000partition` → offset). */
  committedOffsets(groupId: string): ReadonlyMap<string, number> | undefined {
    return this.shards.get(this.partitionFor(groupId))?.offsetMetadataManager.committedOffsets(groupId);
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
    const current = this.shards.get(partition);
    if (role !== 'leader' && role !== 'opening') {
      if (!current) return;
      this.shards.delete(partition);
      current.unload();
      this.broker.emit('group.coordinator-unloaded', { partition, groups: current.groups.size });
      return;
    }
    if (current && current.leaderEpoch === leaderEpoch) {
      if (role === 'leader' && current.loading) this.load(current, log);
      return;
    }
    current?.unload();
    const shard = new GroupCoordinatorShard(partition, leaderEpoch, {
      broker: this.broker,
      config: this.config,
      consumerConfig: this.consumerConfig,
      write: (records, done) => this.append(partition, records, done),
    });
    this.shards.set(partition, shard);
    if (role === 'leader') this.load(shard, log);
  }

  /** Loading is a scheduled step: requests that arrive in between get COORDINATOR_LOAD_IN_PROGRESS. */
  private load(shard: GroupCoordinatorShard, log: PartitionLog): void {
    this.broker.schedule(
      0,
      () => {
        if (!shard.active || !shard.loading) return;
        shard.replay(log.allBatches());
        this.broker.emit('group.coordinator-loaded', {
          partition: shard.partition,
          leaderEpoch: shard.leaderEpoch,
          groups: shard.groups.size,
          ...(shard.consumerGroups.size > 0 ? { consumerGroups: shard.consumerGroups.size } : {}),
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
        return done(describeGroups(this.hosted, req.groups));
      case 'ConsumerGroupDescribe':
        return done(consumerGroupDescribe(this.hosted, req.groupIds));
      case 'ListGroups':
        return done(listGroups(this.hosted));
      default:
        break;
    }
    const shard = this.shards.get(this.partitionFor(req.groupId));
    const error: ErrorName | undefined =
      req.groupId === ''
        ? 'INVALID_GROUP_ID'
        : !shard
          ? 'NOT_COORDINATOR'
          : shard.loading
            ? 'COORDINATOR_LOAD_IN_PROGRESS'
            : undefined;
    if (error !== undefined) return done(errorResponse(req, code(error)));
    shard!.handle(req, done);
  }

  private findCoordinator(groupId: string): FindCoordinatorResponse {
    const answer = findCoordinator(this.broker.image, groupId, (id) => this.partitionFor(id));
    if (answer === 'NO_OFFSETS_TOPIC') {
      this.maybeCreateOffsetsTopic();
      return coordinatorNotFound(code('COORDINATOR_NOT_AVAILABLE'));
    }
    return answer;
  }

  private maybeCreateOffsetsTopic(): void {
    if (this.creatingTopic) return;
    this.creatingTopic = true;
    const topic = offsetsTopic(
      this.config,
      this.broker.storageMode,
      Object.keys(this.broker.image.brokers).length,
    );
    this.broker.emit('group.create-offsets-topic', {
      partitions: topic.numPartitions,
      replicationFactor: topic.replicationFactor,
    });
    // Created, already there, or failed: either way the next FindCoordinator looks again.
    this.io.createTopic(topic, () => {
      this.creatingTopic = false;
    });
  }

  /** A shard's records, appended to its partition as one batch (CoordinatorRuntime's write of a result's records). */
  private append(partition: number, records: RecordData[], done: (errorCode: number) => void): void {
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
    this.io.append(partition, batch, this.config['offsets.commit.timeout.ms'], done);
  }
}
