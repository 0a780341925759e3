// One partition replica hosted by a broker (Kafka's `kafka.cluster.Partition`): its log, its role, and on the
// leader the followers' fetch positions, the ISR (with the AlterPartition in flight, KIP-497), the high
// watermark, and the acks=all produce requests waiting for it.

import type { AlterPartitionResponse, ControllerRequest } from '../protocol/index.ts';
import { Errors } from '../protocol/index.ts';
import type { PartitionLog } from '../storage/index.ts';

export type ReplicaRole = 'leader' | 'follower' | 'opening' | 'offline';

/** What the leader knows of one follower (Kafka's `Replica` state: LEO, lastCaughtUpTime). */
export interface FollowerState {
  leo: number;
  lastCaughtUpTime: number;
  lastFetchTime: number;
  lastFetchLeaderLeo: number;
  /**
   * Set while the follower is caught up on this (idle) partition in a fetch session that no longer reads it: it
   * is caught up as of the session's last fetch (see fetch-session.ts), folded in when the partition is read.
   */
  idleIn?: { readonly lastFetchMs: number } | undefined;
}

/** When the follower was last caught up, counting the fetches of a session that no longer reads the partition. */
export function lastCaughtUp(f: FollowerState): number {
  return f.idleIn ? Math.max(f.lastCaughtUpTime, f.idleIn.lastFetchMs) : f.lastCaughtUpTime;
}

/** Folds a session's fetches into the follower's state (as if each had read the partition) and ends the idle state. */
export function foldIdle(f: FollowerState): void {
  const s = f.idleIn;
  if (!s) return;
  if (s.lastFetchMs > f.lastCaughtUpTime) f.lastCaughtUpTime = s.lastFetchMs;
  if (s.lastFetchMs > f.lastFetchTime) f.lastFetchTime = s.lastFetchMs;
  f.idleIn = undefined;
}

/** An acks=all produce waiting for the high watermark to pass `requiredOffset` (part of a DelayedProduce). */
export interface AckWaiter {
  requiredOffset: number;
  /** The topic's min.insync.replicas when the batch was appended. */
  minIsr: number;
  resolve: (errorCode: number) => void;
}

/** The followers of a replica that does not lead (never written: syncFollowers makes a leader its own map). */
const NO_FOLLOWERS: ReadonlyMap<number, FollowerState> = new Map();

/** What a replica needs from its broker. */
export interface ReplicaHost {
  readonly brokerId: number;
  readonly brokerEpoch: number;
  now(): number;
  emit(kind: string, fields?: Record<string, unknown>): void;
  toController<R>(req: ControllerRequest, cb: (r: R | undefined) => void): void;
  /** Whether the image shows broker `id` registered, unfenced and not shutting down. */
  isBrokerActive(id: number): boolean;
  /** The high watermark moved: fetches parked on this partition may answer now. */
  onHighWatermark(replica: PartitionReplica): void;
  /** Its role, leader, leader epoch, ISR, pending ISR or replica set was set (the data-plane invariants look). */
  onReplicaChanged(replica: PartitionReplica): void;
}

/**
 * A partition replica hosted by this broker. What a checker reads of it (role, leader, leader epoch, ISR, pending
 * ISR, replica set) is set through accessors that tell the host, so that no change goes unseen.
 */
export class PartitionReplica {
  #role: ReplicaRole = 'offline';
  /**
   * Shared storage: this broker has opened the partition as its new owner (after a move) and may lead it at once
   * when elected; undefined while not opened, 'pending' while opening.
   */
  ownership: 'pending' | 'opened' | undefined = undefined;
  #leaderId = -1;
  #leaderEpoch = -1;
  // The ISR and replica set are never written in place (each change is a new array), so a replica may hold the
  // metadata image's own frozen arrays.
  #isr: readonly number[] = [];
  #replicas: readonly number[] = [];
  #pendingIsr: readonly number[] | undefined = undefined;
  partitionEpoch = -1;
  /** The leader's followers (made by syncFollowers: a replica that never leads never has its own map). */
  #followers: Map<number, FollowerState> | undefined = undefined;
  waiters: AckWaiter[] = [];
  /** Bytes in/out since the broker started leading it (for metrics). */
  bytesIn = 0;
  bytesOut = 0;

  constructor(
    private readonly host: ReplicaHost,
    readonly key: string,
    readonly topic: string,
    readonly topicId: string,
    readonly partition: number,
    public log: PartitionLog,
  ) {}

  get role(): ReplicaRole {
    return this.#role;
  }
  set role(role: ReplicaRole) {
    this.#role = role;
    this.host.onReplicaChanged(this);
  }
  get leaderId(): number {
    return this.#leaderId;
  }
  set leaderId(id: number) {
    this.#leaderId = id;
    this.host.onReplicaChanged(this);
  }
  get leaderEpoch(): number {
    return this.#leaderEpoch;
  }
  set leaderEpoch(epoch: number) {
    this.#leaderEpoch = epoch;
    this.host.onReplicaChanged(this);
  }
  get isr(): readonly number[] {
    return this.#isr;
  }
  set isr(isr: readonly number[]) {
    this.#isr = isr;
    this.host.onReplicaChanged(this);
  }
  get replicas(): readonly number[] {
    return this.#replicas;
  }
  set replicas(replicas: readonly number[]) {
    this.#replicas = replicas;
    this.host.onReplicaChanged(this);
  }
  /** The ISR proposed by an AlterPartition in flight (KIP-497's pending state), undefined when none. */
  get pendingIsr(): readonly number[] | undefined {
    return this.#pendingIsr;
  }
  set pendingIsr(isr: readonly number[] | undefined) {
    this.#pendingIsr = isr;
    this.host.onReplicaChanged(this);
  }

  /** What the leader knows of each follower, by broker id (none but on a leader). */
  get followers(): ReadonlyMap<number, FollowerState> {
    return this.#followers ?? NO_FOLLOWERS;
  }

  /** Forgets the followers (a new leadership, or none, starts over). */
  resetFollowers(): void {
    this.#followers = undefined;
  }

  /** A leader tracks every other replica of the partition (a reassignment adds and removes some). */
  syncFollowers(): void {
    const me = this.host.brokerId;
    const followers = (this.#followers ??= new Map());
    for (const id of this.replicas) {
      if (id !== me && !followers.has(id)) {
        followers.set(id, {
          leo: -1,
          lastCaughtUpTime: this.host.now(),
          lastFetchTime: 0,
          lastFetchLeaderLeo: -1,
        });
      }
    }
    for (const id of [...followers.keys()]) if (!this.replicas.includes(id)) followers.delete(id);
  }

  maybeAdvanceHighWatermark(): void {
    if (this.role !== 'leader') return;
    // Kafka's "maximal ISR": while an expansion is in flight the new member already counts, so nothing is
    // acknowledged that it lacks (the controller may make it leader the moment it commits the expansion, as
    // a kafka-storage reassignment does); while a shrink is in flight the leaving member still counts.
    let hw = this.log.logEndOffset;
    const counted = this.pendingIsr ? new Set([...this.isr, ...this.pendingIsr]) : this.isr;
    for (const id of counted) {
      if (id === this.host.brokerId) continue;
      const f = this.followers.get(id);
      hw = Math.min(hw, f ? Math.max(f.leo, 0) : 0);
    }
    if (hw > this.log.highWatermark) {
      this.log.highWatermark = hw;
      this.completeWaiters();
      this.host.onHighWatermark(this);
    }
  }

  private completeWaiters(): void {
    if (this.waiters.length === 0) return;
    const hw = this.log.highWatermark;
    // Kafka's Partition.checkEnoughReplicasReachOffset: a batch the high watermark passed is acknowledged only if
    // the (maximal) ISR still has min.insync.replicas members; the ISR may have shrunk since the append.
    const isrSize = this.pendingIsr ? new Set([...this.isr, ...this.pendingIsr]).size : this.isr.length;
    const keep: AckWaiter[] = [];
    for (const w of this.waiters) {
      if (w.requiredOffset > hw) keep.push(w);
      else w.resolve(isrSize >= w.minIsr ? 0 : Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code);
    }
    this.waiters = keep;
  }

  failWaiters(code: number): void {
    const ws = this.waiters;
    if (ws.length === 0) return; // (a new replica has none: no new empty list per replica)
    this.waiters = [];
    for (const w of ws) w.resolve(code);
  }

  /** A follower fetched from `fetchOffset`: its LEO, its caught-up time, ISR expansion, the high watermark. */
  onFollowerFetch(replicaId: number, fetchOffset: number): void {
    const f = this.followers.get(replicaId);
    if (!f) return;
    foldIdle(f);
    const now = this.host.now();
    const leo = this.log.logEndOffset;
    // Kafka's Replica.updateFetchStateOrThrow: caught up now at the leader's end; caught up as of the previous fetch
    // if it reached what the leader had then, but never earlier than already known (a new leader's followers start
    // with the time of its election and no previous fetch, so a first fetch that is behind must not reset it to 0).
    if (fetchOffset >= leo) f.lastCaughtUpTime = now;
    else if (fetchOffset >= f.lastFetchLeaderLeo && f.lastFetchTime > f.lastCaughtUpTime)
      f.lastCaughtUpTime = f.lastFetchTime;
    f.leo = fetchOffset;
    f.lastFetchLeaderLeo = leo;
    f.lastFetchTime = now;
    if (
      !this.isr.includes(replicaId) &&
      fetchOffset >= this.log.highWatermark &&
      this.host.isBrokerActive(replicaId)
    ) {
      this.alterIsr(
        [...this.isr, replicaId].sort((a, b) => a - b),
        'expand',
      );
    }
    this.maybeAdvanceHighWatermark();
  }

  /** Drops from the ISR the followers not caught up within `maxLagMs` (Kafka's Partition.maybeShrinkIsr). */
  maybeShrinkIsr(maxLagMs: number): void {
    if (this.role !== 'leader' || this.isr.length <= 1) return;
    const now = this.host.now();
    const out = this.isr.filter((id) => {
      if (id === this.host.brokerId) return false;
      const f = this.followers.get(id);
      return !f || now - lastCaughtUp(f) > maxLagMs;
    });
    if (out.length > 0)
      this.alterIsr(
        this.isr.filter((id) => !out.includes(id)),
        'shrink',
      );
  }

  private alterIsr(newIsr: number[], why: 'expand' | 'shrink'): void {
    if (this.pendingIsr) return;
    this.pendingIsr = newIsr;
    this.host.emit('broker.alter-isr', {
      topic: this.topic,
      partition: this.partition,
      why,
      isr: this.isr,
      newIsr,
    });
    this.host.toController<AlterPartitionResponse>(
      {
        type: 'AlterPartition',
        brokerId: this.host.brokerId,
        brokerEpoch: this.host.brokerEpoch,
        topicId: this.topicId,
        partition: this.partition,
        leaderEpoch: this.leaderEpoch,
        partitionEpoch: this.partitionEpoch,
        newIsr,
      },
      (res) => {
        this.pendingIsr = undefined;
        if (
          res &&
          res.errorCode === 0 &&
          res.leaderEpoch === this.leaderEpoch &&
          res.partitionEpoch >= this.partitionEpoch
        ) {
          this.isr = [...res.isr];
          this.partitionEpoch = res.partitionEpoch;
          this.maybeAdvanceHighWatermark();
        }
      },
    );
  }
}
