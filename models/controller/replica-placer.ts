/**
 * Replica placement as Kafka's KRaft `StripedReplicaPlacer` (metadata/.../placement/StripedReplicaPlacer.java,
 * 3.9): racks are visited round-robin from a random start, brokers within a rack round-robin from a random
 * offset, each partition starts one rack further ("striped"), leaders only on unfenced brokers, followers prefer
 * unfenced brokers and fall back to fenced ones. After as many partitions as there are unfenced brokers, the
 * rack and broker orders are reshuffled so that the same replica sets do not repeat.
 *
 * Randomness comes from the caller's stream (Java's `Random.nextInt(n)` becomes `int(0, n - 1)`), so
 * placements are deterministic per seed but not the same numbers Kafka would draw.
 */

/** A broker that may hold new replicas: registered and not in controlled shutdown (fenced ones included). */
import { ExitCode, KafkasimError } from '../sim/index.ts';
export interface UsableBroker {
  readonly id: number;
  readonly rack: string | null;
  readonly fenced: boolean;
}

export interface PlacementRandom {
  /** Integer uniform in [min, max], both inclusive. */
  int(min: number, max: number): number;
  shuffle<T>(items: readonly T[]): T[];
}

/** Kafka's InvalidReplicationFactorException from the placer; `message` is Kafka's text. */
export class ReplicaPlacementError extends KafkasimError {
  readonly code = 'INVALID_REPLICATION_FACTOR';
  readonly exitCode = ExitCode.internal;
  override name = 'ReplicaPlacementError';
}

class BrokerList {
  brokers: number[] = [];
  /** Brokers handed out in the current iteration epoch. */
  private index = 0;
  private offset = 0;
  private epoch = 0;

  initialize(random: PlacementRandom): void {
    if (this.brokers.length === 0) return;
    this.brokers.sort((a, b) => a - b);
    this.offset = random.int(0, this.brokers.length - 1);
  }

  shuffle(random: PlacementRandom): void {
    this.brokers = random.shuffle(this.brokers);
  }

  /** The next broker of this epoch, or -1 when every broker was handed out in this epoch. */
  next(epoch: number): number {
    const n = this.brokers.length;
    if (n === 0) return -1;
    if (this.epoch !== epoch) {
      // A new epoch starts one position further on: that shift is what spreads followers.
      this.epoch = epoch;
      this.index = 0;
      this.offset = (this.offset + 1) % n;
    }
    if (this.index >= n) return -1;
    return this.brokers[(this.index++ + this.offset) % n]!;
  }
}

class Rack {
  readonly fenced = new BrokerList();
  readonly unfenced = new BrokerList();

  nextUnfenced(epoch: number): number {
    return this.unfenced.next(epoch);
  }

  next(epoch: number): number {
    const broker = this.unfenced.next(epoch);
    return broker >= 0 ? broker : this.fenced.next(epoch);
  }
}

/** Null (no rack) sorts first, as Kafka's OptionalStringComparator puts Optional.empty() first. */
function compareRacks(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

class RackList {
  private readonly racks = new Map<string | null, Rack>();
  private rackNames: (string | null)[] = [];
  readonly numTotalBrokers: number;
  readonly numUnfencedBrokers: number;
  private epoch = 0;
  private offset: number;

  constructor(
    private readonly random: PlacementRandom,
    brokers: readonly UsableBroker[],
  ) {
    let unfenced = 0;
    for (const broker of brokers) {
      let rack = this.racks.get(broker.rack);
      if (rack === undefined) {
        rack = new Rack();
        this.racks.set(broker.rack, rack);
        this.rackNames.push(broker.rack);
      }
      if (broker.fenced) rack.fenced.brokers.push(broker.id);
      else {
        rack.unfenced.brokers.push(broker.id);
        unfenced++;
      }
    }
    this.rackNames.sort(compareRacks);
    // Kafka initializes racks in HashMap order; sorted order keeps the draws deterministic here.
    for (const name of this.rackNames) {
      const rack = this.racks.get(name)!;
      rack.fenced.initialize(random);
      rack.unfenced.initialize(random);
    }
    this.numTotalBrokers = brokers.length;
    this.numUnfencedBrokers = unfenced;
    this.offset = this.rackNames.length === 0 ? 0 : random.int(0, this.rackNames.length - 1);
  }

  place(replicationFactor: number): number[] {
    checkPlacement(replicationFactor, this.numTotalBrokers, this.numUnfencedBrokers);
    // Once every unfenced broker has led a partition, reshuffle so that the next round differs.
    if (this.epoch === this.numUnfencedBrokers && this.numUnfencedBrokers > 1) {
      this.rackNames = this.random.shuffle(this.rackNames);
      for (const name of this.rackNames) {
        const rack = this.racks.get(name)!;
        rack.fenced.shuffle(this.random);
        rack.unfenced.shuffle(this.random);
      }
      this.epoch = 0;
    }
    const numRacks = this.rackNames.length;
    if (this.offset === numRacks) this.offset = 0;
    const replicas: number[] = [];
    // The leader: the first rack from the offset that still has an unfenced broker this epoch.
    let leaderRack = this.offset;
    for (;;) {
      const broker = this.racks.get(this.rackNames[leaderRack]!)!.nextUnfenced(this.epoch);
      if (broker >= 0) {
        replicas.push(broker);
        break;
      }
      leaderRack = (leaderRack + 1) % numRacks;
    }
    // Followers: racks round-robin from the offset, skipping the leader's rack on the first pass.
    let rackIndex = this.offset;
    let skipRack = leaderRack;
    while (replicas.length < replicationFactor) {
      let broker = -1;
      do {
        if (rackIndex === skipRack) skipRack = -1;
        else broker = this.racks.get(this.rackNames[rackIndex]!)!.next(this.epoch);
        rackIndex = (rackIndex + 1) % numRacks;
      } while (broker < 0);
      replicas.push(broker);
    }
    this.epoch++;
    this.offset++;
    return replicas;
  }
}

function checkPlacement(replicationFactor: number, numTotal: number, numUnfenced: number): void {
  if (replicationFactor <= 0) {
    throw new ReplicaPlacementError(
      `Invalid replication factor ${replicationFactor}: the replication factor must be positive.`,
    );
  }
  if (numUnfenced === 0) throw new ReplicaPlacementError('All brokers are currently fenced.');
  if (replicationFactor > numTotal) {
    throw new ReplicaPlacementError(
      `The target replication factor of ${replicationFactor} cannot be reached because only ${numTotal} broker(s) are registered.`,
    );
  }
}

/**
 * Places `numPartitions` partitions of `replicationFactor` replicas; the first replica of each is its leader
 * and always an unfenced broker. Throws ReplicaPlacementError with Kafka's message when it cannot.
 */
export function placeReplicas(
  brokers: readonly UsableBroker[],
  numPartitions: number,
  replicationFactor: number,
  random: PlacementRandom,
): number[][] {
  // Kafka checks before building anything, in this order, so the message names the first problem.
  const unfenced = brokers.filter((b) => !b.fenced).length;
  checkPlacement(replicationFactor, brokers.length, unfenced);
  const racks = new RackList(random, brokers);
  const out: number[][] = [];
  for (let p = 0; p < numPartitions; p++) out.push(racks.place(replicationFactor));
  return out;
}
