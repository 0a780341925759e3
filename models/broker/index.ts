// A broker of a Kafka-compatible cluster: replays the metadata log into its own image (so its view lags the
// controller's), leads and follows replicas, serves Produce/Fetch/Metadata/ListOffsets/DescribeConfigs, keeps the
// ISR and high watermark, registers and heartbeats. Load shows as latency: appends slow down as network-in
// approaches the broker's capacity (an M/M/1-style factor on the base append latency, plus FIFO transfer time).
// Left out: log segments and retention, quotas, the group and transaction coordinators (groups arrive in
// models/group), KRaft snapshots, TLS/SASL.
// Facts: kraft.md §4 (ISR, epochs, fencing), clients-and-groups.md §6 (errors), automq-balancer.md §4 (moves).
export { Broker, type BrokerOptions, type Replica, type ReplicaRole } from './broker.ts';
export { type BrokerConfig, brokerDefaults } from './config.ts';
