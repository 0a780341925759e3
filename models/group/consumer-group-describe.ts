// ConsumerGroupDescribe on the coordinator (GroupMetadataManager.consumerGroupDescribe, ConsumerGroup.asDescribedGroup):
// each consumer-protocol group with its state, group and assignment epochs, the assignor it uses, and every member's
// current assignment beside its target. A group id the coordinator does not host as a consumer group (unknown, or a
// classic group) gets GROUP_ID_NOT_FOUND, as Kafka answers.
import type { MetadataImage } from '../metadata/index.ts';
import {
  type ConsumerGroupDescribedGroup,
  type ConsumerGroupDescribeTopicPartitions,
  type DescribedGroup,
  Errors,
} from '../protocol/index.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import { type PartitionAssignment, partitionsOf } from './server-assignors/index.ts';

function topicPartitions(
  a: PartitionAssignment | undefined,
  image: MetadataImage,
): ConsumerGroupDescribeTopicPartitions[] {
  if (!a) return [];
  return Object.keys(a)
    .sort()
    .map((topicId) => ({
      topicId,
      topicName: image.topicNamesById[topicId] ?? '',
      partitions: [...a[topicId]!],
    }));
}

/** The described group, or GROUP_ID_NOT_FOUND when `group` is undefined. */
export function describeConsumerGroup(
  groupId: string,
  group: ConsumerGroup | undefined,
  image: MetadataImage,
): ConsumerGroupDescribedGroup {
  if (!group || group.state === 'Dead')
    return {
      errorCode: Errors.GROUP_ID_NOT_FOUND.code,
      errorMessage: `Group ${groupId} not found.`,
      groupId,
      groupState: '',
      groupEpoch: 0,
      assignmentEpoch: 0,
      assignorName: '',
      members: [],
    };
  return {
    errorCode: 0,
    errorMessage: null,
    groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: group.assignor,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: null,
      assignment: topicPartitions(m.assignedPartitions, image),
      targetAssignment: topicPartitions(group.targetAssignment.get(m.memberId), image),
    })),
  };
}

/** DescribeGroups' view of a consumer-protocol group (what kafka-consumer-groups --describe reads): each member with what it owns now. */
export function describeAsClassicGroup(group: ConsumerGroup, image: MetadataImage): DescribedGroup {
  const names = image.topicNamesById;
  return {
    errorCode: 0,
    groupId: group.groupId,
    groupState: group.state,
    protocolType: 'consumer',
    // What Kafka's describe shows as the assignment strategy of a consumer group: its server-side assignor.
    protocolData: group.assignor,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      metadata: { topics: [...m.subscribedTopicNames], ownedPartitions: [], generation: m.memberEpoch },
      assignment: [...partitionsOf(m.assignedPartitions)].map(([t, partition]) => ({
        topic: names[t] ?? t,
        partition,
      })),
    })),
  };
}
