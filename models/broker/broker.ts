// A broker: follows the metadata log into its own MetadataImage (so its view can be stale), leads and follows
// partition replicas, serves Produce, Fetch, Metadata, ListOffsets and DescribeConfigs, replicates by follower
// fetch, maintains the ISR and the high watermark, and registers and heartbeats with the controller.
//
// Requests from one connection are processed one at a time, in order, as Kafka's network layer does (a channel
// is muted from a request's arrival until its response is sent), which is what keeps an idempotent producer's
// pipelined batches in order.

import { GroupCoordinator } from '../group/index.ts';
import {
  describeTopicConfigs,
  effectiveTopicConfig,
  emptyImage,
  type LogEntry,
  type MetadataImage,
  type PartitionRegistration,
  replay,
  type TopicImage,
} from '../metadata/index.ts';
import {
  type AlterPartitionResponse,
  type BrokerHeartbeatResponse,
  type BrokerRegistrationResponse,
  type BrokerRequest,
  brokerNodeId,
  type ControllerRequest,
  type CreateTopicsResponse,
  type DescribeConfigsRequest,
  type DescribeConfigsResponse,
  type ElectLeadersResponse,
  Errors,
  type FetchPartitionResponse,
  type FetchRequest,
  type FetchResponse,
  isGroupRequest,
  type LeaderHint,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type MetadataFetchResponse,
  type MetadataRequest,
  type MetadataResponse,
  OFFSETS_TOPIC,
  type ProducePartitionResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import { type NodeId, type RequestOutcome, SimNode, type Simulation } from '../sim/index.ts';
import { PartitionLog, type RecordBatch, type SharedStorage, type StorageMode } from '../storage/index.ts';
import { type BrokerConfig, brokerDefaults } from './config.ts';

const NO_BATCHES: readonly RecordBatch[] = Object.freeze([]);

/** A fetch answer for one partition without data (an error, or a follower's diverging epoch). */
function errorAnswer(
  topic: string,
  partition: number,
  errorCode: number,
  highWatermark: number,
  logStartOffset: number,
): FetchPartitionResponse {
  return { topic, partition, errorCode, highWatermark, logStartOffset, batches: NO_BATCHES };
}

function batchBytes(batches: readonly RecordBatch[]): number {
  let bytes = 0;
  for (let i = 0; i < batches.length; i++) bytes += batches[i]!.bytes;
  return bytes;
}

/** Removes `item` keeping the order (splice would allocate the removed list on the fetch path). */
function removeFrom<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i < 0) return;
  for (let j = i + 1; j < list.length; j++) list[j - 1] = list[j]!;
  list.pop();
}

export type ReplicaRole = 'leader' | 'follower' | 'opening' | 'offline';

interface FollowerState {
  leo: number;
  lastCaughtUpTime: number;
  lastFetchTime: number;
  lastFetchLeaderLeo: number;
}

interface AckWaiter {
  requiredOffset: number;
  /** The topic's min.insync.replicas when the batch was appended. */
  minIsr: number;
  resolve: (errorCode: number) => void;
}

/** A partition replica hosted by this broker. */
export interface Replica {
  readonly key: string;
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  log: PartitionLog;
  role: ReplicaRole;
  leaderId: number;
  leaderEpoch: number;
  partitionEpoch: number;
  isr: number[];
  replicas: number[];
  followers: Map<number, FollowerState>;
  /** The ISR proposed by an AlterPartition in flight (KIP-497's pending state), undefined when none. */
  pendingIsr: number[] | undefined;
  waiters: AckWaiter[];
  /** Bytes in/out since the broker started leading it (for metrics). */
  bytesIn: number;
  bytesOut: number;
}

/**
 * A fetch waiting in the broker's purgatory (Kafka's DelayedFetch) until fetch.min.bytes are readable, an error
 * shows up, or fetch.max.wait.ms passes. `done` keeps a fetch woken twice in one event from answering twice.
 */
class ParkedFetch {
  timer: Timer | undefined;
  done = false;
  constructor(
    readonly req: FetchRequest,
    readonly keys: readonly string[],
    readonly reply: (response: FetchResponse, sendDelayMs?: number) => void,
  ) {}
}

interface Connection {
  queue: { payload: BrokerRequest; reply: (r: unknown, sendDelayMs?: number) => void }[];
  busy: boolean;
}

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

export class Broker extends SimNode {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly config: BrokerConfig;
  readonly storageMode: StorageMode;
  readonly staticConfigs: Record<string, string>;
  private readonly controllers: NodeId[];
  private readonly shared: SharedStorage | undefined;
  /** Serves the groups of the __consumer_offsets partitions this broker leads (models/group). */
  readonly groupCoordinator: GroupCoordinator;

  // ---- volatile state (rebuilt at every start) ----
  image: MetadataImage = emptyImage();
  brokerEpoch = -1;
  fenced = true;
  /**
   * Whether this incarnation acts on the metadata it replays (leads, follows, deletes). A (re)started broker
   * replays the log from the start but hosts nothing until it has registered and its image has reached its own
   * RegisterBrokerRecord, as Kafka's BrokerServer waits for BrokerLifecycleManager's initial catch-up before its
   * metadata publishers apply the image to the ReplicaManager: the controller fences the previous incarnation
   * before it accepts the new registration, so a restarted broker never leads in its old epoch.
   */
  private published = false;
  readonly replicas = new Map<string, Replica>();
  private controllerIndex = 0;
  private connections = new Map<NodeId, Connection>();
  /** Parked fetches per partition key, in the order they parked (wakes answer them in that order). */
  private parked = new Map<string, ParkedFetch[]>();
  private fetchers = new Map<number, boolean>();
  private inRate = 0;
  private inRateAt = 0;
  private inBusyUntil = 0;
  private outBusyUntil = 0;
  private wantShutDown = false;

  constructor(sim: Simulation, options: BrokerOptions) {
    super(sim, brokerNodeId(options.brokerId));
    this.brokerId = options.brokerId;
    this.rack = options.rack ?? null;
    this.controllers = options.controllers;
    this.storageMode = options.storageMode;
    this.shared = options.sharedStorage;
    if (this.storageMode === 'shared' && !this.shared)
      throw new Error('shared storage mode needs a SharedStorage');
    this.config = { ...brokerDefaults, ...options.config };
    this.staticConfigs = { ...options.staticConfigs };
    this.groupCoordinator = new GroupCoordinator(this, {
      createTopic: (topic, done) =>
        this.toController<CreateTopicsResponse>({ type: 'CreateTopics', topics: [topic] }, (r) =>
          done(r ? (r.topics[0]?.errorCode ?? -1) : -1),
        ),
      append: (partition, batch, timeoutMs, done) =>
        this.handleProduce(
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
  }

  /** Local logs survive crashes (they are on disk). */
  private get localLogs(): Map<string, PartitionLog> {
    let logs = this.disk.get('logs') as Map<string, PartitionLog> | undefined;
    if (!logs) this.disk.set('logs', (logs = new Map()));
    return logs;
  }

  protected override onStart(): void {
    this.image = emptyImage();
    this.brokerEpoch = -1;
    this.fenced = true;
    this.published = false;
    this.wantShutDown = false;
    this.replicas.clear();
    this.connections = new Map();
    this.parked = new Map();
    this.fetchers = new Map();
    this.inRate = 0;
    this.inBusyUntil = 0;
    this.outBusyUntil = 0;
    this.groupCoordinator.reset();
    this.register();
    this.fetchMetadata();
    const lag = this.config['replica.lag.time.max.ms'];
    this.every(lag / 2, () => this.maybeShrinkIsr(), 'broker.isr-shrink-check');
  }

  // ---- controller link ----------------------------------------------------------------------------------

  private get controller(): NodeId {
    return this.controllers[this.controllerIndex % this.controllers.length]!;
  }

  private toController<R>(req: ControllerRequest, cb: (r: R | undefined) => void): void {
    this.request<R & { errorCode?: number; controllerNodeId?: string }>(this.controller, req, (o) => {
      if (!o.ok) {
        this.controllerIndex++;
        return cb(undefined);
      }
      if (o.response.errorCode === Errors.NOT_CONTROLLER.code) {
        const hinted = o.response.controllerNodeId
          ? this.controllers.indexOf(o.response.controllerNodeId)
          : -1;
        this.controllerIndex = hinted >= 0 ? hinted : this.controllerIndex + 1;
        return cb(undefined);
      }
      cb(o.response);
    });
  }

  private register(): void {
    const incarnationId = `${this.id}-${this.incarnation}`;
    this.toController<BrokerRegistrationResponse>(
      {
        type: 'BrokerRegistration',
        brokerId: this.brokerId,
        incarnationId,
        rack: this.rack,
        host: this.config['kafkasim.host'],
        port: this.config['kafkasim.port'] + this.brokerId,
      },
      (r) => {
        if (!r || r.errorCode !== 0) {
          this.schedule(1000, () => this.register(), 'broker.register-retry');
          return;
        }
        this.brokerEpoch = r.brokerEpoch;
        this.emit('broker.registered', { brokerEpoch: r.brokerEpoch });
        this.maybePublish();
        this.heartbeat();
      },
    );
  }

  private heartbeat(): void {
    this.toController<BrokerHeartbeatResponse>(
      {
        type: 'BrokerHeartbeat',
        brokerId: this.brokerId,
        brokerEpoch: this.brokerEpoch,
        currentMetadataOffset: this.image.offset,
        wantFence: false,
        wantShutDown: this.wantShutDown,
      },
      (r) => {
        if (r && r.errorCode === 0) {
          if (this.fenced !== r.isFenced) this.emit(r.isFenced ? 'broker.fenced' : 'broker.unfenced');
          this.fenced = r.isFenced;
        } else if (r && r.errorCode === Errors.STALE_BROKER_EPOCH.code) {
          this.brokerEpoch = -1;
          this.register();
          return;
        }
        this.schedule(2000, () => this.heartbeat(), 'broker.heartbeat');
      },
    );
  }

  private fetchMetadata(): void {
    const maxWaitMs = this.config['kafkasim.metadata.fetch.max.wait.ms'];
    this.toController<MetadataFetchResponse>(
      { type: 'MetadataFetch', replicaId: this.brokerId, fetchOffset: this.image.offset + 1, maxWaitMs },
      (r) => {
        if (!r || r.errorCode !== 0) {
          this.schedule(100, () => this.fetchMetadata(), 'broker.metadata-retry');
          return;
        }
        if (r.entries.length > 0) this.applyMetadata(r.entries);
        this.fetchMetadata();
      },
    );
  }

  /** Replays committed metadata records and acts on what changed for this broker's replicas. */
  applyMetadata(entries: readonly LogEntry[]): void {
    const before = this.image;
    const after = replay(before, entries);
    this.image = after;
    if (this.published) this.publish(before, after);
    else this.maybePublish();
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
    this.publish(emptyImage(), this.image);
  }

  /** Acts on what changed between two images for this broker's replicas (Kafka's ReplicaManager.applyDelta). */
  private publish(before: MetadataImage, after: MetadataImage): void {
    for (const [name, topic] of Object.entries(after.topics)) {
      const old = before.topics[name];
      if (old === topic) continue;
      topic.partitions.forEach((reg, p) => {
        if (old && old.topicId === topic.topicId && old.partitions[p] === reg) return;
        this.onPartitionChange(topic, p, reg);
      });
    }
    for (const [name, old] of Object.entries(before.topics)) {
      const now = after.topics[name];
      if (now && now.topicId === old.topicId) continue;
      // A deleted topic: drop its replicas and (kafka storage) delete their logs.
      for (let p = 0; p < old.partitions.length; p++) {
        this.removeReplica(`${old.topicId}:${p}`, true, undefined);
        if (this.storageMode === 'kafka') this.localLogs.delete(`${old.topicId}:${p}`);
      }
    }
  }

  private onPartitionChange(topic: TopicImage, p: number, reg: PartitionRegistration): void {
    const key = `${topic.topicId}:${p}`;
    const existing = this.replicas.get(key);
    if (!reg.replicas.includes(this.brokerId)) {
      if (existing)
        this.removeReplica(
          key,
          this.storageMode === 'kafka',
          existing.role === 'leader' || existing.role === 'opening'
            ? { topic: topic.name, partition: p }
            : undefined,
        );
      return;
    }
    const replica = existing ?? this.createReplica(topic, p);
    const leaderChanged = replica.leaderId !== reg.leader || replica.leaderEpoch !== reg.leaderEpoch;
    replica.isr = [...reg.isr];
    replica.replicas = [...reg.replicas];
    replica.partitionEpoch = reg.partitionEpoch;
    if (!leaderChanged && existing) {
      if (replica.role === 'leader') {
        this.syncFollowers(replica);
        this.maybeAdvanceHighWatermark(replica);
      }
      return;
    }
    replica.leaderId = reg.leader;
    replica.leaderEpoch = reg.leaderEpoch;
    this.failWaiters(replica, Errors.NOT_LEADER_OR_FOLLOWER.code);
    if (reg.leader === this.brokerId) this.becomeLeader(replica);
    else if (reg.leader < 0) {
      replica.role = 'offline';
      this.onRoleChange(replica);
    } else this.becomeFollower(replica);
  }

  private createReplica(topic: TopicImage, p: number): Replica {
    const key = `${topic.topicId}:${p}`;
    let log: PartitionLog;
    if (this.storageMode === 'shared') {
      log = this.shared!.open(topic.topicId, topic.name, p);
    } else {
      log = this.localLogs.get(key) ?? new PartitionLog(topic.name, p);
      this.localLogs.set(key, log);
    }
    const r: Replica = {
      key,
      topic: topic.name,
      topicId: topic.topicId,
      partition: p,
      log,
      role: 'offline',
      leaderId: -1,
      leaderEpoch: -1,
      partitionEpoch: -1,
      isr: [],
      replicas: [],
      followers: new Map(),
      pendingIsr: undefined,
      waiters: [],
      bytesIn: 0,
      bytesOut: 0,
    };
    this.replicas.set(key, r);
    return r;
  }

  /** A leader tracks every other replica of the partition (a reassignment adds and removes some). */
  private syncFollowers(r: Replica): void {
    for (const id of r.replicas) {
      if (id !== this.brokerId && !r.followers.has(id)) {
        r.followers.set(id, {
          leo: -1,
          lastCaughtUpTime: this.sim.now,
          lastFetchTime: 0,
          lastFetchLeaderLeo: -1,
        });
      }
    }
    for (const id of [...r.followers.keys()]) if (!r.replicas.includes(id)) r.followers.delete(id);
  }

  private becomeLeader(r: Replica): void {
    r.followers = new Map();
    this.syncFollowers(r);
    if (this.storageMode === 'shared') {
      // AutoMQ: the new leader opens the partition from object-storage metadata before it serves.
      r.role = 'opening';
      this.onRoleChange(r);
      const epoch = r.leaderEpoch;
      this.emit('broker.partition-opening', { topic: r.topic, partition: r.partition, leaderEpoch: epoch });
      this.schedule(
        this.config['kafkasim.shared.partition.open.ms'],
        () => {
          if (r.role !== 'opening' || r.leaderEpoch !== epoch || this.replicas.get(r.key) !== r) return;
          r.role = 'leader';
          r.log.assignEpochStart(epoch);
          r.log.highWatermark = r.log.logEndOffset;
          this.onRoleChange(r);
          this.emit('broker.leader', { topic: r.topic, partition: r.partition, leaderEpoch: epoch });
        },
        'broker.partition-open',
      );
      return;
    }
    r.role = 'leader';
    r.log.assignEpochStart(r.leaderEpoch);
    this.emit('broker.leader', { topic: r.topic, partition: r.partition, leaderEpoch: r.leaderEpoch });
    this.maybeAdvanceHighWatermark(r);
    this.onRoleChange(r);
  }

  /** The group coordinator follows leadership of __consumer_offsets partitions (load on lead, unload on loss). */
  private onRoleChange(r: Replica): void {
    this.groupCoordinator.onPartitionRole(r.topic, r.partition, r.role, r.leaderEpoch, r.log);
  }

  private becomeFollower(r: Replica): void {
    r.role = 'follower';
    r.followers = new Map();
    this.onRoleChange(r);
    this.emit('broker.follower', {
      topic: r.topic,
      partition: r.partition,
      leader: r.leaderId,
      leaderEpoch: r.leaderEpoch,
    });
    this.ensureFetcher(r.leaderId);
  }

  /** Stops hosting a replica. In shared mode a leader that loses it closes it and asks for the new election. */
  private removeReplica(
    key: string,
    deleteLog: boolean,
    closeAndElect: { topic: string; partition: number } | undefined,
  ): void {
    const r = this.replicas.get(key);
    if (!r) return;
    this.replicas.delete(key);
    r.role = 'offline';
    this.onRoleChange(r);
    this.failWaiters(r, Errors.NOT_LEADER_OR_FOLLOWER.code);
    if (deleteLog && this.storageMode === 'kafka') this.localLogs.delete(key);
    if (closeAndElect && this.storageMode === 'shared') {
      this.emit('broker.partition-closing', { topic: r.topic, partition: r.partition });
      this.schedule(
        this.config['kafkasim.shared.partition.close.ms'],
        () => {
          this.emit('broker.partition-closed', { topic: r.topic, partition: r.partition });
          this.electLeader(closeAndElect);
        },
        'broker.partition-close',
      );
    }
  }

  private electLeader(tp: { topic: string; partition: number }, attempt = 0): void {
    this.toController<ElectLeadersResponse>({ type: 'ElectLeaders', partitions: [tp] }, (r) => {
      if (!r && attempt < 20)
        this.schedule(500, () => this.electLeader(tp, attempt + 1), 'broker.elect-retry');
    });
  }

  // ---- replication: follower side -------------------------------------------------------------------------

  private ensureFetcher(leaderId: number): void {
    if (this.fetchers.get(leaderId)) return;
    this.fetchers.set(leaderId, true);
    this.schedule(0, () => this.followerFetch(leaderId), 'broker.replica-fetch');
  }

  private followerFetch(leaderId: number): void {
    const following = [...this.replicas.values()].filter(
      (r) => r.role === 'follower' && r.leaderId === leaderId,
    );
    if (following.length === 0) {
      this.fetchers.delete(leaderId);
      return;
    }
    const throttle = this.config['follower.replication.throttled.rate'];
    const maxWaitMs = this.config['replica.fetch.wait.max.ms'];
    // A throttled follower copies at most `rate` bytes per second: per fetch, what that rate allows in the
    // time the fetch loop takes (at least a round trip); modelled as a per-fetch byte budget.
    const perFetch = Number.isFinite(throttle)
      ? Math.max(1, Math.floor(throttle / 10))
      : this.config['replica.fetch.max.bytes'];
    const req: FetchRequest = {
      type: 'Fetch',
      replicaId: this.brokerId,
      maxWaitMs,
      minBytes: 1,
      maxBytes: this.config['replica.fetch.response.max.bytes'],
      partitions: following.map((r) => ({
        topic: r.topic,
        partition: r.partition,
        fetchOffset: r.log.logEndOffset,
        lastFetchedEpoch: r.log.latestEpoch,
        currentLeaderEpoch: r.leaderEpoch,
        partitionMaxBytes: perFetch,
      })),
    };
    const started = this.sim.now;
    this.request<FetchResponse>(
      brokerNodeId(leaderId),
      req,
      (o) => {
        if (!o.ok) {
          this.schedule(
            Math.max(0, 100 - (this.sim.now - started)),
            () => this.followerFetch(leaderId),
            'broker.replica-fetch',
          );
          return;
        }
        let bytes = 0;
        for (const pr of o.response.partitions) {
          const r = this.findReplica(pr.topic, pr.partition);
          if (!r || r.role !== 'follower' || r.leaderId !== leaderId) continue;
          if (pr.errorCode !== 0) continue;
          if (pr.divergingEpoch) {
            const mine = r.log.endOffsetForEpoch(pr.divergingEpoch.epoch);
            const to = Math.min(
              pr.divergingEpoch.endOffset,
              mine.epoch === pr.divergingEpoch.epoch ? mine.endOffset : pr.divergingEpoch.endOffset,
            );
            this.emit('broker.truncate', {
              topic: r.topic,
              partition: r.partition,
              from: r.log.logEndOffset,
              to,
            });
            r.log.truncateTo(Math.max(0, to));
            continue;
          }
          if (pr.batches.length > 0) {
            r.log.appendAsFollower(pr.batches);
            for (const b of pr.batches) bytes += b.bytes;
          }
          r.log.highWatermark = Math.min(r.log.logEndOffset, pr.highWatermark);
        }
        // Throttled copies pace the loop so that `rate` is not exceeded.
        const pace =
          Number.isFinite(throttle) && bytes > 0
            ? Math.max(0, (bytes / throttle) * 1000 - (this.sim.now - started))
            : 0;
        this.schedule(pace, () => this.followerFetch(leaderId), 'broker.replica-fetch');
      },
      maxWaitMs + 30_000,
    );
  }

  // ---- replication: leader side ---------------------------------------------------------------------------

  private maybeAdvanceHighWatermark(r: Replica): void {
    if (r.role !== 'leader') return;
    // Kafka's "maximal ISR": while an expansion is in flight the new member already counts, so nothing is
    // acknowledged that it lacks (the controller may make it leader the moment it commits the expansion, as
    // a kafka-storage reassignment does); while a shrink is in flight the leaving member still counts.
    let hw = r.log.logEndOffset;
    const counted = r.pendingIsr ? new Set([...r.isr, ...r.pendingIsr]) : r.isr;
    for (const id of counted) {
      if (id === this.brokerId) continue;
      const f = r.followers.get(id);
      hw = Math.min(hw, f ? Math.max(f.leo, 0) : 0);
    }
    if (hw > r.log.highWatermark) {
      r.log.highWatermark = hw;
      this.completeWaiters(r);
      this.wake(r.key);
    }
  }

  private completeWaiters(r: Replica): void {
    if (r.waiters.length === 0) return;
    const hw = r.log.highWatermark;
    // Kafka's Partition.checkEnoughReplicasReachOffset: a batch the high watermark passed is acknowledged only if
    // the (maximal) ISR still has min.insync.replicas members; the ISR may have shrunk since the append.
    const isrSize = r.pendingIsr ? new Set([...r.isr, ...r.pendingIsr]).size : r.isr.length;
    const keep: AckWaiter[] = [];
    for (const w of r.waiters) {
      if (w.requiredOffset > hw) keep.push(w);
      else w.resolve(isrSize >= w.minIsr ? 0 : Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code);
    }
    r.waiters = keep;
  }

  private failWaiters(r: Replica, code: number): void {
    const ws = r.waiters;
    r.waiters = [];
    for (const w of ws) w.resolve(code);
  }

  private onFollowerFetch(r: Replica, replicaId: number, fetchOffset: number): void {
    const f = r.followers.get(replicaId);
    if (!f) return;
    const leo = r.log.logEndOffset;
    if (fetchOffset >= leo) f.lastCaughtUpTime = this.sim.now;
    else if (fetchOffset >= f.lastFetchLeaderLeo) f.lastCaughtUpTime = f.lastFetchTime;
    f.leo = fetchOffset;
    f.lastFetchLeaderLeo = leo;
    f.lastFetchTime = this.sim.now;
    if (!r.isr.includes(replicaId) && fetchOffset >= r.log.highWatermark && this.isBrokerActive(replicaId)) {
      this.alterIsr(
        r,
        [...r.isr, replicaId].sort((a, b) => a - b),
        'expand',
      );
    }
    this.maybeAdvanceHighWatermark(r);
  }

  private isBrokerActive(id: number): boolean {
    const b = this.image.brokers[id];
    return !!b && !b.fenced && !b.inControlledShutdown;
  }

  private maybeShrinkIsr(): void {
    const maxLag = this.config['replica.lag.time.max.ms'];
    for (const r of this.replicas.values()) {
      if (r.role !== 'leader' || r.isr.length <= 1) continue;
      const out = r.isr.filter((id) => {
        if (id === this.brokerId) return false;
        const f = r.followers.get(id);
        return !f || this.sim.now - f.lastCaughtUpTime > maxLag;
      });
      if (out.length > 0)
        this.alterIsr(
          r,
          r.isr.filter((id) => !out.includes(id)),
          'shrink',
        );
    }
  }

  private alterIsr(r: Replica, newIsr: number[], why: 'expand' | 'shrink'): void {
    if (r.pendingIsr) return;
    r.pendingIsr = newIsr;
    this.emit('broker.alter-isr', { topic: r.topic, partition: r.partition, why, isr: r.isr, newIsr });
    this.toController<AlterPartitionResponse>(
      {
        type: 'AlterPartition',
        brokerId: this.brokerId,
        brokerEpoch: this.brokerEpoch,
        topicId: r.topicId,
        partition: r.partition,
        leaderEpoch: r.leaderEpoch,
        partitionEpoch: r.partitionEpoch,
        newIsr,
      },
      (res) => {
        r.pendingIsr = undefined;
        if (
          res &&
          res.errorCode === 0 &&
          res.leaderEpoch === r.leaderEpoch &&
          res.partitionEpoch >= r.partitionEpoch
        ) {
          r.isr = [...res.isr];
          r.partitionEpoch = res.partitionEpoch;
          this.maybeAdvanceHighWatermark(r);
        }
      },
    );
  }

  // ---- request handling -----------------------------------------------------------------------------------

  protected override onRequest(
    from: NodeId,
    payload: unknown,
    reply: (response: unknown, sendDelayMs?: number) => void,
  ): void {
    // Clients talk to their group coordinator over a connection of its own (Java and librdkafka both do), so a
    // parked JoinGroup never holds up their fetches from the same broker.
    const key = isGroupRequest(payload) ? `${from}/coordinator` : from;
    let conn = this.connections.get(key);
    if (!conn) this.connections.set(key, (conn = { queue: [], busy: false }));
    if (conn.busy) conn.queue.push({ payload: payload as BrokerRequest, reply });
    else this.serveOnConnection(conn, payload as BrokerRequest, reply);
  }

  /** acks=0 produce requests arrive as one-way messages: processed in order, never answered. */
  protected override onMessage(from: NodeId, payload: unknown): void {
    if ((payload as BrokerRequest | undefined)?.type === 'Produce') this.onRequest(from, payload, () => {});
  }

  private nextOnConnection(conn: Connection): void {
    const item = conn.queue.shift();
    if (!item) {
      conn.busy = false;
      return;
    }
    this.serveOnConnection(conn, item.payload, item.reply);
  }

  private serveOnConnection(
    conn: Connection,
    payload: BrokerRequest,
    reply: (r: unknown, sendDelayMs?: number) => void,
  ): void {
    conn.busy = true;
    const incarnation = this.incarnation;
    this.handle(payload, (response, sendDelayMs) => {
      if (this.incarnation !== incarnation) return;
      reply(response, sendDelayMs);
      this.nextOnConnection(conn);
    });
  }

  private handle(req: BrokerRequest, done: (response: unknown, sendDelayMs?: number) => void): void {
    if (isGroupRequest(req)) return this.groupCoordinator.handle(req, done);
    switch (req.type) {
      case 'Produce':
        return this.handleProduce(req, done);
      case 'Fetch':
        return this.handleFetch(req, done);
      case 'Metadata':
        return done(this.handleMetadata(req));
      case 'ListOffsets':
        return done(this.handleListOffsets(req));
      case 'DescribeConfigs':
        return done(this.handleDescribeConfigs(req));
      default:
        return done({
          errorCode: Errors.INVALID_REQUEST.code,
          errorMessage: `unsupported request ${(req as { type: string }).type}`,
        });
    }
  }

  findReplica(topic: string, partition: number): Replica | undefined {
    const t = this.image.topics[topic];
    return t ? this.replicas.get(this.replicaKey(t.topicId, partition)) : undefined;
  }

  private readonly keyCache = new Map<string, string[]>();

  /** `topicId:partition`, built once per partition: lookups on the fetch path reuse the same string. */
  private replicaKey(topicId: string, partition: number): string {
    let keys = this.keyCache.get(topicId);
    if (!keys) this.keyCache.set(topicId, (keys = []));
    return (keys[partition] ??= `${topicId}:${partition}`);
  }

  private leaderHint(topic: string, partition: number): LeaderHint | undefined {
    const reg = this.image.topics[topic]?.partitions[partition];
    return reg && reg.leader >= 0 ? { leaderId: reg.leader, leaderEpoch: reg.leaderEpoch } : undefined;
  }

  /** The processing delay for `bytes` arriving now: base append latency inflated by load, plus queueing. */
  private produceDelay(bytes: number): number {
    const now = this.sim.now;
    const cap = this.config['kafkasim.broker.network.in.bytes.per.sec'];
    const decay = Math.exp(-(now - this.inRateAt) / 1000);
    this.inRate = this.inRate * decay + bytes; // bytes per second, EWMA with a 1 s time constant
    this.inRateAt = now;
    const rho = Math.min(0.95, this.inRate / cap);
    const start = Math.max(now, this.inBusyUntil);
    this.inBusyUntil = start + (bytes / cap) * 1000;
    return this.config['kafkasim.broker.append.latency.ms'] / (1 - rho) + (this.inBusyUntil - now);
  }

  /** Network-in load in bytes/s as the broker sees it (EWMA, 1 s). */
  get networkInRate(): number {
    return this.inRate * Math.exp(-(this.sim.now - this.inRateAt) / 1000);
  }

  private handleProduce(req: ProduceRequest, done: (response: ProduceResponse) => void): void {
    let bytes = 0;
    for (const p of req.partitions) bytes += p.batch.bytes;
    this.schedule(this.produceDelay(bytes), () => this.appendProduce(req, done), 'broker.produce');
  }

  private appendProduce(req: ProduceRequest, done: (response: ProduceResponse) => void): void {
    const results: ProducePartitionResponse[] = [];
    let waiting = 0;
    let timer: Timer | undefined;
    let finished = false;
    const mine: { replica: Replica; waiter: AckWaiter; res: ProducePartitionResponse }[] = [];
    const finish = () => {
      if (finished) return;
      finished = true;
      timer?.cancel();
      done({ correlationId: req.correlationId, partitions: results });
    };
    for (const p of req.partitions) {
      const res: ProducePartitionResponse = {
        topic: p.topic,
        partition: p.partition,
        errorCode: 0,
        baseOffset: -1,
      };
      results.push(res);
      const r = this.findReplica(p.topic, p.partition);
      if (!this.image.topics[p.topic]) {
        res.errorCode = Errors.UNKNOWN_TOPIC_OR_PARTITION.code;
        continue;
      }
      if (!r || r.role !== 'leader') {
        res.errorCode = Errors.NOT_LEADER_OR_FOLLOWER.code;
        const hint = this.leaderHint(p.topic, p.partition);
        if (hint) res.currentLeader = hint;
        continue;
      }
      const minIsr = Number(
        effectiveTopicConfig(this.image, p.topic, 'min.insync.replicas', this.staticConfigs),
      );
      if (req.acks === -1 && r.isr.length < minIsr) {
        res.errorCode = Errors.NOT_ENOUGH_REPLICAS.code;
        res.errorMessage = `The size of the current ISR ${JSON.stringify(r.isr)} is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${p.topic}-${p.partition}`;
        continue;
      }
      const outcome = r.log.appendAsLeader(p.batch, r.leaderEpoch, this.sim.now);
      if (outcome.kind === 'out-of-order') {
        res.errorCode = Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code;
        continue;
      }
      let requiredOffset: number;
      if (outcome.kind === 'duplicate') {
        // A retry of a batch already in the log: its acks=all answer waits for the high watermark to pass the
        // original like any append (Kafka's ReplicaManager.appendRecords puts it in DelayedProduce with the
        // original's last offset), or a leader whose followers never got it would acknowledge it.
        res.baseOffset = outcome.baseOffset;
        requiredOffset = outcome.lastOffset + 1;
        this.emit('broker.produce-duplicate', {
          topic: r.topic,
          partition: r.partition,
          baseOffset: outcome.baseOffset,
          highWatermark: r.log.highWatermark,
        });
      } else {
        res.baseOffset = outcome.batch.baseOffset;
        requiredOffset = outcome.batch.baseOffset + outcome.batch.count;
        r.bytesIn += p.batch.bytes;
        if (this.storageMode === 'shared') {
          r.log.highWatermark = r.log.logEndOffset; // the WAL write made it durable
          this.wake(r.key);
        } else {
          this.wakeFollowers(r.key);
          this.maybeAdvanceHighWatermark(r);
        }
      }
      if (req.acks === -1 && r.log.highWatermark < requiredOffset) {
        waiting++;
        const waiter: AckWaiter = {
          requiredOffset,
          minIsr,
          resolve: (code) => {
            res.errorCode = code;
            if (--waiting === 0) finish();
          },
        };
        r.waiters.push(waiter);
        mine.push({ replica: r, waiter, res });
      }
    }
    if (waiting === 0) return finish();
    timer = this.schedule(
      req.timeoutMs,
      () => {
        for (const { replica, waiter, res } of mine) {
          const i = replica.waiters.indexOf(waiter);
          if (i < 0) continue;
          replica.waiters.splice(i, 1);
          res.errorCode = Errors.REQUEST_TIMED_OUT.code;
        }
        finish();
      },
      'broker.produce-timeout',
    );
  }

  private handleFetch(
    req: FetchRequest,
    done: (response: FetchResponse, sendDelayMs?: number) => void,
  ): void {
    const now = this.tryFetch(req, req.maxWaitMs <= 0);
    if (now) return this.sendFetch(now, done);
    const parts = req.partitions;
    const keys = new Array<string>(parts.length);
    for (let i = 0; i < parts.length; i++) {
      const t = this.image.topics[parts[i]!.topic];
      keys[i] = t ? this.replicaKey(t.topicId, parts[i]!.partition) : '';
    }
    const parked = new ParkedFetch(req, keys, done);
    parked.timer = this.schedule(req.maxWaitMs, () => this.completeParked(parked, true), 'broker.fetch-wait');
    for (let i = 0; i < keys.length; i++) {
      let list = this.parked.get(keys[i]!);
      if (!list) this.parked.set(keys[i]!, (list = []));
      if (!list.includes(parked)) list.push(parked);
    }
    // Followers' fetches are answered when data arrives even if min bytes is not reached yet.
  }

  /**
   * The answer to a fetch if it can be given now (always when `final`), else undefined. A consumer's fetch is
   * first checked without reading (Kafka's DelayedFetch.tryComplete: any error, or fetch.min.bytes readable)
   * and read once when it can complete (readFromLog). A follower's is read at every try, since reading is what
   * records its fetch position.
   */
  private tryFetch(req: FetchRequest, final: boolean): FetchResponse | undefined {
    if (!final && req.replicaId < 0 && !this.consumerFetchReady(req)) return undefined;
    const parts = req.partitions;
    const out = new Array<FetchPartitionResponse>(parts.length);
    let bytes = 0;
    let hasError = false;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      const pr = this.fetchPartition(
        req,
        p.topic,
        p.partition,
        p.fetchOffset,
        p.lastFetchedEpoch,
        p.currentLeaderEpoch,
        p.partitionMaxBytes,
      );
      if (pr.errorCode !== 0 || pr.divergingEpoch) hasError = true;
      bytes += batchBytes(pr.batches);
      out[i] = pr;
    }
    if (!final && !hasError && bytes < req.minBytes) return undefined;
    return { partitions: out };
  }

  /** Whether a consumer's fetch would answer now: the decision fetchPartition's reads make, without reading. */
  private consumerFetchReady(req: FetchRequest): boolean {
    let bytes = 0;
    const parts = req.partitions;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      const t = this.image.topics[p.topic];
      if (!t) return true;
      const r = this.replicas.get(this.replicaKey(t.topicId, p.partition));
      if (!r || r.role !== 'leader') return true;
      const epoch = p.currentLeaderEpoch;
      if (epoch !== undefined && epoch >= 0 && epoch !== r.leaderEpoch) return true;
      const log = r.log;
      if (p.fetchOffset > log.logEndOffset || p.fetchOffset < log.logStartOffset) return true;
      bytes += log.readableBytes(p.fetchOffset, log.highWatermark, p.partitionMaxBytes);
      if (bytes >= req.minBytes) return true;
    }
    return bytes >= req.minBytes;
  }

  private completeParked(parked: ParkedFetch, final: boolean): void {
    if (parked.done) return;
    const res = this.tryFetch(parked.req, final);
    // A follower's read can advance the high watermark and wake this very fetch (answered there already).
    if (!res || parked.done) return;
    parked.done = true;
    parked.timer?.cancel();
    const keys = parked.keys;
    for (let k = 0; k < keys.length; k++) {
      const list = this.parked.get(keys[k]!);
      if (list) removeFrom(list, parked);
    }
    this.sendFetch(res, parked.reply);
  }

  /** Sends a fetch answer; its bytes queue on the broker's network-out capacity (time added to the network latency). */
  private sendFetch(res: FetchResponse, done: (r: FetchResponse, sendDelayMs?: number) => void): void {
    let bytes = 0;
    const parts = res.partitions;
    for (let i = 0; i < parts.length; i++) bytes += batchBytes(parts[i]!.batches);
    if (bytes === 0) return done(res);
    const cap = this.config['kafkasim.broker.network.out.bytes.per.sec'];
    const start = Math.max(this.sim.now, this.outBusyUntil);
    this.outBusyUntil = start + (bytes / cap) * 1000;
    done(res, this.outBusyUntil - this.sim.now);
  }

  /** Wakes parked fetches (consumers and followers) waiting on a partition, oldest first. */
  private wake(key: string): void {
    const list = this.parked.get(key);
    if (!list || list.length === 0) return;
    if (list.length === 1) return this.completeParked(list[0]!, false);
    for (const p of list.slice()) this.completeParked(p, false);
  }

  private wakeFollowers(key: string): void {
    this.wake(key);
  }

  private fetchPartition(
    req: FetchRequest,
    topic: string,
    partition: number,
    fetchOffset: number,
    lastFetchedEpoch: number | undefined,
    currentLeaderEpoch: number | undefined,
    maxBytes: number,
  ): FetchPartitionResponse {
    if (!this.image.topics[topic])
      return errorAnswer(topic, partition, Errors.UNKNOWN_TOPIC_OR_PARTITION.code, -1, -1);
    const r = this.findReplica(topic, partition);
    if (!r || r.role !== 'leader') {
      const res = errorAnswer(topic, partition, Errors.NOT_LEADER_OR_FOLLOWER.code, -1, -1);
      const hint = this.leaderHint(topic, partition);
      if (hint) res.currentLeader = hint;
      return res;
    }
    if (currentLeaderEpoch !== undefined && currentLeaderEpoch >= 0) {
      if (currentLeaderEpoch < r.leaderEpoch)
        return errorAnswer(topic, partition, Errors.FENCED_LEADER_EPOCH.code, -1, -1);
      if (currentLeaderEpoch > r.leaderEpoch)
        return errorAnswer(topic, partition, Errors.UNKNOWN_LEADER_EPOCH.code, -1, -1);
    }
    const log = r.log;
    const isFollower = req.replicaId >= 0;
    if (isFollower && lastFetchedEpoch !== undefined && lastFetchedEpoch >= 0) {
      const end = log.endOffsetForEpoch(lastFetchedEpoch);
      if (end.epoch !== lastFetchedEpoch || end.endOffset < fetchOffset) {
        const res = errorAnswer(topic, partition, 0, log.highWatermark, log.logStartOffset);
        res.divergingEpoch = end;
        return res;
      }
    }
    if (fetchOffset > log.logEndOffset || fetchOffset < log.logStartOffset) {
      return errorAnswer(
        topic,
        partition,
        Errors.OFFSET_OUT_OF_RANGE.code,
        log.highWatermark,
        log.logStartOffset,
      );
    }
    if (isFollower) this.onFollowerFetch(r, req.replicaId, fetchOffset);
    const limit = isFollower ? log.logEndOffset : log.highWatermark;
    const batches = log.read(fetchOffset, limit, maxBytes);
    r.bytesOut += batchBytes(batches);
    return {
      topic,
      partition,
      errorCode: 0,
      highWatermark: log.highWatermark,
      logStartOffset: log.logStartOffset,
      batches,
    };
  }

  private handleMetadata(req: MetadataRequest): MetadataResponse {
    const img = this.image;
    const brokers = Object.values(img.brokers)
      .filter((b) => !b.fenced)
      .map((b) => ({ brokerId: b.brokerId, host: b.host, port: b.port, rack: b.rack ?? null }))
      .sort((a, b) => a.brokerId - b.brokerId);
    const names = req.topics ?? Object.keys(img.topics).sort();
    const topics = names.map((name) => {
      const t = img.topics[name];
      if (!t)
        return { name, topicId: null, errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code, partitions: [] };
      return {
        name,
        topicId: t.topicId,
        errorCode: 0,
        partitions: t.partitions.map((reg, p) => ({
          partition: p,
          errorCode: reg.leader < 0 ? Errors.LEADER_NOT_AVAILABLE.code : 0,
          leader: reg.leader,
          leaderEpoch: reg.leaderEpoch,
          replicas: [...reg.replicas],
          isr: [...reg.isr],
        })),
      };
    });
    return { brokers, controllerId: -1, topics, metadataOffset: img.offset };
  }

  private handleListOffsets(req: ListOffsetsRequest): ListOffsetsResponse {
    return {
      partitions: req.partitions.map(({ topic, partition, timestamp }) => {
        const r = this.findReplica(topic, partition);
        if (!this.image.topics[topic])
          return {
            topic,
            partition,
            errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
            offset: -1,
            leaderEpoch: -1,
          };
        if (!r || r.role !== 'leader')
          return {
            topic,
            partition,
            errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
            offset: -1,
            leaderEpoch: -1,
          };
        const offset = timestamp === -2 ? r.log.logStartOffset : r.log.highWatermark;
        return { topic, partition, errorCode: 0, offset, leaderEpoch: r.leaderEpoch };
      }),
    };
  }

  private handleDescribeConfigs(req: DescribeConfigsRequest): DescribeConfigsResponse {
    return {
      resources: req.resources.map((res) => {
        if (res.resourceType === 'TOPIC') {
          if (!this.image.topics[res.resourceName]) {
            return {
              ...res,
              errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
              errorMessage: `Topic '${res.resourceName}' does not exist.`,
              configs: [],
            };
          }
          const configs = describeTopicConfigs(this.image, res.resourceName, this.staticConfigs).map((c) => ({
            ...c,
            isDefault: c.source === 'DEFAULT_CONFIG',
          }));
          return { ...res, errorCode: 0, configs };
        }
        const overrides = this.image.configs.broker[res.resourceName] ?? {};
        const configs = Object.entries({ ...this.staticConfigs, ...overrides })
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, value]) => ({
            name,
            value,
            source: (name in overrides ? 'DYNAMIC_BROKER_CONFIG' : 'STATIC_BROKER_CONFIG') as
              | 'DYNAMIC_BROKER_CONFIG'
              | 'STATIC_BROKER_CONFIG',
            isDefault: false,
          }));
        return { ...res, errorCode: 0, configs };
      }),
    };
  }

  // ---- lifecycle helpers -----------------------------------------------------------------------------------

  /** Partitions this broker currently leads and serves. */
  leaderReplicas(): Replica[] {
    return [...this.replicas.values()].filter((r) => r.role === 'leader');
  }
}

export type { RequestOutcome };
