// The replicas a broker hosts (Kafka's ReplicaManager): it applies each metadata change to them (become leader,
// become follower, stop hosting; Kafka's ReplicaManager.applyDelta), keeps their logs on the broker's disk
// (kafka storage) or opens them from shared storage (AutoMQ), and shrinks ISRs on a timer.

import type { MetadataImage, PartitionRegistration, TopicImage } from '../metadata/index.ts';
import type { ElectLeadersResponse, LeaderHint } from '../protocol/index.ts';
import { Errors } from '../protocol/index.ts';
import { PartitionLog, type SharedStorage } from '../storage/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { ControllerChannel } from './controller-channel.ts';
import { PartitionReplica, type ReplicaHost, type ReplicaRole } from './partition-replica.ts';

/** What the replica manager tells the rest of the broker. */
export interface ReplicaManagerHooks {
  readonly brokerEpoch: () => number;
  /** Local logs, which survive crashes (they are on disk). */
  readonly localLogs: () => Map<string, PartitionLog>;
  /** Fetches parked on partition `key` may answer now. */
  readonly wake: (key: string) => void;
  /** This broker now follows `replica`'s leader: add it to the fetcher for that leader. */
  readonly follow: (replica: PartitionReplica) => void;
  /** A partition's registration changed: fetch sessions holding it read it again. */
  readonly onPartitionChanged: (key: string) => void;
  /** A replica's role changed (the group coordinator follows __consumer_offsets leadership). */
  readonly onRoleChange: (replica: PartitionReplica) => void;
  /** Something the data-plane invariants read of a replica was set (ReplicaWatcher). */
  readonly replicaChanged: (replica: PartitionReplica) => void;
  /** A log is hosted here now: give it its topic's segment configs. */
  readonly configureLog: (topic: string, log: PartitionLog) => void;
}

/**
 * Which partitions of a topic image each broker is a replica of, built once per partition list and shared by every
 * broker holding the same image (brokers share replayed images): a new topic costs each broker its own partitions,
 * not every partition of the topic (100 brokers x 100,000 partitions would be 10 M visits).
 */
const partitionsByBroker = new WeakMap<readonly PartitionRegistration[], Map<number, number[]>>();

function hostedPartitions(topic: TopicImage, brokerId: number): readonly number[] {
  let index = partitionsByBroker.get(topic.partitions);
  if (!index) {
    index = new Map();
    const parts = topic.partitions;
    for (let p = 0; p < parts.length; p++) {
      for (const id of parts[p]!.replicas) {
        let list = index.get(id);
        if (!list) index.set(id, (list = []));
        if (list[list.length - 1] !== p) list.push(p);
      }
    }
    partitionsByBroker.set(topic.partitions, index);
  }
  return index.get(brokerId) ?? [];
}

/** One topic's hosted replicas, by partition (packed: undefined where not hosted), and how many there are. */
interface TopicReplicas {
  count: number;
  readonly byPartition: (PartitionReplica | undefined)[];
}

export class ReplicaManager implements ReplicaHost {
  readonly replicas = new Map<string, PartitionReplica>();
  /**
   * The hosted replicas by topic id, indexed by partition (the fetch and produce paths find replicas by partition
   * number, not by a `topicId:partition` string); a topic id is here while it has a hosted replica, so a topic with
   * none can skip the partitions not hosted.
   */
  private readonly byTopic = new Map<string, TopicReplicas>();
  private readonly keyCache = new Map<string, string[]>();
  /** `replicas` as a list (BrokerView): built again after a change of the set, which is rare, not per read. */
  private list: PartitionReplica[] | undefined;

  /** The hosted replicas as a list: the same array until the set changes. */
  hostedList(): readonly PartitionReplica[] {
    return (this.list ??= [...this.replicas.values()]);
  }

  /** Drops every replica (a restart rebuilds them from the metadata). */
  clear(): void {
    this.replicas.clear();
    this.byTopic.clear();
    this.list = undefined;
  }

  constructor(
    private readonly core: BrokerCore,
    private readonly controller: ControllerChannel,
    private readonly shared: SharedStorage | undefined,
    private readonly hooks: ReplicaManagerHooks,
  ) {}

  // ---- ReplicaHost ----
  get brokerId(): number {
    return this.core.brokerId;
  }
  get brokerEpoch(): number {
    return this.hooks.brokerEpoch();
  }
  now(): number {
    return this.core.sim.now;
  }
  emit(kind: string, fields?: Record<string, unknown>): void {
    this.core.emit(kind, fields);
  }
  toController<R>(req: Parameters<ControllerChannel['send']>[0], cb: (r: R | undefined) => void): void {
    this.controller.send<R>(req, cb);
  }
  isBrokerActive(id: number): boolean {
    const b = this.core.image.brokers[id];
    return !!b && !b.fenced && !b.inControlledShutdown;
  }
  onHighWatermark(replica: PartitionReplica): void {
    this.hooks.wake(replica.key);
  }
  onReplicaChanged(replica: PartitionReplica): void {
    this.hooks.replicaChanged(replica);
  }

  /** Partition `key` has news (an append, a high watermark move): fetches waiting on it may answer now. */
  wake(key: string): void {
    this.hooks.wake(key);
  }

  // ---- lookups ----

  findReplica(topic: string, partition: number): PartitionReplica | undefined {
    const t = this.core.image.topics[topic];
    return t ? this.byTopic.get(t.topicId)?.byPartition[partition] : undefined;
  }

  /** The replica hosted here for a partition of topic id `topicId`, if any (no key string built). */
  hostedReplica(topicId: string, partition: number): PartitionReplica | undefined {
    return this.byTopic.get(topicId)?.byPartition[partition];
  }

  /**
   * `topicId:partition`: a hosted replica's own key, else built once per partition, so that lookups on the fetch
   * path reuse the same string (and its hash) instead of building one per call.
   */
  replicaKey(topicId: string, partition: number): string {
    const hosted = this.hostedReplica(topicId, partition);
    if (hosted !== undefined) return hosted.key;
    let keys = this.keyCache.get(topicId);
    if (!keys) this.keyCache.set(topicId, (keys = []));
    return (keys[partition] ??= `${topicId}:${partition}`);
  }

  /** The leader the image shows for a partition, for NOT_LEADER_OR_FOLLOWER answers (KIP-951). */
  leaderHint(topic: string, partition: number): LeaderHint | undefined {
    const reg = this.core.image.topics[topic]?.partitions[partition];
    return reg && reg.leader >= 0 ? { leaderId: reg.leader, leaderEpoch: reg.leaderEpoch } : undefined;
  }

  /** Partitions this broker currently leads and serves. */
  leaderReplicas(): PartitionReplica[] {
    return [...this.replicas.values()].filter((r) => r.role === 'leader');
  }

  maybeShrinkIsr(): void {
    const maxLag = this.core.config['replica.lag.time.max.ms'];
    for (const r of this.replicas.values()) r.maybeShrinkIsr(maxLag);
  }

  // ---- metadata changes ----

  /** Acts on what changed between two images for this broker's replicas (Kafka's ReplicaManager.applyDelta). */
  applyDelta(
    before: MetadataImage,
    after: MetadataImage,
    changed?: ReadonlyMap<string, readonly number[]>,
  ): void {
    for (const [name, topic] of Object.entries(after.topics)) {
      const old = before.topics[name];
      if (old === topic) continue;
      if (changed && old && old.topicId === topic.topicId) {
        // Only the partitions the replay wrote, in partition order (each at most once).
        const ids = changed.get(name);
        if (!ids) continue;
        const sorted = ids.length === 1 ? ids : [...new Set(ids)].sort((a, b) => a - b);
        for (const p of sorted) {
          const reg = topic.partitions[p];
          if (reg && old.partitions[p] !== reg) this.onPartitionChange(topic, p, reg);
        }
        continue;
      }
      if ((!old || old.topicId !== topic.topicId) && !this.byTopic.has(topic.topicId)) {
        // A topic new to this broker: only the partitions it is a replica of have anything to do (in order).
        for (const p of hostedPartitions(topic, this.core.brokerId))
          this.onPartitionChange(topic, p, topic.partitions[p]!);
        continue;
      }
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
        if (this.core.storageMode === 'kafka') this.hooks.localLogs().delete(`${old.topicId}:${p}`);
      }
    }
  }

  private onPartitionChange(topic: TopicImage, p: number, reg: PartitionRegistration): void {
    // byTopic holds exactly the replicas in `replicas` (createReplica and removeReplica keep both).
    const existing = this.hostedReplica(topic.topicId, p);
    if (!reg.replicas.includes(this.core.brokerId)) {
      if (existing)
        this.removeReplica(
          existing.key,
          this.core.storageMode === 'kafka',
          existing.role === 'leader' || existing.role === 'opening'
            ? { topic: topic.name, partition: p }
            : undefined,
        );
      return;
    }
    const replica = existing ?? this.createReplica(topic, p);
    this.hooks.onPartitionChanged(replica.key);
    const leaderChanged = replica.leaderId !== reg.leader || replica.leaderEpoch !== reg.leaderEpoch;
    // The registration's own (frozen) arrays: a replica never writes them in place.
    replica.isr = reg.isr;
    replica.replicas = reg.replicas;
    replica.partitionEpoch = reg.partitionEpoch;
    if (!leaderChanged && existing) {
      if (replica.role === 'leader') {
        replica.syncFollowers();
        replica.maybeAdvanceHighWatermark();
      }
      return;
    }
    replica.leaderId = reg.leader;
    replica.leaderEpoch = reg.leaderEpoch;
    replica.failWaiters(Errors.NOT_LEADER_OR_FOLLOWER.code);
    if (reg.leader === this.core.brokerId) this.becomeLeader(replica);
    else if (reg.leader < 0) {
      replica.role = 'offline';
      this.hooks.onRoleChange(replica);
      // AutoMQ: a partition moved here has no leader until this broker has opened it and elected itself.
      if (this.core.storageMode === 'shared' && reg.replicas.length === 1)
        this.openMoved(replica, topic.name, p);
    } else this.becomeFollower(replica);
  }

  /**
   * The new owner of a moved shared-storage partition (ElasticReplicaManager.asyncApplyDelta, AutoMQ): it waits for
   * the previous owner to close the streams (OpenStreams, DefaultOpenStreamChecker), opens the partition from the
   * hand-over (kafkasim.shared.partition.open.ms: the MetaStream snapshot the old owner sent, the data streams
   * opened), and only then asks the controller to elect it (alterPartitionManager.tryElectLeader), so clients learn
   * of the new leader once it serves.
   */
  private openMoved(r: PartitionReplica, topic: string, partition: number): void {
    if (r.ownership !== undefined) return;
    r.ownership = 'pending';
    const core = this.core;
    const epoch = r.leaderEpoch;
    const current = () =>
      this.replicas.get(r.key) === r && r.ownership === 'pending' && r.leaderEpoch === epoch;
    core.emit('broker.partition-opening', { topic, partition, leaderEpoch: epoch });
    const ask = (attempt: number) =>
      this.controller.send<{ errorCode: number }>({ type: 'OpenStreams', topic, partition }, (res) => {
        if (!current()) return;
        if (!res || res.errorCode !== 0) {
          if (attempt < 20)
            core.schedule(100, () => current() && ask(attempt + 1), 'broker.open-streams-retry');
          return;
        }
        core.schedule(
          core.config['kafkasim.shared.partition.open.ms'],
          () => {
            if (!current()) return;
            r.ownership = 'opened';
            core.emit('broker.partition-opened', { topic, partition, leaderEpoch: epoch });
            this.electLeader({ topic, partition });
          },
          'broker.partition-open',
        );
      });
    ask(0);
  }

  private createReplica(topic: TopicImage, p: number): PartitionReplica {
    const key = `${topic.topicId}:${p}`;
    let log: PartitionLog;
    if (this.core.storageMode === 'shared') {
      log = this.shared!.open(topic.topicId, topic.name, p);
      log.reportTo(this.core.sim.fingerprint, `shared/${key}`);
    } else {
      const logs = this.hooks.localLogs();
      log = logs.get(key) ?? new PartitionLog(topic.name, p);
      logs.set(key, log);
      log.reportTo(this.core.sim.fingerprint, `broker-${this.core.brokerId}/${key}`);
    }
    this.hooks.configureLog(topic.name, log);
    const r = new PartitionReplica(this, key, topic.name, topic.topicId, p, log);
    this.replicas.set(key, r);
    let hosted = this.byTopic.get(topic.topicId);
    if (!hosted) this.byTopic.set(topic.topicId, (hosted = { count: 0, byPartition: [] }));
    const list = hosted.byPartition;
    if (list.length <= p) {
      // Grown once to the topic's partition count (not one push per partition: 100,000 partitions on 100 brokers
      // were 10 million pushes), every slot holding undefined rather than a hole.
      const from = list.length;
      list.length = Math.max(p + 1, topic.partitions.length);
      list.fill(undefined, from);
    }
    if (list[p] === undefined) hosted.count++;
    list[p] = r;
    this.list = undefined;
    return r;
  }

  private becomeLeader(r: PartitionReplica): void {
    const core = this.core;
    r.resetFollowers();
    r.syncFollowers();
    if (core.storageMode === 'shared' && r.ownership !== 'opened') {
      // AutoMQ: a leader elected before it opened the partition (its previous owner failed) opens it first.
      r.ownership = undefined;
      r.role = 'opening';
      this.hooks.onRoleChange(r);
      const epoch = r.leaderEpoch;
      core.emit('broker.partition-opening', { topic: r.topic, partition: r.partition, leaderEpoch: epoch });
      core.schedule(
        core.config['kafkasim.shared.partition.open.ms'],
        () => {
          if (r.role !== 'opening' || r.leaderEpoch !== epoch || this.replicas.get(r.key) !== r) return;
          r.role = 'leader';
          r.log.assignEpochStart(epoch);
          r.log.highWatermark = r.log.logEndOffset;
          this.hooks.onRoleChange(r);
          core.emit('broker.leader', { topic: r.topic, partition: r.partition, leaderEpoch: epoch });
        },
        'broker.partition-open',
      );
      return;
    }
    r.ownership = undefined;
    r.role = 'leader';
    r.log.assignEpochStart(r.leaderEpoch);
    // Shared storage, opened before the election: everything in the streams is committed (RF 1).
    if (core.storageMode === 'shared') r.log.highWatermark = r.log.logEndOffset;
    core.emit('broker.leader', { topic: r.topic, partition: r.partition, leaderEpoch: r.leaderEpoch });
    r.maybeAdvanceHighWatermark();
    this.hooks.onRoleChange(r);
  }

  private becomeFollower(r: PartitionReplica): void {
    r.role = 'follower';
    r.resetFollowers();
    this.hooks.onRoleChange(r);
    this.core.emit('broker.follower', {
      topic: r.topic,
      partition: r.partition,
      leader: r.leaderId,
      leaderEpoch: r.leaderEpoch,
    });
    this.hooks.follow(r);
  }

  /** Stops hosting a replica. In shared mode a leader that loses it closes it and asks for the new election. */
  private removeReplica(
    key: string,
    deleteLog: boolean,
    closeAndElect: { topic: string; partition: number } | undefined,
  ): void {
    const r = this.replicas.get(key);
    if (!r) return;
    const core = this.core;
    this.replicas.delete(key);
    const hosted = this.byTopic.get(r.topicId);
    if (hosted?.byPartition[r.partition] === r) {
      hosted.byPartition[r.partition] = undefined;
      if (--hosted.count === 0) this.byTopic.delete(r.topicId);
    }
    this.list = undefined;
    r.role = 'offline';
    this.hooks.onRoleChange(r);
    // Fetch sessions holding it read it at their next fetch (and answer NOT_LEADER_OR_FOLLOWER).
    this.hooks.onPartitionChanged(key);
    r.failWaiters(Errors.NOT_LEADER_OR_FOLLOWER.code);
    if (deleteLog && core.storageMode === 'kafka') this.hooks.localLogs().delete(key);
    if (closeAndElect && core.storageMode === 'shared') {
      // AutoMQ's close (ElasticReplicaManager.stopPartitions -> Partition.close): writes are refused from now on,
      // in-flight appends drain, the final partition metadata is persisted and handed to the new owner, then the
      // streams are released (CloseStreams); the rest of the WAL uploads in the background (AutoMQ #3495).
      core.emit('broker.partition-closing', { topic: r.topic, partition: r.partition });
      core.schedule(
        core.config['kafkasim.shared.partition.close.ms'],
        () => {
          core.emit('broker.partition-closed', { topic: r.topic, partition: r.partition });
          this.closeStreams(closeAndElect);
        },
        'broker.partition-close',
      );
    }
  }

  private closeStreams(tp: { topic: string; partition: number }, attempt = 0): void {
    this.controller.send<{ errorCode: number }>({ type: 'CloseStreams', ...tp }, (r) => {
      if (!r && attempt < 20)
        this.core.schedule(100, () => this.closeStreams(tp, attempt + 1), 'broker.close-streams-retry');
    });
  }

  private electLeader(tp: { topic: string; partition: number }, attempt = 0): void {
    this.controller.send<ElectLeadersResponse>({ type: 'ElectLeaders', partitions: [tp] }, (r) => {
      if (!r && attempt < 20)
        this.core.schedule(100, () => this.electLeader(tp, attempt + 1), 'broker.elect-retry');
    });
  }
}

export type { ReplicaRole };
