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
  /** Kafka: how often the log manager deletes segments past retention.ms / retention.bytes (default 5 min). */
  'log.retention.check.interval.ms': number;
  /** Kafka: how long after start the log manager's first retention check runs (default 30 s). */
  'log.initial.task.delay.ms': number;
  'offsets.topic.num.partitions': number;
  /** kafkasim: the broker's network-in capacity in bytes/s (queueing grows as load approaches it). */
  'kafkasim.broker.network.in.bytes.per.sec': number;
  /** kafkasim: the broker's network-out capacity in bytes/s. */
  'kafkasim.broker.network.out.bytes.per.sec': number;
  /** kafkasim: time to append a produce request on an idle broker (WAL/page-cache write), ms. */
  'kafkasim.broker.append.latency.ms': number;
  /**
   * kafkasim (AutoMQ shared storage): the old owner's work closing a moved partition before it releases the
   * streams (drain in-flight appends, persist the final metadata, hand it to the new owner), ms.
   */
  'kafkasim.shared.partition.close.ms': number;
  /** kafkasim (AutoMQ shared storage): the new owner's work opening a moved partition from the hand-over, ms. */
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
  'log.retention.check.interval.ms': 300_000,
  'log.initial.task.delay.ms': 30_000,
  'offsets.topic.num.partitions': 50,
  'kafkasim.broker.network.in.bytes.per.sec': 125_000_000,
  'kafkasim.broker.network.out.bytes.per.sec': 125_000_000,
  'kafkasim.broker.append.latency.ms': 1,
  // AutoMQ's fast partition reassignment (AutoMQ/automq#3495) takes the WAL upload and the object-storage replay
  // off the move's path: the old owner drains, persists the final metadata and hands it over; the new owner
  // replays the hand-over. Local work of milliseconds each; the controller round trips are modelled as messages.
  // The legacy path ("close to one second" for the upload, about 1.5 s per move in AutoMQ's docs,
  // https://docs.automq.com/automq/architecture/technical-advantage/partition-reassignment-in-seconds) is
  // close.ms=1000, open.ms=500.
  'kafkasim.shared.partition.close.ms': 10,
  'kafkasim.shared.partition.open.ms': 10,
  'kafkasim.metadata.fetch.max.wait.ms': 500,
  'kafkasim.host': 'localhost',
  'kafkasim.port': 9092,
});
