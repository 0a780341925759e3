/**
 * The controller's configuration (Kafka's key spellings and defaults) and the topic configs it accepts.
 *
 * Facts: `broker.heartbeat.interval.ms` and `broker.session.timeout.ms` from KRaftConfigs.java;
 * `num.partitions`, `default.replication.factor`, `min.insync.replicas`, `unclean.leader.election.enable` from
 * Kafka's server log configs (ServerLogConfigs / ReplicationConfigs, 3.9). The topic config table and its
 * validators are Kafka 3.9's `LogConfig` ConfigDef (storage/.../internals/log/LogConfig.java); the error texts
 * are `ConfigException`'s ("Invalid value V for configuration K: ...") and `LogConfig.validateNames`
 * ("Unknown topic config name: K").
 */

import {
  configMap,
  isForbiddenConfigName,
  TOPIC_CONFIGS,
  TOPIC_CONFIGS_BY_NAME,
  type TopicConfigKey,
} from '../metadata/index.ts';
import { KafkaError } from '../protocol/index.ts';

export { type ConfigType, TOPIC_CONFIGS, type TopicConfigKey, topicConfigKey } from '../metadata/index.ts';

/** 'kafka': replicated local logs. 'shared': AutoMQ-style shared storage, one replica per partition. */
export type { StorageMode } from '../storage/index.ts';

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
   * kafkasim-only: in shared mode, how long a moved partition may wait for the old leader to close it (CloseStreams)
   * before the controller elects on its own. AutoMQ's `PARTITION_RE_ELECT_LEADER_TIMEOUT_SECS` (10 s) on older
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
// The table itself lives in models/metadata (brokers need it too); here: validation and effective values.

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
    if (isForbiddenConfigName(name)) return new KafkaError('INVALID_CONFIG', `Invalid config name: ${name}`);
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
  const out = configMap();
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
