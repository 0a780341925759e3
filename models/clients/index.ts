// Clients: producer, consumer (assign mode), group consumer (subscribe mode: a member of a consumer group) and
// admin client, in Java and librdkafka flavours, talking to brokers only through the simulated network, with
// metadata refreshes paced by KIP-580 backoff (Metadata.timeToAllowUpdate); the
// perf-test workloads; Kafka's partitioners.
// Group members speak the classic protocol or KIP-848's (group.protocol=consumer, consumer-membership.ts).
// Left out: transactions, compression, interceptors, quotas, SASL/TLS; the coordinator side of the group
// protocols is in models/group.
// Facts: apache/kafka clients/ (ProducerConfig.java, Sender.java, BuiltInPartitioner, ConsumerConfig.java),
// librdkafka CONFIGURATION.md, and AutoMQ's self-balancing example's perf-test workload
// (https://docs.automq.com/automq/getting-started/example-continuous-data-self-balancing).
export { AdminClient, type AdminOptions, type AdminOutcome } from './admin.ts';
export type { AnyConsumer } from './any-consumer.ts';
export {
  type ClientFlavour,
  type ConsumerConfig,
  type ConsumerConfigInput,
  consumerConfig,
  type ProducerConfig,
  type ProducerConfigInput,
  producerConfig,
} from './config.ts';
export { Consumer, type ConsumerOptions } from './consumer.ts';
export type { ConsumerProtocolMemberState } from './consumer-membership.ts';
export {
  type ConsumerPerfOptions,
  type ConsumerPerfProgress,
  type ConsumerPerfResult,
  ConsumerPerfWorkload,
} from './consumer-perf.ts';
export { type ExponentialBackoffOptions, exponentialBackoff } from './exponential-backoff.ts';
export type { ConsumedBatches, OffsetReset, PartitionState } from './fetcher.ts';
export {
  GroupConsumer,
  type GroupConsumerOptions,
  type MemberAssignmentEvent,
  type ProcessingModel,
  type RebalanceControl,
  type RebalanceListener,
} from './group-consumer.ts';
export {
  type GroupConsumerConfig,
  type GroupConsumerConfigInput,
  groupConsumerConfig,
  strategyNames,
} from './group-consumer-config.ts';
export { MetadataCache, type PartitionLeader } from './metadata-cache.ts';
export * from './partitioners.ts';
export { nextProducerId, Producer, type ProducerOptions } from './producer.ts';
export type { DeliveryResult, SendRecord } from './producer-batch.ts';
export { type ProducerPerfOptions, ProducerPerfWorkload } from './producer-perf.ts';
export type { ProducerEvent } from './sender.ts';
export { recordsDue, SteadyLoad, type SteadyLoadSpec } from './steady-load.ts';
export type { TopicPartitionRef } from './topic-partition-key.ts';
