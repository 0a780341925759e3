// A broker: follows the metadata log into its own MetadataImage (so its view can be stale), leads and follows
// partition replicas, serves Produce, Fetch, Metadata, ListOffsets and DescribeConfigs, replicates by follower
// fetch, maintains the ISR and the high watermark, and registers and heartbeats with the controller.
//
// This file is the composition root; the parts are split as Kafka splits them:
//   partition-replica.ts   one replica: HW, ISR, acks waiters            (kafka.cluster.Partition)
//   replica-manager.ts     the hosted replicas, metadata deltas          (ReplicaManager.applyDelta)
//   delayed-produce.ts     appends and the acks=all wait                 (appendRecords, DelayedProduce)
//   read-from-log.ts       a fetch's per-partition reads                 (ReplicaManager.readFromLog)
//   fetch-purgatory.ts     fetches waiting for data                      (DelayedFetch)
//   fetch-session.ts       incremental fetch sessions (KIP-227)          (FetchSession, FetchSessionCache)
//   replica-fetcher.ts     the follower's fetch loops                    (AbstractFetcherThread)
//   lifecycle-manager.ts   registration, heartbeats, the metadata log    (BrokerLifecycleManager)
//   log-manager.ts         retention, segment configs                    (LogManager, UnifiedLog)
//   controller-channel.ts  requests to the active controller             (NodeToControllerChannelManager)
//   request-channel.ts     one request per connection at a time          (SocketServer, muted channels)
//   load-model.ts          load as latency on network in and out
//   kafka-apis.ts          the dispatcher                                (KafkaApis)
//   broker-core.ts         the narrow view of the broker every part takes
// The group coordinator each broker hosts is models/group's (GroupCoordinator), fed the __consumer_offsets roles.
// Beside the broker, not part of it: the data-plane invariants a harness runs over every broker (invariants.ts,
// acknowledged-in-isr.ts, invariant-state.ts, log-agreement.ts, over replica-view.ts and replica-table.ts).

import { GroupCoordinator } from '../group/index.ts';
import { emptyImage, type LogEntry, type MetadataImage, replayDelta } from '../metadata/index.ts';
import type { CreateTopicsResponse } from '../protocol/index.ts';
import { type BrokerRequest, brokerNodeId, OFFSETS_TOPIC } from '../protocol/index.ts';
import { type NodeId, type RequestOutcome, SimNode, type Simulation } from '../sim/index.ts';
import type { PartitionLog, SharedStorage, StorageMode } from '../storage/index.ts';
import type { BrokerCore } from './broker-core.ts';
import { type BrokerConfig, brokerDefaults } from './config.ts';
import { ControllerChannel } from './controller-channel.ts';
import { FetchPurgatory } from './fetch-purgatory.ts';
import { FetchSessionCache } from './fetch-session.ts';
import { KafkaApis } from './kafka-apis.ts';
import { BrokerLifecycleManager } from './lifecycle-manager.ts';
import { BrokerLoadModel } from './load-model.ts';
import { LogManager } from './log-manager.ts';
import type { PartitionReplica } from './partition-replica.ts';
import { LogReader } from './read-from-log.ts';
import { ReplicaFetcher } from './replica-fetcher.ts';
import { ReplicaManager } from './replica-manager.ts';
import type { BrokerView, LogView, ReplicaView, ReplicaWatcher } from './replica-view.ts';
import { RequestChannel } from './request-channel.ts';

export type { ReplicaRole } from './partition-replica.ts';
/** A partition replica hosted by a broker. */
export type Replica = PartitionReplica;

export interface BrokerOptions {
  brokerId: number;
  rack?: string | null;
  /** Controller node ids; the broker talks to the active one and moves on when told NOT_CONTROLLER. */
  controllers: NodeId[];
  storageMode: StorageMode;
  sharedStorage?: SharedStorage;
  config?: Partial<BrokerConfig>;
  /** Static broker configs as in server.properties (shown by describe when not default). */
  staticConfigs?: Record<string, string>;
}

const NO_REPLICAS: readonly ReplicaView[] = Object.freeze([]);

export class Broker extends SimNode implements BrokerCore, BrokerView {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly config: BrokerConfig;
  readonly storageMode: StorageMode;
  readonly staticConfigs: Record<string, string>;
  /** Serves the groups of the __consumer_offsets partitions this broker leads (models/group). */
  readonly groupCoordinator: GroupCoordinator;

  /** Hears of every change to a hosted replica (the data-plane invariants; BrokerView). */
  replicaWatcher: ReplicaWatcher | undefined = undefined;
  /** The metadata image replayed so far (volatile: rebuilt from the log at every start). */
  image: MetadataImage = emptyImage();
  /**
   * Whether this incarnation acts on the metadata it replays (leads, follows, deletes). A (re)started broker
   * replays the log from the start but hosts nothing until it has registered and its image has reached its own
   * RegisterBrokerRecord, as Kafka's BrokerServer waits for BrokerLifecycleManager's initial catch-up before its
   * metadata publishers apply the image to the ReplicaManager: the controller fences the previous incarnation
   * before it accepts the new registration, so a restarted broker never leads in its old epoch.
   */
  private published = false;
  private readonly sharedStorage: SharedStorage | undefined;
  private readonly controllerChannel: ControllerChannel;
  private readonly lifecycle: BrokerLifecycleManager;
  private readonly replicaManager: ReplicaManager;
  private readonly fetcher: ReplicaFetcher;
  private readonly purgatory: FetchPurgatory;
  private readonly sessions: FetchSessionCache;
  private readonly load: BrokerLoadModel;
  private readonly logManager: LogManager;
  private readonly channel: RequestChannel;
  private readonly apis: KafkaApis;

  constructor(sim: Simulation, options: BrokerOptions) {
    super(sim, brokerNodeId(options.brokerId));
    this.brokerId = options.brokerId;
    this.rack = options.rack ?? null;
    this.storageMode = options.storageMode;
    if (this.storageMode === 'shared' && !options.sharedStorage)
      throw new Error('shared storage mode needs a SharedStorage');
    this.config = { ...brokerDefaults, ...options.config };
    this.staticConfigs = { ...options.staticConfigs };
    this.controllerChannel = new ControllerChannel(this, options.controllers);
    this.lifecycle = new BrokerLifecycleManager(this, this.controllerChannel);
    this.sharedStorage = options.sharedStorage;
    this.replicaManager = new ReplicaManager(this, this.controllerChannel, options.sharedStorage, {
      brokerEpoch: () => this.lifecycle.brokerEpoch,
      localLogs: () => this.localLogs,
      wake: (key) => {
        this.purgatory.wake(key);
        this.sessions.mark(key, true);
      },
      follow: (r) => this.fetcher.follow(r),
      onPartitionChanged: (key) => this.sessions.mark(key, false),
      onRoleChange: (r) =>
        this.groupCoordinator.onPartitionRole(r.topic, r.partition, r.role, r.leaderEpoch, r.log),
      replicaChanged: (r) => {
        this.fetcher.changed(r);
        this.replicaWatcher?.replicaChanged(this, r);
      },
      configureLog: (topic, log) => this.logManager.configure(topic, log),
    });
    this.logManager = new LogManager(
      this,
      () => this.replicaManager.replicas.values(),
      (r) => this.replicaManager.wake(r.key),
    );
    this.fetcher = new ReplicaFetcher(this, this.replicaManager);
    const reader = new LogReader(this, this.replicaManager);
    this.purgatory = new FetchPurgatory(this, this.replicaManager, reader, (res, reply) =>
      this.apis.sendFetch(res, reply),
    );
    this.load = new BrokerLoadModel(this);
    this.sessions = new FetchSessionCache(
      this,
      this.replicaManager,
      reader,
      (res, reply) => this.apis.sendFetch(res, reply),
      () => this.random('fetch-session').int(1, 2 ** 31 - 1),
    );
    this.groupCoordinator = new GroupCoordinator(this, {
      createTopic: (topic, done) =>
        this.controllerChannel.send<CreateTopicsResponse>({ type: 'CreateTopics', topics: [topic] }, (r) =>
          done(r ? (r.topics[0]?.errorCode ?? -1) : -1),
        ),
      append: (partition, batch, timeoutMs, done) =>
        this.apis.handleProduce(
          {
            type: 'Produce',
            acks: -1,
            timeoutMs,
            clientId: 'group-coordinator',
            correlationId: 0,
            partitions: [{ topic: OFFSETS_TOPIC, partition, batch }],
          },
          (res) => done(res.partitions[0]!.errorCode),
        ),
    });
    this.apis = new KafkaApis(this, {
      replicaManager: this.replicaManager,
      reader,
      purgatory: this.purgatory,
      sessions: this.sessions,
      load: this.load,
      groupCoordinator: this.groupCoordinator,
    });
    this.channel = new RequestChannel(this, (req, done) => this.apis.handle(req, done));
  }

  /** The epoch the controller gave this broker's registration (-1 until registered). */
  get brokerEpoch(): number {
    return this.lifecycle.brokerEpoch;
  }

  /** Whether the controller last said this broker is fenced. */
  get fenced(): boolean {
    return this.lifecycle.fenced;
  }

  /** The replicas this broker hosts, by `topicId:partition`. */
  get replicas(): ReadonlyMap<string, Replica> {
    return this.replicaManager.replicas;
  }

  /** Local logs survive crashes (they are on disk). */
  private get localLogs(): Map<string, PartitionLog> {
    let logs = this.disk.get('logs') as Map<string, PartitionLog> | undefined;
    if (!logs) this.disk.set('logs', (logs = new Map()));
    return logs;
  }

  protected override onStart(): void {
    this.image = emptyImage();
    this.published = false;
    this.replicaManager.clear();
    this.channel.reset();
    this.purgatory.reset();
    this.sessions.reset();
    this.fetcher.reset();
    this.load.reset();
    this.groupCoordinator.reset();
    this.lifecycle.start();
    const lag = this.config['replica.lag.time.max.ms'];
    this.every(lag / 2, () => this.replicaManager.maybeShrinkIsr(), 'broker.isr-shrink-check');
    this.every(
      this.config['log.retention.check.interval.ms'],
      () => this.logManager.cleanupLogs(),
      'broker.log-retention-check',
      this.config['log.initial.task.delay.ms'],
    );
  }

  /** Replays committed metadata records and acts on what changed for this broker's replicas. */
  applyMetadata(entries: readonly LogEntry[]): void {
    const before = this.image;
    const { image: after, changedPartitions } = replayDelta(before, entries);
    this.image = after;
    this.groupCoordinator.onMetadataImage(before, after);
    if (this.published && before.configs.topic !== after.configs.topic) this.logManager.reconfigure();
    if (this.published) this.replicaManager.applyDelta(before, after, changedPartitions);
    else this.maybePublish();
  }

  onRegistered(): void {
    this.maybePublish();
  }

  /**
   * The first publish, once registered and caught up to the registration: the whole image is news. Logs on disk
   * of partitions this broker no longer hosts (deleted or moved away while it was down) are deleted, as Kafka's
   * first publish deletes stray logs.
   */
  private maybePublish(): void {
    if (this.published || this.brokerEpoch < 0 || this.image.offset < this.brokerEpoch) return;
    this.published = true;
    this.emit('broker.metadata-published', { offset: this.image.offset });
    if (this.storageMode === 'kafka') {
      const hosted = new Set<string>();
      for (const topic of Object.values(this.image.topics))
        topic.partitions.forEach((reg, p) => {
          if (reg.replicas.includes(this.brokerId)) hosted.add(`${topic.topicId}:${p}`);
        });
      for (const key of [...this.localLogs.keys()]) if (!hosted.has(key)) this.localLogs.delete(key);
    }
    this.replicaManager.applyDelta(emptyImage(), this.image);
  }

  protected override onRequest(
    from: NodeId,
    payload: unknown,
    reply: (response: unknown, sendDelayMs?: number) => void,
  ): void {
    this.channel.receive(from, payload, reply);
  }

  /** acks=0 produce requests arrive as one-way messages: processed in order, never answered. */
  protected override onMessage(from: NodeId, payload: unknown): void {
    if ((payload as BrokerRequest | undefined)?.type === 'Produce') this.onRequest(from, payload, () => {});
  }

  findReplica(topic: string, partition: number): Replica | undefined {
    return this.replicaManager.findReplica(topic, partition);
  }

  /** Network-in load in bytes/s as the broker sees it (EWMA, 1 s). */
  get networkInRate(): number {
    return this.load.networkInRate;
  }

  // ---- BrokerView: what the data-plane invariants read ----

  /** The replicas this broker hosts now (none while it is down). */
  hostedReplicas(): readonly ReplicaView[] {
    return this.up ? this.replicaManager.hostedList() : NO_REPLICAS;
  }

  /** The log this broker stores for a partition (on its disk, or in shared storage), running or not. */
  storedLog(topicId: string, partition: number): LogView | undefined {
    return this.storageMode === 'shared'
      ? this.sharedStorage!.get(topicId, partition)
      : (this.disk.get('logs') as Map<string, PartitionLog> | undefined)?.get(
          this.replicaManager.replicaKey(topicId, partition),
        );
  }

  /** The offset of the metadata this broker applied. */
  get metadataOffset(): number {
    return this.image.offset;
  }

  /** Partitions this broker currently leads and serves. */
  leaderReplicas(): Replica[] {
    return this.replicaManager.leaderReplicas();
  }
}

export type { RequestOutcome };
