// The requests the active controller serves, and their responses, as plain data carried by the simulated
// network. Brokers talk to it for registration, heartbeats, ISR changes and to follow the metadata log; admin
// clients for topic and partition operations. Shapes follow Kafka's RPCs (field names camelCased), trimmed to
// what the simulator uses. Errors travel as Kafka error codes with messages (models/protocol).
import type { LogEntry } from '../metadata/index.ts';

export interface ErrorResult {
  errorCode: number; // 0 = NONE
  errorMessage?: string;
}

// ---- broker <-> controller --------------------------------------------------------------------------------

export interface BrokerRegistrationRequest {
  type: 'BrokerRegistration';
  brokerId: number;
  incarnationId: string;
  rack: string | null;
  host: string;
  port: number;
}
export interface BrokerRegistrationResponse extends ErrorResult {
  brokerEpoch: number; // -1 on error
}

export interface BrokerHeartbeatRequest {
  type: 'BrokerHeartbeat';
  brokerId: number;
  brokerEpoch: number;
  /** The metadata offset this broker has replayed. */
  currentMetadataOffset: number;
  wantFence: boolean;
  wantShutDown: boolean;
}
export interface BrokerHeartbeatResponse extends ErrorResult {
  isCaughtUp: boolean;
  isFenced: boolean;
  shouldShutDown: boolean;
}

/** A partition leader asks to change the ISR (KIP-497). */
export interface AlterPartitionRequest {
  type: 'AlterPartition';
  brokerId: number;
  brokerEpoch: number;
  topicId: string;
  partition: number;
  leaderEpoch: number;
  partitionEpoch: number;
  newIsr: number[];
}
export interface AlterPartitionResponse extends ErrorResult {
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  isr: number[];
}

/** Observers (brokers) pull committed metadata records, like KRaft's Fetch from `__cluster_metadata`. */
export interface MetadataFetchRequest {
  type: 'MetadataFetch';
  replicaId: number;
  fetchOffset: number;
  /** The controller parks the request up to this long when nothing new is committed. */
  maxWaitMs: number;
}
export interface MetadataFetchResponse extends ErrorResult {
  entries: readonly LogEntry[];
  highWatermark: number;
}

/**
 * Shared storage (AutoMQ): the broker that closed a moved partition releases its streams (AutoMQ's CloseStreams,
 * ControllerStreamManager.closeStream), so the new owner may open them.
 */
export interface CloseStreamsRequest {
  type: 'CloseStreams';
  topic: string;
  partition: number;
}
/**
 * Shared storage (AutoMQ): the new owner of a moved partition asks to open its streams. AutoMQ's target waits
 * until the metadata image shows them closed by the previous owner (DefaultOpenStreamChecker) before OpenStreams;
 * here the controller answers once they are, which is the same wait.
 */
export interface OpenStreamsRequest {
  type: 'OpenStreams';
  topic: string;
  partition: number;
}
export type StreamsResponse = ErrorResult;

/**
 * The new owner of a moved shared-storage (AutoMQ) partition, once it has opened it, asks the controller to elect
 * it (ElasticReplicaManager: alterPartitionManager.tryElectLeader after the open, so that clients are sent to it
 * only when it serves).
 */
export interface ElectLeadersRequest {
  type: 'ElectLeaders';
  partitions: { topic: string; partition: number }[];
  /** Kafka's ElectionType; PREFERRED when absent (what AutoMQ's source broker asks for). */
  electionType?: 'PREFERRED' | 'UNCLEAN';
}
export interface ElectLeadersResponse {
  results: ({ topic: string; partition: number } & ErrorResult)[];
}

// ---- admin <-> controller ---------------------------------------------------------------------------------

export interface CreatableTopic {
  name: string;
  /** -1 = the broker default `num.partitions`. */
  numPartitions: number;
  /** -1 = the broker default `default.replication.factor`. */
  replicationFactor: number;
  /** Explicit assignment: partition index -> broker ids. numPartitions/replicationFactor must be -1 then. */
  assignments?: number[][];
  configs?: Record<string, string>;
}
export interface CreateTopicsRequest {
  type: 'CreateTopics';
  topics: CreatableTopic[];
  validateOnly?: boolean;
}
export interface CreateTopicsResponse {
  topics: ({
    name: string;
    topicId: string | null;
    numPartitions: number;
    replicationFactor: number;
    configs: Record<string, string>;
  } & ErrorResult)[];
}

export interface DeleteTopicsRequest {
  type: 'DeleteTopics';
  topics: string[];
}
export interface DeleteTopicsResponse {
  topics: ({ name: string } & ErrorResult)[];
}

export interface CreatePartitionsRequest {
  type: 'CreatePartitions';
  topics: { name: string; count: number; assignments?: number[][] }[];
  validateOnly?: boolean;
}
export interface CreatePartitionsResponse {
  topics: ({ name: string } & ErrorResult)[];
}

export interface AlterPartitionReassignmentsRequest {
  type: 'AlterPartitionReassignments';
  /** replicas null cancels a reassignment in progress. */
  partitions: { topic: string; partition: number; replicas: number[] | null }[];
}
export interface AlterPartitionReassignmentsResponse extends ErrorResult {
  partitions: ({ topic: string; partition: number } & ErrorResult)[];
}

export interface ListPartitionReassignmentsRequest {
  type: 'ListPartitionReassignments';
  /** Absent = every partition being reassigned. */
  partitions?: { topic: string; partition: number }[];
}
export interface ListPartitionReassignmentsResponse extends ErrorResult {
  reassignments: {
    topic: string;
    partition: number;
    replicas: number[];
    addingReplicas: number[];
    removingReplicas: number[];
  }[];
}

export interface AlterConfigOp {
  name: string;
  op: 'SET' | 'DELETE';
  value?: string;
}
export interface IncrementalAlterConfigsRequest {
  type: 'IncrementalAlterConfigs';
  resources: { resourceType: 'TOPIC' | 'BROKER'; resourceName: string; configs: AlterConfigOp[] }[];
  validateOnly?: boolean;
}
export interface IncrementalAlterConfigsResponse {
  resources: ({ resourceType: 'TOPIC' | 'BROKER'; resourceName: string } & ErrorResult)[];
}

export type ControllerRequest =
  | BrokerRegistrationRequest
  | BrokerHeartbeatRequest
  | AlterPartitionRequest
  | MetadataFetchRequest
  | ElectLeadersRequest
  | CloseStreamsRequest
  | OpenStreamsRequest
  | CreateTopicsRequest
  | DeleteTopicsRequest
  | CreatePartitionsRequest
  | AlterPartitionReassignmentsRequest
  | ListPartitionReassignmentsRequest
  | IncrementalAlterConfigsRequest;

/** The response type for each request type. */
export interface ControllerResponses {
  BrokerRegistration: BrokerRegistrationResponse;
  BrokerHeartbeat: BrokerHeartbeatResponse;
  AlterPartition: AlterPartitionResponse;
  MetadataFetch: MetadataFetchResponse;
  ElectLeaders: ElectLeadersResponse;
  CloseStreams: StreamsResponse;
  OpenStreams: StreamsResponse;
  CreateTopics: CreateTopicsResponse;
  DeleteTopics: DeleteTopicsResponse;
  CreatePartitions: CreatePartitionsResponse;
  AlterPartitionReassignments: AlterPartitionReassignmentsResponse;
  ListPartitionReassignments: ListPartitionReassignmentsResponse;
  IncrementalAlterConfigs: IncrementalAlterConfigsResponse;
}

export type ControllerResponse = ControllerResponses[keyof ControllerResponses];

/** Every controller request may also be answered with this when the node is not the active controller. */
export interface NotControllerResponse extends ErrorResult {
  errorCode: 41;
  /** The node id of the active controller if known. */
  controllerNodeId?: string;
}
