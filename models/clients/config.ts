// Client settings with the real clients' key spellings and defaults, in two flavours: the Java client and
// librdkafka. Facts: apache/kafka ProducerConfig.java; librdkafka CONFIGURATION.md.

export type ClientFlavour = 'java' | 'librdkafka';

export interface ProducerConfig {
  'client.id': string;
  /** 0, 1 or -1 (= all). */
  acks: 0 | 1 | -1;
  'enable.idempotence': boolean;
  retries: number;
  'retry.backoff.ms': number;
  'retry.backoff.max.ms': number;
  'delivery.timeout.ms': number;
  'request.timeout.ms': number;
  'batch.size': number;
  'linger.ms': number;
  'max.in.flight.requests.per.connection': number;
  'metadata.max.age.ms': number;
  /** Java: murmur2 on keys (built-in); librdkafka: `consistent_random` (CRC32) by default. */
  partitioner: 'murmur2_random' | 'consistent_random';
  /** librdkafka: how long a sticky partition is kept for keyless records; Java switches by batch.size. */
  'sticky.partitioning.linger.ms': number;
}

const javaProducer: ProducerConfig = {
  'client.id': 'producer-1',
  acks: -1,
  'enable.idempotence': true,
  retries: 2147483647,
  'retry.backoff.ms': 100,
  'retry.backoff.max.ms': 1000,
  'delivery.timeout.ms': 120_000,
  'request.timeout.ms': 30_000,
  'batch.size': 16_384,
  // 0 in Kafka 3.x clients; 5 from 4.0 (KIP-1030). The source workflows ran 3.x tools.
  'linger.ms': 0,
  'max.in.flight.requests.per.connection': 5,
  'metadata.max.age.ms': 300_000,
  partitioner: 'murmur2_random',
  'sticky.partitioning.linger.ms': 0,
};

const librdkafkaProducer: ProducerConfig = {
  'client.id': 'rdkafka',
  acks: -1,
  'enable.idempotence': false,
  retries: 2147483647,
  'retry.backoff.ms': 100,
  'retry.backoff.max.ms': 1000,
  'delivery.timeout.ms': 300_000,
  'request.timeout.ms': 30_000,
  'batch.size': 1_000_000,
  'linger.ms': 5,
  'max.in.flight.requests.per.connection': 1_000_000,
  // librdkafka's topic.metadata.refresh.interval.ms
  'metadata.max.age.ms': 300_000,
  partitioner: 'consistent_random',
  'sticky.partitioning.linger.ms': 10,
};

export type ProducerConfigInput = Partial<Omit<ProducerConfig, 'acks'>> & {
  acks?: 0 | 1 | -1 | 'all' | '0' | '1' | '-1';
  /** librdkafka's name for the periodic metadata refresh. */
  'topic.metadata.refresh.interval.ms'?: number;
};

/** Defaults of the flavour, overridden by `input`, validated. */
export function producerConfig(flavour: ClientFlavour, input: ProducerConfigInput = {}): ProducerConfig {
  const base = flavour === 'java' ? javaProducer : librdkafkaProducer;
  const { acks, 'topic.metadata.refresh.interval.ms': refresh, ...rest } = input;
  const cfg: ProducerConfig = { ...base, ...rest };
  if (acks !== undefined) cfg.acks = acks === 'all' ? -1 : (Number(acks) as 0 | 1 | -1);
  // Kafka 3.x: idempotence is on by default, but quietly off when the user sets acks other than all without
  // asking for idempotence (ProducerConfig.postProcessAndValidateIdempotenceConfigs); asking for both fails.
  if (cfg.acks !== -1 && input['enable.idempotence'] === undefined) cfg['enable.idempotence'] = false;
  if (refresh !== undefined) cfg['metadata.max.age.ms'] = refresh;
  if (![0, 1, -1].includes(cfg.acks)) throw new Error(`acks must be 0, 1, -1 or all, not ${String(acks)}`);
  if (cfg['enable.idempotence'] && cfg.acks !== -1) {
    throw new Error('Must set acks to all in order to use the idempotent producer.');
  }
  for (const k of [
    'batch.size',
    'request.timeout.ms',
    'delivery.timeout.ms',
    'max.in.flight.requests.per.connection',
  ] as const) {
    if (!(cfg[k] > 0)) throw new Error(`${k} must be > 0, not ${cfg[k]}`);
  }
  return cfg;
}

export interface ConsumerConfig {
  'client.id': string;
  'group.id': string | null;
  'fetch.min.bytes': number;
  'fetch.max.wait.ms': number;
  'fetch.max.bytes': number;
  'max.partition.fetch.bytes': number;
  'auto.offset.reset': 'latest' | 'earliest' | 'none';
  'metadata.max.age.ms': number;
  'request.timeout.ms': number;
  'retry.backoff.ms': number;
  /** KIP-580: metadata refreshes (and retries) back off exponentially up to this. */
  'retry.backoff.max.ms': number;
}

const javaConsumer: ConsumerConfig = {
  'client.id': 'consumer-1',
  'group.id': null,
  'fetch.min.bytes': 1,
  'fetch.max.wait.ms': 500,
  'fetch.max.bytes': 52_428_800,
  'max.partition.fetch.bytes': 1_048_576,
  'auto.offset.reset': 'latest',
  'metadata.max.age.ms': 300_000,
  'request.timeout.ms': 30_000,
  'retry.backoff.ms': 100,
  'retry.backoff.max.ms': 1000,
};

const librdkafkaConsumer: ConsumerConfig = {
  ...javaConsumer,
  'client.id': 'rdkafka',
  // librdkafka: fetch.wait.max.ms 500, fetch.max.bytes 52428800, max.partition.fetch.bytes 1048576,
  // retry.backoff.ms 100, retry.backoff.max.ms 1000
};

export type ConsumerConfigInput = Partial<Omit<ConsumerConfig, 'auto.offset.reset'>> & {
  'topic.metadata.refresh.interval.ms'?: number;
  /** librdkafka's names for auto.offset.reset values are accepted too. */
  'auto.offset.reset'?: ConsumerConfig['auto.offset.reset'] | 'smallest' | 'largest';
};

export function consumerConfig(flavour: ClientFlavour, input: ConsumerConfigInput = {}): ConsumerConfig {
  const base = flavour === 'java' ? javaConsumer : librdkafkaConsumer;
  const { 'topic.metadata.refresh.interval.ms': refresh, 'auto.offset.reset': reset, ...rest } = input;
  const cfg: ConsumerConfig = { ...base, ...rest };
  if (refresh !== undefined) cfg['metadata.max.age.ms'] = refresh;
  if (reset !== undefined) {
    const r = reset === 'smallest' ? 'earliest' : reset === 'largest' ? 'latest' : reset;
    if (!['latest', 'earliest', 'none'].includes(r))
      throw new Error(`auto.offset.reset must be latest, earliest or none, not ${reset}`);
    cfg['auto.offset.reset'] = r;
  }
  return cfg;
}
