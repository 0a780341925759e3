/**
 * The auto-balancer's configuration: AutoMQ's keys and defaults (`config/AutoBalancerControllerConfig.java`,
 * `AutoBalancerMetricsReporterConfig.java`), its hard-coded constants, and validation in the spirit of
 * `AnomalyDetectorImpl.validateReconfiguration`.
 *
 * Lists (goals, excluded brokers and topics) are Kafka LIST values: comma-separated strings, as they appear in
 * server.properties or `kafka-configs --add-config`; arrays are accepted and joined.
 */

import { ExitCode, KafkasimError } from '../sim/index.ts';

export interface AutoBalancerConfig {
  /** true since AutoMQ v1.2.0 (PR #1687). */
  'autobalancer.controller.enable': boolean;
  'autobalancer.controller.anomaly.detect.interval.ms': number;
  /** A broker whose metrics (or one of whose partitions' metrics) are older than this is ineligible. */
  'autobalancer.controller.metrics.delay.ms': number;
  /** Goal names in priority order (hard goals are moved first). */
  'autobalancer.controller.goals': string;
  'autobalancer.controller.network.in.usage.distribution.detect.threshold': number;
  'autobalancer.controller.network.out.usage.distribution.detect.threshold': number;
  'autobalancer.controller.network.in.distribution.detect.avg.deviation': number;
  'autobalancer.controller.network.out.distribution.detect.avg.deviation': number;
  'autobalancer.controller.network.in.trivial.change.ratio': number;
  'autobalancer.controller.network.out.trivial.change.ratio': number;
  /** Most actions per broker (as source or destination) in one batch. */
  'autobalancer.controller.execution.concurrency': number;
  'autobalancer.controller.execution.interval.ms': number;
  'autobalancer.controller.exclude.broker.ids': string;
  'autobalancer.controller.exclude.topics': string;
  /** Settings of the `__auto_balancer_metrics` topic; kafkasim sends metrics straight to the controller. */
  'autobalancer.controller.topic.num.partitions': number;
  'autobalancer.controller.topic.retention.ms': number;
  /** Broker side: how often each broker reports its partitions' metrics. */
  'autobalancer.reporter.metrics.reporting.interval.ms': number;
  /**
   * The network goals' normalizer range in bytes/s (AutoMQ: 100 MiB/s unless this broker key is set;
   * AbstractNetworkUsageDistributionGoal.configure).
   */
  's3.network.baseline.bandwidth': number;
}

export type AutoBalancerConfigKey = keyof AutoBalancerConfig;

/** What callers may pass: lists also as arrays, numbers and booleans also as their text. */
export type AutoBalancerConfigInput = Partial<
  Record<AutoBalancerConfigKey, string | number | boolean | readonly (string | number)[]>
>;

export const NETWORK_IN_GOAL = 'kafka.autobalancer.goals.NetworkInUsageDistributionGoal';
export const NETWORK_OUT_GOAL = 'kafka.autobalancer.goals.NetworkOutUsageDistributionGoal';

export const DEFAULT_AUTO_BALANCER_CONFIG: Readonly<AutoBalancerConfig> = Object.freeze({
  'autobalancer.controller.enable': true,
  'autobalancer.controller.anomaly.detect.interval.ms': 60_000,
  'autobalancer.controller.metrics.delay.ms': 60_000,
  'autobalancer.controller.goals': `${NETWORK_IN_GOAL},${NETWORK_OUT_GOAL}`,
  'autobalancer.controller.network.in.usage.distribution.detect.threshold': 1_048_576,
  'autobalancer.controller.network.out.usage.distribution.detect.threshold': 1_048_576,
  // 0.2 -> 0.15 (PR #1449) -> 0.1 (PR #1543); AutoMQ's doc string still says 0.2.
  'autobalancer.controller.network.in.distribution.detect.avg.deviation': 0.1,
  'autobalancer.controller.network.out.distribution.detect.avg.deviation': 0.1,
  'autobalancer.controller.network.in.trivial.change.ratio': 0.05,
  'autobalancer.controller.network.out.trivial.change.ratio': 0.05,
  'autobalancer.controller.execution.concurrency': 50,
  'autobalancer.controller.execution.interval.ms': 5000,
  'autobalancer.controller.exclude.broker.ids': '',
  'autobalancer.controller.exclude.topics': '',
  'autobalancer.controller.topic.num.partitions': 1,
  'autobalancer.controller.topic.retention.ms': 1_800_000,
  'autobalancer.reporter.metrics.reporting.interval.ms': 10_000,
  's3.network.baseline.bandwidth': 104_857_600,
});

/** Keys that cannot change at runtime (AutoMQ: the metrics topic's settings). */
export const STATIC_AUTO_BALANCER_KEYS: readonly AutoBalancerConfigKey[] = Object.freeze([
  'autobalancer.controller.topic.num.partitions',
  'autobalancer.controller.topic.retention.ms',
]);

/** `AnomalyDetectorImpl`'s hard-coded limits. */
export const MAX_PARTITION_REASSIGNMENT_RATIO = 0.5;
export const MAX_REASSIGNMENT_SOURCE_NODE_COUNT = 10;
export const MAX_REASSIGNMENT_EXECUTION_TIME_MS = 60_000;
/** A broker whose latest pending append or fetch latency is above this gets no new partitions. */
export const SLOW_BROKER_LATENCY_MS = 10_000;
/** How often the detector publishes ClusterStats for the failover path. */
export const CLUSTER_STATS_INTERVAL_MS = 30_000;
/** The Yammer meters behind the partition rates tick every 5 s (one-minute EWMA). */
export const METER_TICK_MS = 5000;

export class AutoBalancerConfigError extends KafkasimError {
  readonly code = 'INVALID_AUTOBALANCER_CONFIG';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'AutoBalancerConfigError';
}

/** The keys AutoMQ defines as ConfigDef.Type.DOUBLE (AutoBalancerControllerConfig). */
const DOUBLE_KEYS: ReadonlySet<AutoBalancerConfigKey> = new Set([
  'autobalancer.controller.network.in.distribution.detect.avg.deviation',
  'autobalancer.controller.network.out.distribution.detect.avg.deviation',
  'autobalancer.controller.network.in.trivial.change.ratio',
  'autobalancer.controller.network.out.trivial.change.ratio',
]);

/**
 * The band's deviation as the network goals use it: AutoMQ's NetworkIn/NetworkOutUsageDistributionGoal.configure
 * clamps the configured value to [0, 1] (Math.max(0.0, Math.min(1.0, ...))) without an error.
 */
export function deviationRatio(configured: number): number {
  return Math.max(0, Math.min(1, configured));
}

const isKey = (key: string): key is AutoBalancerConfigKey => Object.hasOwn(DEFAULT_AUTO_BALANCER_CONFIG, key);

/** Parses one value to its type and checks its range; throws AutoBalancerConfigError. */
export function parseAutoBalancerValue<K extends AutoBalancerConfigKey>(
  key: K,
  value: unknown,
): AutoBalancerConfig[K] {
  const fail = (why: string): never => {
    throw new AutoBalancerConfigError(`Invalid value ${String(value)} for configuration ${key}: ${why}`);
  };
  const kind = typeof DEFAULT_AUTO_BALANCER_CONFIG[key];
  if (kind === 'boolean') {
    if (typeof value === 'boolean') return value as AutoBalancerConfig[K];
    const text = String(value).trim().toLowerCase();
    if (text === 'true' || text === 'false') return (text === 'true') as AutoBalancerConfig[K];
    return fail('Expected value to be either true or false');
  }
  if (kind === 'string') {
    const items = Array.isArray(value) ? value.map(String) : String(value ?? '').split(',');
    const list = items.map((s) => s.trim()).filter((s) => s !== '');
    if (key === 'autobalancer.controller.exclude.broker.ids') {
      for (const id of list) if (!/^-?\d+$/.test(id)) fail(`'${id}' is not a broker id`);
    }
    return list.join(',') as AutoBalancerConfig[K];
  }
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (DOUBLE_KEYS.has(key)) {
    // ConfigDef.Type.DOUBLE without a validator: Kafka's ConfigDef.parseType error for text that is no number.
    // Any double is accepted; the network goals clamp the deviation to [0, 1] (deviationRatio below).
    if (typeof value === 'boolean' || value === '' || !Number.isFinite(n))
      return fail('Not a number of type DOUBLE');
    return n as AutoBalancerConfig[K];
  }
  if (typeof value === 'boolean' || !Number.isFinite(n)) return fail('Expected a number');
  if (n < 0) fail('Value must be at least 0');
  if (key === 'autobalancer.controller.metrics.delay.ms' && n <= 0) {
    fail('Max accepted metrics delay should be positive');
  }
  if (key === 'autobalancer.reporter.metrics.reporting.interval.ms' && n <= 0) fail('Value must be positive');
  if (key === 's3.network.baseline.bandwidth' && n <= 0) fail('Value must be positive');
  return n as AutoBalancerConfig[K];
}

/** Checks every override (unknown keys included) and returns them parsed. */
export function parseAutoBalancerOverrides(input: AutoBalancerConfigInput = {}): Partial<AutoBalancerConfig> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!isKey(key)) {
      throw new AutoBalancerConfigError(
        `Unknown auto-balancer config '${key}' (known: ${Object.keys(DEFAULT_AUTO_BALANCER_CONFIG).join(', ')})`,
      );
    }
    if (value === undefined) continue;
    out[key] = parseAutoBalancerValue(key, value);
  }
  return out as Partial<AutoBalancerConfig>;
}

/** AutoMQ's defaults overlaid with `input`. */
export function resolveAutoBalancerConfig(input: AutoBalancerConfigInput = {}): AutoBalancerConfig {
  return { ...DEFAULT_AUTO_BALANCER_CONFIG, ...parseAutoBalancerOverrides(input) };
}

/** True when `key` is one of the auto-balancer's keys. */
export function isAutoBalancerKey(key: string): key is AutoBalancerConfigKey {
  return isKey(key);
}

export function listValue(config: AutoBalancerConfig, key: AutoBalancerConfigKey): string[] {
  const v = config[key];
  return typeof v === 'string' && v !== '' ? v.split(',') : [];
}

export function excludedBrokerIds(config: AutoBalancerConfig): Set<number> {
  return new Set(listValue(config, 'autobalancer.controller.exclude.broker.ids').map(Number));
}

export function excludedTopics(config: AutoBalancerConfig): Set<string> {
  return new Set(listValue(config, 'autobalancer.controller.exclude.topics'));
}
