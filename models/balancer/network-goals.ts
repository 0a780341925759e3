/**
 * AutoMQ's two built-in goals (`goals/`): NetworkInUsageDistributionGoal and
 * NetworkOutUsageDistributionGoal. Both are soft, weigh 1.0 and share the group "NetworkUsageDistribution", so
 * a move is judged by the mean of their scores. Their settings come from the
 * `autobalancer.controller.network.{in,out}.*` keys; the normalizer range is `s3.network.baseline.bandwidth`
 * (100 MiB/s by default).
 */
import { type AutoBalancerConfig, deviationRatio } from './config.ts';
import type { ClusterSnapshot, Resource, SnapshotBroker } from './snapshot.ts';
import { UsageDistributionGoal } from './usage-distribution-goal.ts';

export const NETWORK_USAGE_DISTRIBUTION_GROUP = 'NetworkUsageDistribution';

abstract class NetworkUsageDistributionGoal extends UsageDistributionGoal {
  readonly group = NETWORK_USAGE_DISTRIBUTION_GROUP;
  protected abstract readonly resource: Resource;
  private normalizerRange = DEFAULT_BASELINE;

  protected brokerLoad(broker: SnapshotBroker): number {
    return broker.load(this.resource);
  }

  protected partitionLoad(snapshot: ClusterSnapshot, p: number): number {
    return snapshot.partitionLoad(p, this.resource);
  }

  protected override partitionLoadColumn(snapshot: ClusterSnapshot): Float64Array<ArrayBufferLike> {
    return snapshot.loads(this.resource);
  }

  protected linearNormalizerThreshold(): number {
    return this.normalizerRange;
  }

  override configure(config: AutoBalancerConfig): void {
    const dir = this.resource === 'NW_IN' ? 'in' : 'out';
    this.settings = {
      detectThreshold: config[`autobalancer.controller.network.${dir}.usage.distribution.detect.threshold`],
      avgDeviation: deviationRatio(
        config[`autobalancer.controller.network.${dir}.distribution.detect.avg.deviation`],
      ),
      trivialChangeRatio: config[`autobalancer.controller.network.${dir}.trivial.change.ratio`],
    };
    this.normalizerRange = config['s3.network.baseline.bandwidth'];
  }
}

const DEFAULT_BASELINE = 100 * 1024 * 1024;

export class NetworkInUsageDistributionGoal extends NetworkUsageDistributionGoal {
  readonly name = 'NetworkInUsageDistributionGoal';
  protected readonly resource = 'NW_IN';
}

export class NetworkOutUsageDistributionGoal extends NetworkUsageDistributionGoal {
  readonly name = 'NetworkOutUsageDistributionGoal';
  protected readonly resource = 'NW_OUT';
}
