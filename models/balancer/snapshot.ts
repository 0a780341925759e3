/**
 * The cluster model snapshot goals optimize over: AutoMQ's `ClusterModelSnapshot` (`model/`, taken by
 * `AnomalyDetectorImpl` at each detect). It is taken at each detect and then mutated by the goals as they pick
 * actions, so that each goal sees the moves the ones before it chose.
 *
 * Brokers: only active ones that are not excluded; each carries its partitions, its load per resource (the sum
 * of its partitions'), whether its metrics are out of date (then it is ineligible) and whether it is slow.
 * Partitions are kept as parallel arrays indexed by a partition number, so that a pass over 100,000 of them
 * allocates little; a partition's load is trusted only when its leader reported it.
 */
import type { Action } from './action.ts';

/** AutoMQ's resources: the only ones its goals balance (`Resource.java`). */
export type Resource = 'NW_IN' | 'NW_OUT';

export class SnapshotBroker {
  /** Bytes/s. */
  loadIn = 0;
  loadOut = 0;
  /** Partition numbers this broker leads (the model's replicas: AutoMQ maps a partition to its leader). */
  readonly replicas: number[] = [];
  /** Partitions whose load is not trusted (no metrics yet). */
  untrusted = 0;

  constructor(
    readonly index: number,
    readonly brokerId: number,
    readonly rack: string | null,
    /** Why the broker's metrics are out of date (ineligible for goals), or undefined when they are fresh. */
    public outOfDate: string | undefined,
    readonly slow: boolean,
    readonly pendingAppendLatencyMs: number,
    readonly pendingFetchLatencyMs: number,
  ) {}

  /** Decided when the snapshot is taken (AutoMQ's `isMetricsOutOfDate`), not changed by later moves. */
  get metricsOutOfDate(): boolean {
    return this.outOfDate !== undefined;
  }

  /** Every partition's load is known. */
  get trusted(): boolean {
    return this.untrusted === 0;
  }

  load(resource: Resource): number {
    return resource === 'NW_IN' ? this.loadIn : this.loadOut;
  }
}

export interface SnapshotPartitionInput {
  topic: string;
  partition: number;
  leader: number;
  bytesIn: number;
  bytesOut: number;
  /** False when the leader has not reported this partition yet. */
  trusted: boolean;
  /** False for partitions of excluded topics: they stay where they are but their load counts. */
  movable: boolean;
  /** Internal topics, moved last (GoalUtils.isCriticalTopic). */
  critical: boolean;
  /** Other replicas (kafka storage mode with RF > 1): a move must not land on one of them. */
  followers?: readonly number[];
}

export interface SnapshotBrokerInput {
  brokerId: number;
  rack: string | null;
  outOfDate: string | undefined;
  slow: boolean;
  pendingAppendLatencyMs: number;
  pendingFetchLatencyMs: number;
}

/** Partitions as parallel columns: what the ClusterModel fills without one object per partition. */
export interface PartitionColumns {
  count: number;
  topics: string[];
  ids: Int32Array;
  leaders: Int32Array;
  bytesIn: Float64Array;
  bytesOut: Float64Array;
  /** PARTITION_TRUSTED | PARTITION_MOVABLE | PARTITION_CRITICAL. */
  flags: Uint8Array;
  /** Other replicas by partition number (kafka storage mode with RF > 1). */
  followers: Map<number, readonly number[]>;
}

export const PARTITION_TRUSTED = 1;
export const PARTITION_MOVABLE = 2;
export const PARTITION_CRITICAL = 4;

export function partitionColumns(count: number): PartitionColumns {
  return {
    count: 0,
    topics: new Array(count),
    ids: new Int32Array(count),
    leaders: new Int32Array(count),
    bytesIn: new Float64Array(count),
    bytesOut: new Float64Array(count),
    flags: new Uint8Array(count),
    followers: new Map(),
  };
}

export class ClusterSnapshot {
  /** Brokers by ascending id (the order goals visit them, as AutoMQ's HashMap order does for small ids). */
  readonly brokers: readonly SnapshotBroker[];
  readonly partitionCount: number;
  private readonly byId = new Map<number, SnapshotBroker>();
  private readonly topics: string[];
  private readonly ids: Int32Array;
  private readonly owners: Int32Array;
  private readonly position: Int32Array;
  private readonly bytesIn: Float64Array;
  private readonly bytesOut: Float64Array;
  private readonly flags: Uint8Array;
  private readonly followers: Map<number, readonly number[]>;
  private index: Map<string, number> | undefined;

  /** A snapshot from partition objects (convenient for tests and small clusters). */
  static of(
    time: number,
    brokers: readonly SnapshotBrokerInput[],
    partitions: readonly SnapshotPartitionInput[],
  ): ClusterSnapshot {
    const cols = partitionColumns(partitions.length);
    for (const x of partitions) {
      const i = cols.count++;
      cols.topics[i] = x.topic;
      cols.ids[i] = x.partition;
      cols.leaders[i] = x.leader;
      cols.bytesIn[i] = x.bytesIn;
      cols.bytesOut[i] = x.bytesOut;
      cols.flags[i] =
        (x.trusted ? PARTITION_TRUSTED : 0) |
        (x.movable ? PARTITION_MOVABLE : 0) |
        (x.critical ? PARTITION_CRITICAL : 0);
      if (x.followers && x.followers.length > 0) cols.followers.set(i, x.followers);
    }
    return new ClusterSnapshot(time, brokers, cols);
  }

  /** Takes ownership of `partitions`; partitions whose leader is not among `brokers` are left out. */
  constructor(
    readonly time: number,
    brokers: readonly SnapshotBrokerInput[],
    partitions: PartitionColumns,
  ) {
    const sorted = [...brokers].sort((a, b) => a.brokerId - b.brokerId);
    this.brokers = sorted.map(
      (b, i) =>
        new SnapshotBroker(
          i,
          b.brokerId,
          b.rack,
          b.outOfDate,
          b.slow,
          b.pendingAppendLatencyMs,
          b.pendingFetchLatencyMs,
        ),
    );
    for (const b of this.brokers) this.byId.set(b.brokerId, b);
    const { topics, ids, leaders, bytesIn, bytesOut, flags } = partitions;
    const followers = new Map<number, readonly number[]>();
    const owners = new Int32Array(partitions.count);
    const position = new Int32Array(partitions.count);
    // Compact in place: keep partitions whose leader is in the snapshot.
    let n = 0;
    for (let i = 0; i < partitions.count; i++) {
      const b = this.byId.get(leaders[i]!);
      if (!b) continue;
      if (n !== i) {
        topics[n] = topics[i]!;
        ids[n] = ids[i]!;
        flags[n] = flags[i]!;
      }
      const trusted = (flags[n]! & PARTITION_TRUSTED) !== 0;
      bytesIn[n] = trusted ? bytesIn[i]! : 0;
      bytesOut[n] = trusted ? bytesOut[i]! : 0;
      const f = partitions.followers.get(i);
      if (f) followers.set(n, f);
      owners[n] = b.index;
      position[n] = b.replicas.length;
      b.replicas.push(n);
      b.loadIn += bytesIn[n]!;
      b.loadOut += bytesOut[n]!;
      if (!trusted) b.untrusted++;
      n++;
    }
    this.partitionCount = n;
    topics.length = n;
    this.topics = topics;
    this.ids = ids;
    this.owners = owners;
    this.position = position;
    this.bytesIn = bytesIn;
    this.bytesOut = bytesOut;
    this.flags = flags;
    this.followers = followers;
    for (const b of this.brokers) {
      if (b.outOfDate === undefined && b.untrusted > 0) {
        b.outOfDate = `${b.untrusted} partition(s) without metrics yet`;
      }
    }
  }

  /** Every partition's load of `resource`, indexed by partition number (do not modify). */
  loads(resource: Resource): Float64Array<ArrayBufferLike> {
    return resource === 'NW_IN' ? this.bytesIn : this.bytesOut;
  }

  broker(brokerId: number): SnapshotBroker | undefined {
    return this.byId.get(brokerId);
  }

  replicasFor(brokerId: number): readonly number[] {
    return this.byId.get(brokerId)?.replicas ?? [];
  }

  topic(p: number): string {
    return this.topics[p]!;
  }

  partitionId(p: number): number {
    return this.ids[p]!;
  }

  /** The broker that holds partition `p` now (after the actions applied so far). */
  owner(p: number): SnapshotBroker {
    return this.brokers[this.owners[p]!]!;
  }

  partitionLoad(p: number, resource: Resource): number {
    return resource === 'NW_IN' ? this.bytesIn[p]! : this.bytesOut[p]!;
  }

  isTrusted(p: number): boolean {
    return (this.flags[p]! & PARTITION_TRUSTED) !== 0;
  }

  isMovable(p: number): boolean {
    return (this.flags[p]! & PARTITION_MOVABLE) !== 0;
  }

  isCritical(p: number): boolean {
    return (this.flags[p]! & PARTITION_CRITICAL) !== 0;
  }

  /** Replicas of `p` other than its leader (kafka storage mode with RF > 1). */
  followersOf(p: number): readonly number[] {
    return this.followers.get(p) ?? NONE;
  }

  /** The partition number of topic-partition, or -1 when the snapshot does not hold it. */
  find(topic: string, partition: number): number {
    if (!this.index) {
      this.index = new Map();
      for (let p = 0; p < this.partitionCount; p++)
        this.index.set(`${this.topics[p]}\u0000${this.ids[p]}`, p);
    }
    return this.index.get(`${topic}\u0000${partition}`) ?? -1;
  }

  /** A MOVE of `p` from its current broker to `destBrokerId`. */
  moveAction(p: number, destBrokerId: number): Action {
    return {
      type: 'MOVE',
      partition: p,
      topic: this.topics[p]!,
      partitionId: this.ids[p]!,
      srcBrokerId: this.owner(p).brokerId,
      destBrokerId,
    };
  }

  /** Applies a MOVE: the partition and its load go from the source to the destination. */
  applyAction(action: Action): void {
    this.move(action.partition, action.srcBrokerId, action.destBrokerId);
  }

  undoAction(action: Action): void {
    this.move(action.partition, action.destBrokerId, action.srcBrokerId);
  }

  private move(p: number, fromId: number, toId: number): void {
    const from = this.byId.get(fromId);
    const to = this.byId.get(toId);
    if (!from || !to || this.owners[p] !== from.index) {
      throw new Error(`cannot move ${this.topics[p]}-${this.ids[p]} from broker ${fromId} to ${toId}`);
    }
    const pos = this.position[p]!;
    const last = from.replicas.pop()!;
    if (last !== p) {
      from.replicas[pos] = last;
      this.position[last] = pos;
    }
    this.position[p] = to.replicas.length;
    to.replicas.push(p);
    this.owners[p] = to.index;
    const bin = this.bytesIn[p]!;
    const bout = this.bytesOut[p]!;
    from.loadIn -= bin;
    from.loadOut -= bout;
    to.loadIn += bin;
    to.loadOut += bout;
    if (!this.isTrusted(p)) {
      from.untrusted--;
      to.untrusted++;
    }
  }
}

const NONE: readonly number[] = Object.freeze([]);
