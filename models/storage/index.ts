// Partition storage at batch level. Two modes, chosen per cluster:
// - `kafka`: each replica has its own local PartitionLog; followers copy batches from the leader; a reassignment
//   copies data to the new replicas before the old ones are removed.
// - `shared` (AutoMQ): one PartitionLog per partition in SharedStorage (object storage behind a durable WAL);
//   RF 1; a move closes the partition on one broker and opens it on another without copying data.
// Left out: compaction, transactions and control batches, on-disk formats.
// Facts: KIP-101 and KIP-279 (leader epochs), KIP-455 (reassignment), AutoMQ's
// ReplicationControlManager.changePartitionReassignmentV2 (the physical move: close, then open elsewhere), Kafka's
// idempotent producer state (5 recent batches per producer, ProducerStateManager).
export {
  lastOffsetOf,
  type ProducerBatchData,
  type RecordBatch,
  type RecordData,
  type RecordRun,
} from './batch.ts';
export {
  type AppendOutcome,
  DEFAULT_SEGMENT_BYTES,
  DEFAULT_SEGMENT_MS,
  type LogWatcher,
  PartitionLog,
  type Segment,
} from './partition-log.ts';
export { SharedStorage } from './shared-storage.ts';

export type StorageMode = 'kafka' | 'shared';
