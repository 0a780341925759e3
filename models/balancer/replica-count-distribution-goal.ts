/**
 * An example of a user goal: keep the number of partitions per broker within a band around the average. AutoMQ has no
 * such goal; Cruise Control's ReplicaDistributionGoal is the idea (linkedin/cruise-control,
 * analyzer/goals/ReplicaDistributionGoal.java). It extends the same base as the built-in network goals and only says
 * what load means: one per partition, always known. Its own group means that network moves are not judged by it, and
 * that once it has run, later goals may not make the replica distribution worse.
 */
import type { SnapshotBroker } from './snapshot.ts';
import { UsageDistributionGoal, type UsageDistributionSettings } from './usage-distribution-goal.ts';

export class ReplicaCountDistributionGoal extends UsageDistributionGoal {
  readonly name: string;
  readonly group: string;

  constructor(options: Partial<UsageDistributionSettings> & { name?: string; group?: string } = {}) {
    super();
    this.name = options.name ?? 'ReplicaCountDistributionGoal';
    this.group = options.group ?? 'ReplicaDistribution';
    this.settings = {
      detectThreshold: options.detectThreshold ?? 0,
      avgDeviation: options.avgDeviation ?? 0.1,
      trivialChangeRatio: options.trivialChangeRatio ?? 0,
    };
  }

  protected brokerLoad(broker: SnapshotBroker): number {
    return broker.replicas.length;
  }

  protected partitionLoad(): number {
    return 1;
  }

  /** Counts need no metrics. */
  protected override partitionLoadTrusted(): boolean {
    return true;
  }

  protected override brokerLoadTrusted(): boolean {
    return true;
  }

  /** One average's worth of deviation spans the linear part of the score. */
  protected linearNormalizerThreshold(): number {
    return Math.max(1, this.avg);
  }

  /** Counts are valid without metrics: every broker in the snapshot takes part. */
  override isEligibleBroker(): boolean {
    return true;
  }
}
