// A client's view of the cluster, from Metadata responses: which broker leads which partition, at which epoch.
// Clients refresh it periodically (metadata.max.age.ms / topic.metadata.refresh.interval.ms) and when an error
// says it is stale; a KIP-951 leader hint in a produce or fetch error updates one partition at once.
//
// Refreshes are paced as Java's Metadata.timeToAllowUpdate paces them (apache/kafka clients/.../Metadata.java,
// KIP-580): at least retry.backoff.ms after the last answer (or failure), growing exponentially to
// retry.backoff.max.ms with failed attempts and with answers that taught nothing new ("equivalent responses": no
// partition with a newer leader epoch), so a client waiting for a leader does not ask back to back.

import {
  brokerNodeId,
  type LeaderHint,
  type MetadataResponse,
  type MetadataTopic,
} from '../protocol/index.ts';
import type { NodeId, RandomStream } from '../sim/index.ts';
import { exponentialBackoff } from './exponential-backoff.ts';

export interface PartitionLeader {
  leader: number;
  leaderEpoch: number;
}

export class MetadataCache {
  private topics = new Map<string, MetadataTopic>();
  private leaders = new Map<string, PartitionLeader[]>();
  /**
   * Topics whose leaders were changed by a hint or an invalidation since their last answer: an answer with the
   * same (shared, read-only) topic object as the last one is applied in full only for these; for the others it
   * would write what the list already holds.
   */
  private touched = new Set<string>();
  /** availablePartitions per topic, until its leaders change. */
  private available = new Map<string, number[]>();
  private brokerIds: number[] = [];
  /** Virtual time of the last successful refresh, -Infinity before the first. */
  lastRefresh = Number.NEGATIVE_INFINITY;
  /** Java's lastRefreshMs: the last answer or failure; -Infinity lets the next refresh go at once. */
  private lastAttempt = Number.NEGATIVE_INFINITY;
  /** Failed refreshes since the last answer. */
  private failedAttempts = 0;
  /** Answers in a row that brought no newer leader epoch. */
  private equivalentResponses = 0;
  /** When the next refresh may go, jittered once per answer (undefined: not drawn yet). */
  private allowedAt: number | undefined;

  constructor(
    private readonly bootstrap: readonly NodeId[],
    private readonly backoff: { initialMs: number; maxMs: number } = { initialMs: 100, maxMs: 1000 },
  ) {}

  /** Applies an answer; returns whether it taught anything new (a partition or a newer leader epoch). */
  update(res: MetadataResponse, now: number): boolean {
    this.lastRefresh = now;
    this.lastAttempt = now;
    this.failedAttempts = 0;
    this.allowedAt = undefined;
    let changed = false;
    if (res.brokers.length > 0) this.brokerIds = res.brokers.map((b) => b.brokerId);
    for (const t of res.topics) {
      if (t.errorCode !== 0) {
        if (this.topics.delete(t.name)) changed = true;
        this.available.delete(t.name);
        continue;
      }
      const before = this.topics.get(t.name);
      if (!before) changed = true;
      else if (before === t && !this.touched.has(t.name)) continue; // the same answer as last time
      this.topics.set(t.name, t);
      this.touched.delete(t.name);
      this.available.delete(t.name);
      let list = this.leaders.get(t.name);
      if (!list) this.leaders.set(t.name, (list = []));
      const parts = t.partitions;
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        const known = list[p.partition];
        // Never go back to an older epoch (a stale broker's answer).
        if (known && known.leaderEpoch > p.leaderEpoch) continue;
        if (!known || p.leaderEpoch > known.leaderEpoch) changed = true;
        // The answer's partition has the leader and epoch (answers are read-only, entries are replaced).
        list[p.partition] = p;
      }
    }
    this.equivalentResponses = changed ? 0 : this.equivalentResponses + 1;
    return changed;
  }

  /** A refresh that got no answer (Java's failedUpdate). */
  failedUpdate(now: number): void {
    this.lastAttempt = now;
    this.failedAttempts++;
    this.equivalentResponses = 0;
    this.allowedAt = undefined;
  }

  /** New topics are wanted: the next refresh goes at once (Java's requestUpdateForNewTopics). */
  requestUpdateForNewTopics(): void {
    this.lastAttempt = Number.NEGATIVE_INFINITY;
    this.equivalentResponses = 0;
    this.allowedAt = undefined;
  }

  /** The periodic refresh (metadata.max.age.ms) is not slowed by earlier equivalent answers. */
  expire(): void {
    if (this.equivalentResponses === 0) return;
    this.equivalentResponses = 0;
    this.allowedAt = undefined;
  }

  /** Ms until a refresh may be sent (Java's timeToAllowUpdate); `random` jitters it, once per answer. */
  timeToAllowUpdate(now: number, random: RandomStream): number {
    if (this.allowedAt === undefined) {
      if (this.lastAttempt === Number.NEGATIVE_INFINITY) this.allowedAt = 0;
      else {
        const uniform = () => random.next();
        const forAttempts = exponentialBackoff(Math.max(0, this.failedAttempts - 1), this.backoff, uniform);
        const forEquivalent =
          this.equivalentResponses > 0
            ? exponentialBackoff(this.equivalentResponses - 1, this.backoff, uniform)
            : 0;
        this.allowedAt = this.lastAttempt + Math.max(forAttempts, forEquivalent);
      }
    }
    return Math.max(0, this.allowedAt - now);
  }

  /** KIP-951: a newer leader learned from an error response. */
  hint(topic: string, partition: number, hint: LeaderHint): void {
    let list = this.leaders.get(topic);
    if (!list) this.leaders.set(topic, (list = []));
    const known = list[partition];
    if (!known || hint.leaderEpoch > known.leaderEpoch) {
      list[partition] = { leader: hint.leaderId, leaderEpoch: hint.leaderEpoch };
      this.touched.add(topic);
      this.available.delete(topic);
    }
  }

  /** Forget a partition's leader (after NOT_LEADER without a hint). */
  invalidate(topic: string, partition: number): void {
    const list = this.leaders.get(topic);
    const known = list?.[partition];
    if (list && known) {
      list[partition] = { leader: -1, leaderEpoch: known.leaderEpoch };
      this.touched.add(topic);
      this.available.delete(topic);
    }
  }

  partitionCount(topic: string): number | undefined {
    return this.topics.get(topic)?.partitions.length;
  }

  hasTopic(topic: string): boolean {
    return this.topics.has(topic);
  }

  /** The topic's id as the last answer gave it (the consumer group protocol names partitions by topic id). */
  topicId(topic: string): string | undefined {
    return this.topics.get(topic)?.topicId ?? undefined;
  }

  /** The name of the topic with this id, if a metadata answer has told it. */
  topicName(topicId: string): string | undefined {
    for (const t of this.topics.values()) if (t.topicId === topicId) return t.name;
    return undefined;
  }

  leader(topic: string, partition: number): PartitionLeader | undefined {
    return this.leaders.get(topic)?.[partition];
  }

  /** Partitions of the topic whose leader is known (Java's "available partitions"; read-only, kept until they change). */
  availablePartitions(topic: string): readonly number[] {
    let out = this.available.get(topic);
    if (out) return out;
    const n = this.partitionCount(topic) ?? 0;
    out = [];
    for (let p = 0; p < n; p++) if ((this.leader(topic, p)?.leader ?? -1) >= 0) out.push(p);
    this.available.set(topic, out);
    return out;
  }

  /** A broker to ask for metadata: a known live broker, else a bootstrap server. */
  /** The brokers the last metadata answer listed. */
  brokers(): readonly number[] {
    return this.brokerIds;
  }

  pickNode(rng: RandomStream): NodeId {
    if (this.brokerIds.length > 0) return brokerNodeId(rng.pick(this.brokerIds));
    return rng.pick(this.bootstrap);
  }

  bootstrapNodes(): readonly NodeId[] {
    return this.bootstrap;
  }
}
