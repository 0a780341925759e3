// Broker settings with Kafka's key spellings and defaults. Keys starting with `kafkasim.` are the simulator's
// own (there is no Kafka key for them); each says what it stands for.

export interface BrokerConfig {
  /** Kafka: a follower out of sync for this long leaves the ISR; checked every half of it. */
  'replica.lag.time.max.ms': number;
  'replica.fetch.max.bytes': number;
  'replica.fetch.wait.max.ms': number;
  'replica.fetch.response.max.bytes': number;
  /** KIP-227: how many incremental fetch sessions a broker caches. */
  'max.incremental.fetch.session.cache.slots': number;
  /** KIP-227: how long a session must be unused before any new session may evict it. */
  'min.incremental.fetch.session.eviction.ms': number;
  /** Kafka: how long a follower leaves a partition out of its fetches after the leader answered it with an error. */
  'replica.fetch.backoff.ms': number;
  /** Kafka: bytes/s a follower may copy for throttled replicas; Infinity = unthrottled (Kafka's Long.MAX). */
  'follower.replication.throttled.rate': number;
  /** Kafka broker default for topics without their own. */
  'min.insync.replicas': number;
  'offsets.topic.num.partitions': number;
  /** kafkasim: the broker's network-in capacity in bytes/s (queueing grows as load approaches it). */
  'kafkasim.broker.network.in.bytes.per.sec': number;
  /** kafkasim: the broker's network-out capacity in bytes/s. */
  'kafkasim.broker.network.out.bytes.per.sec': number;
  /** kafkasim: time to append a produce request on an idle broker (WAL/page-cache write), ms. */
  'kafkasim.broker.append.latency.ms': number;
  /** kafkasim (AutoMQ shared storage): time to close a moved partition (force upload of WAL data), ms. */
  'kafkasim.shared.partition.close.ms': number;
  /** kafkasim (AutoMQ shared storage): time to open a partition from object-storage metadata, ms. */
  'kafkasim.shared.partition.open.ms': number;
  /** kafkasim: how long a broker's metadata fetch waits at the controller when nothing new is committed. */
  'kafkasim.metadata.fetch.max.wait.ms': number;
  /** kafkasim: the broker's host name in metadata. */
  'kafkasim.host': string;
  'kafkasim.port': number;
}

export const brokerDefaults: Readonly<BrokerConfig> = Object.freeze({
  'replica.lag.time.max.ms': 30_000,
  'replica.fetch.max.bytes': 1_048_576,
  'replica.fetch.wait.max.ms': 500,
  'replica.fetch.response.max.bytes': 10_485_760,
  'max.incremental.fetch.session.cache.slots': 1000,
  'min.incremental.fetch.session.eviction.ms': 120_000,
  'replica.fetch.backoff.ms': 1000,
  'follower.replication.throttled.rate': Number.POSITIVE_INFINITY,
  'min.insync.replicas': 1,
  'offsets.topic.num.partitions': 50,
  'kafkasim.broker.network.in.bytes.per.sec': 125_000_000,
  'kafkasim.broker.network.out.bytes.per.sec': 125_000_000,
  'kafkasim.broker.append.latency.ms': 1,
  // AutoMQ documents a move as "typically within about 1.5 seconds" (automq-balancer.md §4): close + open.
  'kafkasim.shared.partition.close.ms': 1000,
  'kafkasim.shared.partition.open.ms': 500,
  'kafkasim.metadata.fetch.max.wait.ms': 500,
  'kafkasim.host': 'localhost',
  'kafkasim.port': 9092,
});
