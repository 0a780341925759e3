// Topic-level configs: Kafka's names, defaults and the broker-level synonyms (server.properties keys) that set a
// cluster-wide value for them. A topic's effective value is its own override, else the broker's static config,
// else the default; `kafka-topics --describe` lists every config whose source is not the default.
// Facts: Kafka's TopicConfig / LogConfig (ServerTopicConfigSynonyms) and the KRaft quickstart, whose
// server.properties sets log.segment.bytes=1073741824 (hence `Configs: segment.bytes=1073741824`).
import type { MetadataImage } from './image.ts';

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
  /** The broker config (server.properties) that sets it cluster-wide, e.g. log.segment.bytes. */
  readonly brokerSynonym: string;
}

const LONG_MAX = '9223372036854775807';

/** Compression names in BrokerCompressionType's declaration order, which is the order Kafka's message lists. */
const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const;

/** In Kafka's ConfigDef definition order (the order LogConfig reports the first bad value in). */
export const TOPIC_CONFIGS: readonly TopicConfigKey[] = Object.freeze([
  // 3.9 enforces at least LegacyRecord.RECORD_OVERHEAD_V0 (14); Kafka 4.0 raised it to 1 MiB (KIP-1030).
  {
    name: 'segment.bytes',
    brokerSynonym: 'log.segment.bytes',
    type: 'INT',
    default: '1073741824',
    atLeast: 14,
  },
  { name: 'segment.ms', brokerSynonym: 'log.roll.ms', type: 'LONG', default: '604800000', atLeast: 1 },
  { name: 'segment.jitter.ms', brokerSynonym: 'log.roll.jitter.ms', type: 'LONG', default: '0', atLeast: 0 },
  {
    name: 'segment.index.bytes',
    brokerSynonym: 'log.index.size.max.bytes',
    type: 'INT',
    default: '10485760',
    atLeast: 4,
  },
  {
    name: 'flush.messages',
    brokerSynonym: 'log.flush.interval.messages',
    type: 'LONG',
    default: LONG_MAX,
    atLeast: 1,
  },
  { name: 'flush.ms', brokerSynonym: 'log.flush.interval.ms', type: 'LONG', default: LONG_MAX, atLeast: 0 },
  { name: 'retention.bytes', brokerSynonym: 'log.retention.bytes', type: 'LONG', default: '-1' },
  {
    name: 'retention.ms',
    brokerSynonym: 'log.retention.ms',
    type: 'LONG',
    default: '604800000',
    atLeast: -1,
  },
  {
    name: 'max.message.bytes',
    brokerSynonym: 'message.max.bytes',
    type: 'INT',
    default: '1048588',
    atLeast: 0,
  },
  {
    name: 'index.interval.bytes',
    brokerSynonym: 'log.index.interval.bytes',
    type: 'INT',
    default: '4096',
    atLeast: 0,
  },
  {
    name: 'delete.retention.ms',
    brokerSynonym: 'log.cleaner.delete.retention.ms',
    type: 'LONG',
    default: '86400000',
    atLeast: 0,
  },
  {
    name: 'min.compaction.lag.ms',
    brokerSynonym: 'log.cleaner.min.compaction.lag.ms',
    type: 'LONG',
    default: '0',
    atLeast: 0,
  },
  {
    name: 'max.compaction.lag.ms',
    brokerSynonym: 'log.cleaner.max.compaction.lag.ms',
    type: 'LONG',
    default: LONG_MAX,
    atLeast: 1,
  },
  {
    name: 'file.delete.delay.ms',
    brokerSynonym: 'log.segment.delete.delay.ms',
    type: 'LONG',
    default: '60000',
    atLeast: 0,
  },
  {
    name: 'min.cleanable.dirty.ratio',
    brokerSynonym: 'log.cleaner.min.cleanable.ratio',
    type: 'DOUBLE',
    default: '0.5',
    atLeast: 0,
    atMost: 1,
  },
  {
    name: 'cleanup.policy',
    brokerSynonym: 'log.cleanup.policy',
    type: 'LIST',
    default: 'delete',
    validStrings: ['compact', 'delete'],
  },
  {
    name: 'unclean.leader.election.enable',
    brokerSynonym: 'unclean.leader.election.enable',
    type: 'BOOLEAN',
    default: 'false',
  },
  {
    name: 'min.insync.replicas',
    brokerSynonym: 'min.insync.replicas',
    type: 'INT',
    default: '1',
    atLeast: 1,
  },
  {
    name: 'compression.type',
    brokerSynonym: 'compression.type',
    type: 'STRING',
    default: 'producer',
    validStrings: COMPRESSION_TYPES,
  },
  { name: 'preallocate', brokerSynonym: 'log.preallocate', type: 'BOOLEAN', default: 'false' },
  {
    name: 'message.timestamp.type',
    brokerSynonym: 'log.message.timestamp.type',
    type: 'STRING',
    default: 'CreateTime',
    validStrings: ['CreateTime', 'LogAppendTime'],
  },
  {
    name: 'message.timestamp.before.max.ms',
    brokerSynonym: 'log.message.timestamp.before.max.ms',
    type: 'LONG',
    default: LONG_MAX,
    atLeast: 0,
  },
  {
    name: 'message.timestamp.after.max.ms',
    brokerSynonym: 'log.message.timestamp.after.max.ms',
    type: 'LONG',
    default: LONG_MAX,
    atLeast: 0,
  },
] satisfies TopicConfigKey[]);

export const TOPIC_CONFIGS_BY_NAME: ReadonlyMap<string, TopicConfigKey> = new Map(
  TOPIC_CONFIGS.map((k) => [k.name, k]),
);

export function topicConfigKey(name: string): TopicConfigKey | undefined {
  return TOPIC_CONFIGS_BY_NAME.get(name);
}

export type TopicConfigSource = 'DYNAMIC_TOPIC_CONFIG' | 'STATIC_BROKER_CONFIG' | 'DEFAULT_CONFIG';

export interface TopicConfigEntry {
  name: string;
  value: string;
  source: TopicConfigSource;
}

/**
 * The broker's coarser synonyms of a topic config, in the order Kafka prefers them after the main one, with the
 * factor to milliseconds: log.retention.ms, else log.retention.minutes, else log.retention.hours (168 by default
 * in server.properties), and log.roll.ms, else log.roll.hours (Kafka's ServerTopicConfigSynonyms).
 */
const COARSE_SYNONYMS: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  'retention.ms': [
    ['log.retention.minutes', 60_000],
    ['log.retention.hours', 3_600_000],
  ],
  'segment.ms': [['log.roll.hours', 3_600_000]],
};

/**
 * The value the broker's static configs give a topic config, if any (its synonym, else a coarser one): what the
 * log uses. describeTopicConfigs reports the main synonym only.
 */
function fromBroker(
  d: TopicConfigKey,
  staticBrokerConfigs: Readonly<Record<string, string>>,
): string | undefined {
  const own = staticBrokerConfigs[d.brokerSynonym];
  if (own !== undefined) return own;
  for (const [key, factor] of COARSE_SYNONYMS[d.name] ?? []) {
    const v = staticBrokerConfigs[key];
    if (v === undefined) continue;
    const n = Number(v);
    // -1 (no limit) stays -1 whatever the unit.
    return Number.isFinite(n) ? String(n < 0 ? n : n * factor) : v;
  }
  return undefined;
}

/** Every topic config with its effective value and source, in name order. */
export function describeTopicConfigs(
  image: MetadataImage,
  topic: string,
  staticBrokerConfigs: Readonly<Record<string, string>>,
): TopicConfigEntry[] {
  const overrides = image.configs.topic[topic] ?? {};
  return [...TOPIC_CONFIGS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((d) => {
      const own = overrides[d.name];
      if (own !== undefined) return { name: d.name, value: own, source: 'DYNAMIC_TOPIC_CONFIG' };
      // Only the main synonym: the quickstart's server.properties sets log.retention.hours=168 and log.segment.bytes,
      // and kafka-topics --describe shows segment.bytes alone.
      const broker = staticBrokerConfigs[d.brokerSynonym];
      if (broker !== undefined) return { name: d.name, value: broker, source: 'STATIC_BROKER_CONFIG' };
      return { name: d.name, value: d.default, source: 'DEFAULT_CONFIG' };
    });
}

/** The effective value of one topic config. */
export function effectiveTopicConfig(
  image: MetadataImage,
  topic: string,
  name: string,
  staticBrokerConfigs: Readonly<Record<string, string>>,
): string | undefined {
  const d = TOPIC_CONFIGS_BY_NAME.get(name);
  if (!d) return image.configs.topic[topic]?.[name];
  return image.configs.topic[topic]?.[name] ?? fromBroker(d, staticBrokerConfigs) ?? d.default;
}
