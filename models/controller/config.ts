/**
 * The controller's configuration (Kafka's key spellings and defaults) and the topic configs it accepts.
 *
 * Facts: `broker.heartbeat.interval.ms` and `broker.session.timeout.ms` from kraft.md §4 (KRaftConfigs.java);
 * `num.partitions`, `default.replication.factor`, `min.insync.replicas`, `unclean.leader.election.enable` from
 * Kafka's server log configs (ServerLogConfigs / ReplicationConfigs, 3.9). The topic config table and its
 * validators are Kafka 3.9's `LogConfig` ConfigDef (storage/.../internals/log/LogConfig.java); the error texts
 * are `ConfigException`'s ("Invalid value V for configuration K: ...") and `LogConfig.validateNames`
 * ("Unknown topic config name: K").
 */
import { KafkaError } from '../protocol/index.ts';

/** 'kafka': replicated local logs. 'shared': AutoMQ-style shared storage, one replica per partition. */
export type StorageMode = 'kafka' | 'shared';

export interface ControllerConfig {
  /** How often brokers heartbeat; brokers read it from here (the controller only needs the session timeout). */
  'broker.heartbeat.interval.ms': number;
  /** A broker that has not heartbeated for this long is fenced. */
  'broker.session.timeout.ms': number;
  /** Partitions of a topic created with numPartitions -1. */
  'num.partitions': number;
  /** Replicas of a topic created with replicationFactor -1. */
  'default.replication.factor': number;
  /** Cluster default; a topic override of the same name wins. */
  'unclean.leader.election.enable': boolean;
  /** Cluster default for new topics' effective config; the controller needs it only without ELR (never). */
  'min.insync.replicas': number;
  /** kafkasim-only: virtual ms from append to commit for the default LocalMetadataLog. */
  'kafkasim.metadata.commit.ms': number;
  /**
   * kafkasim-only: in shared mode, how long a moved partition may wait for the old leader's ElectLeaders before
   * the controller elects on its own. AutoMQ's `PARTITION_RE_ELECT_LEADER_TIMEOUT_SECS` (10 s) on older
   * metadata versions (ReplicationControlManager.addPartitionToReElectTimeouts).
   */
  'kafkasim.shared.reelect.timeout.ms': number;
}

export const DEFAULT_CONTROLLER_CONFIG: Readonly<ControllerConfig> = Object.freeze({
  'broker.heartbeat.interval.ms': 2000,
  'broker.session.timeout.ms': 9000,
  'num.partitions': 1,
  'default.replication.factor': 1,
  'unclean.leader.election.enable': false,
  'min.insync.replicas': 1,
  'kafkasim.metadata.commit.ms': 1,
  'kafkasim.shared.reelect.timeout.ms': 10_000,
});

/** Keys that exist only in kafkasim (no Kafka or AutoMQ server reads them). */
export const KAFKASIM_ONLY_KEYS: readonly (keyof ControllerConfig)[] = Object.freeze([
  'kafkasim.metadata.commit.ms',
  'kafkasim.shared.reelect.timeout.ms',
]);

/** Defaults overlaid with `overrides`; throws on an unknown key or a value of the wrong type or range. */
export function resolveControllerConfig(overrides: Partial<ControllerConfig> = {}): ControllerConfig {
  const config: ControllerConfig = { ...DEFAULT_CONTROLLER_CONFIG };
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(DEFAULT_CONTROLLER_CONFIG, key)) {
      throw new Error(
        `unknown controller config '${key}' (known: ${Object.keys(DEFAULT_CONTROLLER_CONFIG).join(', ')})`,
      );
    }
    if (value === undefined) continue;
    const k = key as keyof ControllerConfig;
    if (typeof DEFAULT_CONTROLLER_CONFIG[k] === 'boolean') {
      if (typeof value !== 'boolean')
        throw new Error(`controller config '${key}' must be a boolean, not ${value}`);
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`controller config '${key}' must be a non-negative number, not ${value}`);
    }
    (config as unknown as Record<string, unknown>)[k] = value;
  }
  for (const k of ['num.partitions', 'default.replication.factor', 'min.insync.replicas'] as const) {
    if (!Number.isInteger(config[k]) || config[k] < 1)
      throw new Error(`controller config '${k}' must be an integer >= 1, not ${config[k]}`);
  }
  if (config['broker.session.timeout.ms'] <= 0) throw new Error("'broker.session.timeout.ms' must be > 0");
  return config;
}

// ---- topic configs ------------------------------------------------------------------------------------------

export type ConfigType = 'INT' | 'LONG' | 'DOUBLE' | 'BOOLEAN' | 'STRING' | 'LIST';

export interface TopicConfigKey {
  readonly name: string;
  readonly type: ConfigType;
  /** Kafka's default, as Kafka prints it (configs travel as strings). */
  readonly default: string;
  readonly atLeast?: number;
  readonly atMost?: number;
  /** For STRING: the value must be one of these; for LIST: every element. */
  readonly validStrings?: readonly string[];
}

const LONG_MAX = '9223372036854775807';

/** Compression names in BrokerCompressionType's declaration order, which is the order Kafka's message lists. */
const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const;

/** In Kafka's ConfigDef definition order (the order LogConfig reports the first bad value in). */
export const TOPIC_CONFIGS: readonly TopicConfigKey[] = Object.freeze([
  // 3.9 enforces at least LegacyRecord.RECORD_OVERHEAD_V0 (14); Kafka 4.0 raised it to 1 MiB (KIP-1030).
  { name: 'segment.bytes', type: 'INT', default: '1073741824', atLeast: 14 },
  { name: 'segment.ms', type: 'LONG', default: '604800000', atLeast: 1 },
  { name: 'segment.jitter.ms', type: 'LONG', default: '0', atLeast: 0 },
  { name: 'segment.index.bytes', type: 'INT', default: '10485760', atLeast: 4 },
  { name: 'flush.messages', type: 'LONG', default: LONG_MAX, atLeast: 1 },
  { name: 'flush.ms', type: 'LONG', default: LONG_MAX, atLeast: 0 },
  { name: 'retention.bytes', type: 'LONG', default: '-1' },
  { name: 'retention.ms', type: 'LONG', default: '604800000', atLeast: -1 },
  { name: 'max.message.bytes', type: 'INT', default: '1048588', atLeast: 0 },
  { name: 'index.interval.bytes', type: 'INT', default: '4096', atLeast: 0 },
  { name: 'delete.retention.ms', type: 'LONG', default: '86400000', atLeast: 0 },
  { name: 'min.compaction.lag.ms', type: 'LONG', default: '0', atLeast: 0 },
  { name: 'max.compaction.lag.ms', type: 'LONG', default: LONG_MAX, atLeast: 1 },
  { name: 'file.delete.delay.ms', type: 'LONG', default: '60000', atLeast: 0 },
  { name: 'min.cleanable.dirty.ratio', type: 'DOUBLE', default: '0.5', atLeast: 0, atMost: 1 },
  { name: 'cleanup.policy', type: 'LIST', default: 'delete', validStrings: ['compact', 'delete'] },
  { name: 'unclean.leader.election.enable', type: 'BOOLEAN', default: 'false' },
  { name: 'min.insync.replicas', type: 'INT', default: '1', atLeast: 1 },
  { name: 'compression.type', type: 'STRING', default: 'producer', validStrings: COMPRESSION_TYPES },
  { name: 'preallocate', type: 'BOOLEAN', default: 'false' },
  {
    name: 'message.timestamp.type',
    type: 'STRING',
    default: 'CreateTime',
    validStrings: ['CreateTime', 'LogAppendTime'],
  },
  { name: 'message.timestamp.before.max.ms', type: 'LONG', default: LONG_MAX, atLeast: 0 },
  { name: 'message.timestamp.after.max.ms', type: 'LONG', default: LONG_MAX, atLeast: 0 },
] satisfies TopicConfigKey[]);

const TOPIC_CONFIGS_BY_NAME: ReadonlyMap<string, TopicConfigKey> = new Map(
  TOPIC_CONFIGS.map((k) => [k.name, k]),
);

export function topicConfigKey(name: string): TopicConfigKey | undefined {
  return TOPIC_CONFIGS_BY_NAME.get(name);
}

const INT_RANGE = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const LONG_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;

function invalid(name: string, value: string, reason: string): KafkaError<'INVALID_CONFIG'> {
  return new KafkaError('INVALID_CONFIG', `Invalid value ${value} for configuration ${name}: ${reason}`);
}

/** Java's Double.toString for the values a config can hold (2 prints as 2.0). */
function javaDouble(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/**
 * Parses and checks one value as Kafka's ConfigDef does; returns the error, or undefined when it is valid.
 * Values are trimmed first, as ConfigDef.parseType does.
 */
export function validateTopicConfigValue(key: TopicConfigKey, value: string): KafkaError | undefined {
  const trimmed = value.trim();
  let numeric: number | undefined;
  let printed = trimmed;
  switch (key.type) {
    case 'INT':
    case 'LONG': {
      const [min, max] = key.type === 'INT' ? INT_RANGE : LONG_RANGE;
      if (!/^[+-]?\d+$/.test(trimmed)) return invalid(key.name, value, `Not a number of type ${key.type}`);
      const big = BigInt(trimmed);
      if (big < min || big > max) return invalid(key.name, value, `Not a number of type ${key.type}`);
      numeric = Number(big);
      printed = big.toString();
      break;
    }
    case 'DOUBLE': {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(trimmed))
        return invalid(key.name, value, 'Not a number of type DOUBLE');
      numeric = Number.parseFloat(trimmed);
      printed = javaDouble(numeric);
      break;
    }
    case 'BOOLEAN':
      if (!/^(true|false)$/i.test(trimmed))
        return invalid(key.name, value, 'Expected value to be either true or false');
      return undefined;
    case 'STRING':
      if (key.validStrings && !key.validStrings.includes(trimmed))
        return invalid(key.name, trimmed, `String must be one of: ${key.validStrings.join(', ')}`);
      return undefined;
    case 'LIST': {
      const items = trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
      for (const item of items) {
        if (key.validStrings && !key.validStrings.includes(item))
          return invalid(key.name, item, `String must be one of: ${key.validStrings.join(', ')}`);
      }
      return undefined;
    }
  }
  if (key.atLeast !== undefined && numeric < key.atLeast)
    return invalid(key.name, printed, `Value must be at least ${key.atLeast}`);
  if (key.atMost !== undefined && numeric > key.atMost)
    return invalid(key.name, printed, `Value must be no more than ${key.atMost}`);
  return undefined;
}

/**
 * Kafka's LogConfig.validate over a topic's full override set: unknown names first (in the given order), then
 * values in definition order. Returns the first error, or undefined.
 */
export function validateTopicConfigs(configs: Readonly<Record<string, string>>): KafkaError | undefined {
  for (const name of Object.keys(configs)) {
    if (!TOPIC_CONFIGS_BY_NAME.has(name))
      return new KafkaError('INVALID_CONFIG', `Unknown topic config name: ${name}`);
  }
  for (const key of TOPIC_CONFIGS) {
    if (!Object.hasOwn(configs, key.name)) continue;
    const error = validateTopicConfigValue(key, configs[key.name]!);
    if (error) return error;
  }
  return undefined;
}

/**
 * A topic's effective configs: Kafka's defaults, then the cluster values this controller holds for keys a
 * topic inherits from the server, then the topic's overrides. Keys sorted, as CreateTopics returns them.
 */
export function effectiveTopicConfigs(
  config: ControllerConfig,
  overrides: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const serverDefaults: Record<string, string> = {
    'min.insync.replicas': String(config['min.insync.replicas']),
    'unclean.leader.election.enable': String(config['unclean.leader.election.enable']),
  };
  for (const key of [...TOPIC_CONFIGS].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    out[key.name] = Object.hasOwn(overrides, key.name)
      ? overrides[key.name]!
      : (serverDefaults[key.name] ?? key.default);
  }
  return out;
}
