// The requests a broker serves, and their responses, as plain data on the simulated network. Shapes follow
// Kafka's Produce, Fetch, Metadata and ListOffsets RPCs (camelCased, trimmed to what the simulator uses).
import type { ProducerBatchData, RecordBatch } from '../storage/index.ts';

export interface LeaderHint {
  leaderId: number;
  leaderEpoch: number;
}

export interface ProduceRequest {
  type: 'Produce';
  /** 0, 1 or -1 (all). */
  acks: 0 | 1 | -1;
  timeoutMs: number;
  clientId: string;
  correlationId: number;
  partitions: { topic: string; partition: number; batch: ProducerBatchData }[];
}
export interface ProducePartitionResponse {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage?: string;
  baseOffset: number;
  /** KIP-951: the leader the broker knows of, sent with NOT_LEADER_OR_FOLLOWER. */
  currentLeader?: LeaderHint;
}
export interface ProduceResponse {
  correlationId: number;
  partitions: ProducePartitionResponse[];
}

/** Kafka's FetchMetadata constants (KIP-227): no session, a full fetch that opens one, a full fetch that closes it. */
export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;

/** The epoch after `epoch` (Kafka's FetchMetadata.nextEpoch: wraps to 1, never 0). */
export function nextEpoch(epoch: number): number {
  return epoch < 0 ? INITIAL_EPOCH : epoch === 2 ** 31 - 1 ? 1 : epoch + 1;
}

export interface FetchPartition {
  topic: string;
  partition: number;
  fetchOffset: number;
  /** Followers: the epoch of the last batch they have, for divergence detection (KIP-595/Fetch v12). */
  lastFetchedEpoch?: number;
  currentLeaderEpoch?: number;
  partitionMaxBytes: number;
}
export interface FetchRequest {
  type: 'Fetch';
  /** A follower's broker id, or -1 for a consumer. */
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  /**
   * KIP-227: the fetch session (0: none). With `sessionEpoch` 0 a full fetch that creates a session, -1 a full
   * fetch without one (also what an absent epoch means), above 0 an incremental fetch of session `sessionId`.
   */
  sessionId?: number;
  sessionEpoch?: number;
  partitions: FetchPartition[];
  /** In an incremental fetch, the partitions to remove from the session. */
  forgotten?: { topic: string; partition: number }[];
}
export interface FetchPartitionResponse {
  topic: string;
  partition: number;
  errorCode: number;
  highWatermark: number;
  logStartOffset: number;
  batches: readonly RecordBatch[];
  divergingEpoch?: { epoch: number; endOffset: number };
  currentLeader?: LeaderHint;
}
export interface FetchResponse {
  /** A top-level error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH): no partition was read. */
  errorCode?: number;
  /** The session the fetch belongs to (0: none was created). */
  sessionId?: number;
  partitions: FetchPartitionResponse[];
}

export interface MetadataRequest {
  type: 'Metadata';
  /** null = all topics. */
  topics: string[] | null;
}
export interface MetadataPartition {
  partition: number;
  errorCode: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
}
export interface MetadataTopic {
  name: string;
  topicId: string | null;
  errorCode: number;
  partitions: MetadataPartition[];
}
export interface MetadataResponse {
  brokers: { brokerId: number; host: string; port: number; rack: string | null }[];
  controllerId: number;
  topics: MetadataTopic[];
  /** The metadata offset the answering broker has replayed (kafkasim: shows staleness). */
  metadataOffset: number;
}

export interface ListOffsetsRequest {
  type: 'ListOffsets';
  /**
   * timestamp -1 = latest (the high watermark), -2 = earliest (the log start), otherwise epoch milliseconds: the
   * first offset whose record's timestamp is at or after it (KIP-79, UnifiedLog.fetchOffsetByTimestamp).
   */
  partitions: { topic: string; partition: number; timestamp: number }[];
}
export interface ListOffsetsResponse {
  partitions: {
    topic: string;
    partition: number;
    errorCode: number;
    offset: number;
    leaderEpoch: number;
    /** The found record's timestamp for a search by time; -1 for latest/earliest or when nothing was found. */
    timestamp?: number;
  }[];
}

/**
 * KIP-320's OffsetsForLeaderEpoch as a consumer sends it to validate its position after a leader change: for each
 * partition, the end offset of `leaderEpoch` in the leader's log (the start of the next larger epoch, or the log
 * end). `currentLeaderEpoch` -1 skips the fencing check.
 */
export interface OffsetForLeaderEpochRequest {
  type: 'OffsetForLeaderEpoch';
  partitions: { topic: string; partition: number; currentLeaderEpoch: number; leaderEpoch: number }[];
}
export interface OffsetForLeaderEpochResponse {
  /** leaderEpoch and endOffset are -1 (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when the log cannot tell. */
  partitions: {
    topic: string;
    partition: number;
    errorCode: number;
    leaderEpoch: number;
    endOffset: number;
  }[];
}

export interface DescribeConfigsRequest {
  type: 'DescribeConfigs';
  resources: { resourceType: 'TOPIC' | 'BROKER'; resourceName: string }[];
}
export type ConfigSource =
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG';
export interface DescribeConfigsResponse {
  resources: {
    resourceType: 'TOPIC' | 'BROKER';
    resourceName: string;
    errorCode: number;
    errorMessage?: string;
    configs: { name: string; value: string | null; source: ConfigSource; isDefault: boolean }[];
  }[];
}

export type BrokerRequest =
  | ProduceRequest
  | FetchRequest
  | MetadataRequest
  | ListOffsetsRequest
  | OffsetForLeaderEpochRequest
  | DescribeConfigsRequest;
