// Clients: producer, consumer (assign mode) and admin client, in Java and librdkafka flavours, talking to
// brokers only through the simulated network; the perf-test workloads; Kafka's partitioners.
// Left out: transactions, compression, interceptors, quotas, SASL/TLS; the group protocol is in models/group.
// Facts: clients-and-groups.md §3–§4 (ProducerConfig.java, Sender.java, BuiltInPartitioner, librdkafka
// CONFIGURATION.md), source-scenarios.md A (perf-test workload).
export { AdminClient, type AdminOptions, type AdminOutcome } from './admin.ts';
export {
  type ClientFlavour,
  type ConsumerConfig,
  type ConsumerConfigInput,
  consumerConfig,
  type ProducerConfig,
  type ProducerConfigInput,
  producerConfig,
} from './config.ts';
export { type ConsumedBatches, Consumer, type ConsumerOptions, type TopicPartitionRef } from './consumer.ts';
export { MetadataCache, type PartitionLeader } from './metadata-cache.ts';
export * from './partitioners.ts';
export {
  type DeliveryResult,
  Producer,
  type ProducerEvent,
  type ProducerOptions,
  type SendRecord,
} from './producer.ts';
export { type ProducerPerfOptions, ProducerPerfWorkload } from './producer-perf.ts';
