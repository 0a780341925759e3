// A broker of a Kafka-compatible cluster: replays the metadata log into its own image (so its view lags the
// controller's), leads and follows replicas, serves Produce/Fetch/Metadata/ListOffsets/DescribeConfigs, keeps the
// ISR and high watermark, registers and heartbeats. Load shows as latency: appends slow down as network-in
// approaches the broker's capacity (an M/M/1-style factor on the base append latency, plus FIFO transfer time).
// The parts follow Kafka's own split (see broker.ts for the map). Left out: quotas, the transaction
// coordinator, KRaft snapshots, TLS/SASL. Facts: KIP-101/KIP-320 (leader epochs, truncation), KIP-497
// (AlterPartition), KIP-631 (broker registration and heartbeats), KIP-951 (leader hints).
export { Broker, type BrokerOptions, type Replica, type ReplicaRole } from './broker.ts';
export { type BrokerConfig, brokerDefaults } from './config.ts';
export {
  type AcknowledgedBatch,
  type CommittedPartition,
  DATA_PLANE_INVARIANTS,
  type DataPlaneInvariantName,
  DataPlaneInvariants,
  type DataPlaneSource,
} from './invariants.ts';
export { sameBatch } from './log-agreement.ts';
export type { BrokerView, LogView, ReplicaView } from './replica-view.ts';
