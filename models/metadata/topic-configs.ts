// Topic-level configs: Kafka's names, defaults and the broker-level synonyms (server.properties keys) that set a
// cluster-wide value for them. A topic's effective value is its own override, else the broker's static config,
// else the default; `kafka-topics --describe` lists every config whose source is not the default.
// Facts: Kafka's TopicConfig / LogConfig (ServerTopicConfigSynonyms) and the KRaft quickstart, whose
// server.properties sets log.segment.bytes=1073741824 (hence `Configs: segment.bytes=1073741824`).
import type { MetadataImage } from './image.ts';

export interface TopicConfigDef {
  readonly name: string;
  readonly defaultValue: string;
  /** The broker config that sets it cluster-wide, e.g. log.segment.bytes for segment.bytes. */
  readonly brokerSynonym: string;
}

const def = (name: string, defaultValue: string, brokerSynonym: string): TopicConfigDef => ({
  name,
  defaultValue,
  brokerSynonym,
});

export const topicConfigDefs: readonly TopicConfigDef[] = [
  def('cleanup.policy', 'delete', 'log.cleanup.policy'),
  def('compression.type', 'producer', 'compression.type'),
  def('delete.retention.ms', '86400000', 'log.cleaner.delete.retention.ms'),
  def('file.delete.delay.ms', '60000', 'log.segment.delete.delay.ms'),
  def('flush.messages', '9223372036854775807', 'log.flush.interval.messages'),
  def('flush.ms', '9223372036854775807', 'log.flush.interval.ms'),
  def('index.interval.bytes', '4096', 'log.index.interval.bytes'),
  def('max.compaction.lag.ms', '9223372036854775807', 'log.cleaner.max.compaction.lag.ms'),
  def('max.message.bytes', '1048588', 'message.max.bytes'),
  def('message.timestamp.type', 'CreateTime', 'log.message.timestamp.type'),
  def('min.cleanable.dirty.ratio', '0.5', 'log.cleaner.min.cleanable.ratio'),
  def('min.compaction.lag.ms', '0', 'log.cleaner.min.compaction.lag.ms'),
  def('min.insync.replicas', '1', 'min.insync.replicas'),
  def('preallocate', 'false', 'log.preallocate'),
  def('retention.bytes', '-1', 'log.retention.bytes'),
  def('retention.ms', '604800000', 'log.retention.ms'),
  def('segment.bytes', '1073741824', 'log.segment.bytes'),
  def('segment.index.bytes', '10485760', 'log.index.size.max.bytes'),
  def('segment.jitter.ms', '0', 'log.roll.jitter.ms'),
  def('segment.ms', '604800000', 'log.roll.ms'),
  def('unclean.leader.election.enable', 'false', 'unclean.leader.election.enable'),
];

const byName = new Map(topicConfigDefs.map((d) => [d.name, d]));

export const topicConfigDef = (name: string): TopicConfigDef | undefined => byName.get(name);

export type TopicConfigSource = 'DYNAMIC_TOPIC_CONFIG' | 'STATIC_BROKER_CONFIG' | 'DEFAULT_CONFIG';

export interface TopicConfigEntry {
  name: string;
  value: string;
  source: TopicConfigSource;
}

/** Every topic config with its effective value and source, in name order. */
export function describeTopicConfigs(
  image: MetadataImage,
  topic: string,
  staticBrokerConfigs: Readonly<Record<string, string>>,
): TopicConfigEntry[] {
  const overrides = image.configs.topic[topic] ?? {};
  return topicConfigDefs.map((d) => {
    const own = overrides[d.name];
    if (own !== undefined) return { name: d.name, value: own, source: 'DYNAMIC_TOPIC_CONFIG' };
    const fromBroker = staticBrokerConfigs[d.brokerSynonym];
    if (fromBroker !== undefined) return { name: d.name, value: fromBroker, source: 'STATIC_BROKER_CONFIG' };
    return { name: d.name, value: d.defaultValue, source: 'DEFAULT_CONFIG' };
  });
}

/** The effective value of one topic config. */
export function effectiveTopicConfig(
  image: MetadataImage,
  topic: string,
  name: string,
  staticBrokerConfigs: Readonly<Record<string, string>>,
): string | undefined {
  const d = byName.get(name);
  if (!d) return image.configs.topic[topic]?.[name];
  return image.configs.topic[topic]?.[name] ?? staticBrokerConfigs[d.brokerSynonym] ?? d.defaultValue;
}
