/**
 * Where a shared-storage (AutoMQ) partition goes when its broker leaves: AutoMQ's
 * `LoadAwarePartitionLeaderSelector` (AutoMQ/automq metadata/.../controller/es/, used when a broker is fenced or
 * shuts down) prefers active brokers in the leaving broker's rack and picks at random with weight 1/load,
 * updating the load after each pick so that one broker does not take everything.
 *
 * With the auto-balancer running, load is its `ClusterStats` (bytes in + out per broker and partition,
 * published every 30 s): weight 1/max(1, load), the picked broker's load grows by the partition's, brokers the
 * balancer excludes are never picked, and a partition of unknown load goes to a uniformly random candidate
 * (AutoMQ falls back to its RandomPartitionLeaderSelector; AutoMQ/automq LoadAwarePartitionLeaderSelector.java).
 * Without it, load is the number of partitions a broker leads (plus those picked for it in this round), and
 * the weight is 1/(1 + load) so that an empty broker has a finite weight.
 */
import { activeBrokerIds, broker, type MetadataImage } from '../metadata/index.ts';
import type { ControlRandom } from './control-context.ts';

/** AutoMQ's ClusterStats: what the auto-balancer publishes for the failover path. */
export interface ClusterStats {
  /** Bytes/s (in + out) per broker the balancer has fresh metrics for. */
  readonly brokerLoads: ReadonlyMap<number, number>;
  /** Bytes/s (in + out) of a partition, or undefined when the balancer does not know it. */
  partitionLoad(topic: string, partition: number): number | undefined;
  readonly excludedBrokers: ReadonlySet<number>;
}

export class LoadAwareLeaderSelector {
  private readonly candidates: number[];
  private readonly load = new Map<number, number>();

  constructor(
    image: MetadataImage,
    removedBroker: number,
    private readonly random: ControlRandom,
    private readonly stats?: ClusterStats,
  ) {
    const active = activeBrokerIds(image).filter(
      (id) => id !== removedBroker && !stats?.excludedBrokers.has(id),
    );
    const rack = broker(image, removedBroker)?.rack ?? null;
    const sameRack = active.filter((id) => (broker(image, id)?.rack ?? null) === rack);
    this.candidates = sameRack.length > 0 ? sameRack : active;
    if (stats) {
      for (const id of this.candidates) {
        const load = stats.brokerLoads.get(id);
        if (load !== undefined) this.load.set(id, Math.max(1, load));
      }
      return;
    }
    for (const id of this.candidates) this.load.set(id, 0);
    for (const topic of Object.values(image.topics)) {
      for (const p of topic.partitions) {
        if (this.load.has(p.leader)) this.load.set(p.leader, this.load.get(p.leader)! + 1);
      }
    }
  }

  /** The broker for the next partition, or undefined when no active broker is left. */
  select(tp?: { topic: string; partition: number }): number | undefined {
    if (this.candidates.length === 0) return undefined;
    if (this.stats) {
      const weighted = [...this.load.keys()];
      const tpLoad = tp ? this.stats.partitionLoad(tp.topic, tp.partition) : undefined;
      if (weighted.length === 0 || tpLoad === undefined)
        return this.candidates[this.random.int(0, this.candidates.length - 1)];
      const chosen = this.random.weightedPick(
        weighted,
        weighted.map((id) => 1 / this.load.get(id)!),
      );
      this.load.set(chosen, this.load.get(chosen)! + tpLoad);
      return chosen;
    }
    const weights = this.candidates.map((id) => 1 / (1 + this.load.get(id)!));
    const chosen = this.random.weightedPick(this.candidates, weights);
    this.load.set(chosen, this.load.get(chosen)! + 1);
    return chosen;
  }
}
