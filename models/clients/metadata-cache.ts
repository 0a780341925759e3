// A client's view of the cluster, from Metadata responses: which broker leads which partition, at which epoch.
// Clients refresh it periodically (metadata.max.age.ms / topic.metadata.refresh.interval.ms) and when an error
// says it is stale; a KIP-951 leader hint in a produce or fetch error updates one partition at once.
import type { NodeId, RandomStream } from '../../src/sim/index.ts';
import type { LeaderHint, MetadataResponse, MetadataTopic } from '../broker/api.ts';
import { brokerNodeId } from '../broker/broker.ts';

export interface PartitionLeader {
  leader: number;
  leaderEpoch: number;
}

export class MetadataCache {
  private topics = new Map<string, MetadataTopic>();
  private leaders = new Map<string, PartitionLeader[]>();
  private brokerIds: number[] = [];
  /** Virtual time of the last successful refresh, -Infinity before the first. */
  lastRefresh = Number.NEGATIVE_INFINITY;

  constructor(private readonly bootstrap: readonly NodeId[]) {}

  update(res: MetadataResponse, now: number): void {
    this.lastRefresh = now;
    if (res.brokers.length > 0) this.brokerIds = res.brokers.map((b) => b.brokerId);
    for (const t of res.topics) {
      if (t.errorCode !== 0) {
        this.topics.delete(t.name);
        continue;
      }
      this.topics.set(t.name, t);
      let list = this.leaders.get(t.name);
      if (!list) this.leaders.set(t.name, (list = []));
      for (const p of t.partitions) {
        const known = list[p.partition];
        // Never go back to an older epoch (a stale broker's answer).
        if (known && known.leaderEpoch > p.leaderEpoch) continue;
        list[p.partition] = { leader: p.leader, leaderEpoch: p.leaderEpoch };
      }
    }
  }

  /** KIP-951: a newer leader learned from an error response. */
  hint(topic: string, partition: number, hint: LeaderHint): void {
    let list = this.leaders.get(topic);
    if (!list) this.leaders.set(topic, (list = []));
    const known = list[partition];
    if (!known || hint.leaderEpoch > known.leaderEpoch)
      list[partition] = { leader: hint.leaderId, leaderEpoch: hint.leaderEpoch };
  }

  /** Forget a partition's leader (after NOT_LEADER without a hint). */
  invalidate(topic: string, partition: number): void {
    const list = this.leaders.get(topic);
    const known = list?.[partition];
    if (list && known) list[partition] = { leader: -1, leaderEpoch: known.leaderEpoch };
  }

  partitionCount(topic: string): number | undefined {
    return this.topics.get(topic)?.partitions.length;
  }

  hasTopic(topic: string): boolean {
    return this.topics.has(topic);
  }

  leader(topic: string, partition: number): PartitionLeader | undefined {
    return this.leaders.get(topic)?.[partition];
  }

  /** Partitions of the topic whose leader is known (Java's "available partitions"). */
  availablePartitions(topic: string): number[] {
    const n = this.partitionCount(topic) ?? 0;
    const out: number[] = [];
    for (let p = 0; p < n; p++) if ((this.leader(topic, p)?.leader ?? -1) >= 0) out.push(p);
    return out;
  }

  /** A broker to ask for metadata: a known live broker, else a bootstrap server. */
  pickNode(rng: RandomStream): NodeId {
    if (this.brokerIds.length > 0) return brokerNodeId(rng.pick(this.brokerIds));
    return rng.pick(this.bootstrap);
  }

  bootstrapNodes(): readonly NodeId[] {
    return this.bootstrap;
  }
}
