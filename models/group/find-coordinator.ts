// FindCoordinator as any broker answers it from its metadata image (KafkaApis.handleFindCoordinator): the leader
// of the group's __consumer_offsets partition, and the topic Kafka creates on the first request when it is
// missing (offsets.topic.num.partitions, offsets.topic.replication.factor, compacted).
import type { MetadataImage } from '../metadata/index.ts';
import {
  type CreatableTopic,
  Errors,
  type FindCoordinatorResponse,
  OFFSETS_TOPIC,
} from '../protocol/index.ts';
import type { StorageMode } from '../storage/index.ts';
import type { GroupCoordinatorConfig } from './config.ts';

export const coordinatorNotFound = (errorCode: number): FindCoordinatorResponse => ({
  errorCode,
  nodeId: -1,
  host: '',
  port: -1,
});

/** The coordinator of the group, an error, or 'NO_OFFSETS_TOPIC' when the topic must be created first. */
export function findCoordinator(
  image: MetadataImage,
  groupId: string,
  partitionFor: (groupId: string) => number,
): FindCoordinatorResponse | 'NO_OFFSETS_TOPIC' {
  if (groupId === '') return coordinatorNotFound(Errors.INVALID_GROUP_ID.code);
  const topic = image.topics[OFFSETS_TOPIC];
  if (!topic) return 'NO_OFFSETS_TOPIC';
  const reg = topic.partitions[partitionFor(groupId)];
  const leader = reg && reg.leader >= 0 ? image.brokers[reg.leader] : undefined;
  if (!leader || leader.fenced) return coordinatorNotFound(Errors.COORDINATOR_NOT_AVAILABLE.code);
  return { errorCode: 0, nodeId: leader.brokerId, host: leader.host, port: leader.port };
}

/**
 * The __consumer_offsets topic Kafka creates. Shared storage (AutoMQ) has one replica per partition. In kafka
 * mode the factor is capped at the number of registered brokers: real Kafka refuses to create it with fewer live
 * brokers than offsets.topic.replication.factor, and groups then never find a coordinator; the cap (as the brief
 * for this model asks) keeps small test clusters usable.
 */
export function offsetsTopic(
  config: GroupCoordinatorConfig,
  storage: StorageMode,
  brokers: number,
): CreatableTopic {
  return {
    name: OFFSETS_TOPIC,
    numPartitions: config['offsets.topic.num.partitions'],
    replicationFactor:
      storage === 'shared' ? 1 : Math.max(1, Math.min(config['offsets.topic.replication.factor'], brokers)),
    configs: { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': '104857600' },
  };
}
