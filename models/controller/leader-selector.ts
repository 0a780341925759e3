/**
 * Where a shared-storage (AutoMQ) partition goes when its broker leaves: AutoMQ's
 * `LoadAwarePartitionLeaderSelector` (metadata/.../controller/es/, automq-balancer.md §1 "Broker fence or
 * shutdown") prefers active brokers in the leaving broker's rack and picks at random with weight 1/load,
 * updating the load after each pick so that one broker does not take everything.
 *
 * AutoMQ's load is bytes in + out from the balancer's metrics; the controller here has no traffic metrics, so
 * load is the number of partitions a broker leads (plus those picked for it in this round), and the weight is
 * 1/(1 + load) so that an empty broker has a finite weight.
 */
import { activeBrokerIds, broker, type MetadataImage } from '../metadata/index.ts';
import type { ControlRandom } from './control-context.ts';

export class LoadAwareLeaderSelector {
  private readonly candidates: number[];
  private readonly load = new Map<number, number>();

  constructor(
    image: MetadataImage,
    removedBroker: number,
    private readonly random: ControlRandom,
  ) {
    const active = activeBrokerIds(image).filter((id) => id !== removedBroker);
    const rack = broker(image, removedBroker)?.rack ?? null;
    const sameRack = active.filter((id) => (broker(image, id)?.rack ?? null) === rack);
    this.candidates = sameRack.length > 0 ? sameRack : active;
    for (const id of this.candidates) this.load.set(id, 0);
    for (const topic of Object.values(image.topics)) {
      for (const p of topic.partitions) {
        if (this.load.has(p.leader)) this.load.set(p.leader, this.load.get(p.leader)! + 1);
      }
    }
  }

  /** The broker for the next partition, or undefined when no active broker is left. */
  select(): number | undefined {
    if (this.candidates.length === 0) return undefined;
    const weights = this.candidates.map((id) => 1 / (1 + this.load.get(id)!));
    const chosen = this.random.weightedPick(this.candidates, weights);
    this.load.set(chosen, this.load.get(chosen)! + 1);
    return chosen;
  }
}
