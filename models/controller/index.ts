/**
 * The KRaft quorum controller: Kafka's `QuorumController` with its cluster, replication and configuration
 * control managers. It turns broker and admin requests into metadata records, appends each
 * request's records as one batch and answers when the batch commits; it tracks broker liveness from heartbeats
 * and fences brokers whose session expires, elects partition leaders, places replicas like Kafka's striped
 * placer, runs reassignments (Kafka's adding/removing protocol, or AutoMQ's leader -1 move in shared storage
 * mode), and serves committed metadata to brokers by long-polled MetadataFetch. Alone it runs on a local
 * metadata log; as a voter of the Raft quorum (models/raft) it is active while it leads and a standby otherwise.
 *
 * Left out: ELR and leader recovery state, preferred-leader auto-balancing, unregistration, log directories,
 * features and metadata versions, quotas, ACLs and policies, APPEND/SUBTRACT config ops, AutoMQ's topic and
 * partition quotas and its load metrics (partition counts stand in for load).
 *
 * Facts: KIP-631 (heartbeats, fencing, election, records), KIP-455 (reassignment), Kafka's Errors.java (admin
 * errors), AutoMQ/automq's core/src/main/java/kafka/autobalancer/ (shared-storage moves and failover), plus
 * apache/kafka's `ReplicationControlManager`, `PartitionChangeBuilder`, `PartitionReassignmentReplicas`,
 * `PartitionReassignmentRevert`, `StripedReplicaPlacer`, `ClusterControlManager`, `BrokerHeartbeatManager`,
 * `ConfigurationControlManager`, `LogConfig` and `Topic`, and AutoMQ's `ReplicationControlManager` and
 * `LoadAwarePartitionLeaderSelector`, cited where each rule is used.
 */

export {
  type BrokerControlState,
  BrokerHeartbeatManager,
  currentBrokerState,
  type HeartbeatIntent,
  isFencedState,
  nextBrokerState,
} from './broker-heartbeats.ts';
export {
  type ConfigType,
  type ControllerConfig,
  DEFAULT_CONTROLLER_CONFIG,
  effectiveTopicConfigs,
  KAFKASIM_ONLY_KEYS,
  resolveControllerConfig,
  type StorageMode,
  TOPIC_CONFIGS,
  type TopicConfigKey,
  topicConfigKey,
  validateTopicConfigs,
  validateTopicConfigValue,
} from './config.ts';
export type { PendingElection } from './control-context.ts';
export { checkPartitionStates } from './invariants.ts';
export type { ClusterStats } from './leader-selector.ts';
export {
  type CounterRecord,
  counterValue,
  MetadataAppendLoad,
  type MetadataAppendLoadOptions,
} from './metadata-append-load.ts';
export {
  buildPartitionChange,
  type Election,
  mergePartitionChange,
  type PartitionChange,
  type PartitionChangeSpec,
} from './partition-change.ts';
export {
  type ControllerLifecycleEvent,
  type ControllerQuorumOptions,
  type ControllerRequestHandler,
  QuorumController,
  type QuorumControllerOptions,
} from './quorum-controller.ts';
export {
  isReassignmentInProgress,
  maybeCompleteReassignment,
  type ReassignmentReplicas,
  reassignmentReplicas,
  revertReassignment,
} from './reassignment.ts';
export {
  type PlacementRandom,
  placeReplicas,
  ReplicaPlacementError,
  type UsableBroker,
} from './replica-placer.ts';
export { collidingTopic, invalidTopicNameReason, MAX_TOPIC_NAME_LENGTH } from './topic-name.ts';
