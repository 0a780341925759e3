/**
 * KRaft cluster metadata: the records the controller writes to `__cluster_metadata`, the immutable
 * MetadataImage that brokers and standby controllers build by replaying them, queries over an image,
 * and the MetadataLog interface: LocalMetadataLog here for a single controller, models/raft's RaftMetadataLog
 * for a KRaft quorum of controllers.
 *
 * Left out: snapshots, the older FenceBrokerRecord/UnfenceBrokerRecord, controller registrations,
 * producer ids, ACLs, client quotas, ELR, leader recovery state, log directories and endpoint lists.
 *
 * Facts: KIP-631 (the quorum-based controller: record types, broker epoch, fencing), KIP-455 (reassignment), the
 * record schemas and apiKeys in apache/kafka metadata/src/main/resources/common/metadata/; Kafka's
 * `PartitionRegistration.merge`, `ClusterControlManager` and `Uuid` for replay details, as noted where used.
 */

export { configMap, dictionary, FORBIDDEN_CONFIG_NAMES, isForbiddenConfigName } from './config-map.ts';
export { frozenRecordCopy } from './frozen-copy.ts';
export type {
  BrokerRegistration,
  ConfigsImage,
  MetadataImage,
  PartitionRegistration,
  TopicImage,
} from './image.ts';
export { emptyImage, type ImageDelta, MetadataReplayError, replay, replayDelta } from './image.ts';
export type {
  LocalMetadataLogOptions,
  MetadataLog,
  Scheduler,
} from './metadata-log.ts';
export { LocalMetadataLog } from './metadata-log.ts';
export type {
  BrokerPartitionCounts,
  PartitionDescription,
  TopicIdPartition,
} from './queries.ts';
export {
  activeBrokerIds,
  allPartitions,
  broker,
  brokerConfig,
  isActiveBroker,
  isReassigning,
  liveBrokerIds,
  partition,
  partitionCountsByBroker,
  partitionsLedBy,
  partitionsWithReplicaOn,
  reassigningPartitions,
  registeredBrokerIds,
  topicById,
  topicByName,
  topicConfig,
  topicNames,
  unavailablePartitions,
  underReplicatedPartitions,
} from './queries.ts';
export type {
  BrokerRegistrationChangeRecord,
  ConfigRecord,
  ConfigResourceType,
  FeatureLevelRecord,
  FencingChange,
  LogEntry,
  MetadataRecord,
  MetadataRecordType,
  NoOpRecord,
  PartitionChangeRecord,
  PartitionRecord,
  RegisterBrokerRecord,
  RemoveTopicRecord,
  TopicRecord,
  UnregisterBrokerRecord,
} from './records.ts';
export {
  apiKeyOf,
  FENCE,
  FENCING_UNCHANGED,
  NO_LEADER,
  NO_LEADER_CHANGE,
  newTopicId,
  UNFENCE,
} from './records.ts';
export {
  type ConfigType,
  describeTopicConfigs,
  effectiveTopicConfig,
  TOPIC_CONFIGS,
  TOPIC_CONFIGS_BY_NAME,
  type TopicConfigEntry,
  type TopicConfigKey,
  type TopicConfigSource,
  topicConfigKey,
} from './topic-configs.ts';
