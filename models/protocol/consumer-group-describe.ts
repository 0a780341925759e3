// ConsumerGroupDescribe (apiKey 69, KIP-848): what `kafka-consumer-groups.sh --describe` and Admin.describeConsumerGroups
// ask of a consumer-protocol group: its state and epochs, the assignor it uses, and each member's current and target
// assignment. Field names are Kafka's (ConsumerGroupDescribeRequest.json / ...Response.json), camelCased. A group
// that does not exist, or is a classic group, is answered with GROUP_ID_NOT_FOUND (GroupMetadataManager.consumerGroupDescribe).

export interface ConsumerGroupDescribeRequest {
  type: 'ConsumerGroupDescribe';
  groupIds: string[];
}

export interface ConsumerGroupDescribeTopicPartitions {
  topicId: string;
  topicName: string;
  partitions: number[];
}

export interface ConsumerGroupDescribedMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  assignment: ConsumerGroupDescribeTopicPartitions[];
  targetAssignment: ConsumerGroupDescribeTopicPartitions[];
}

export interface ConsumerGroupDescribedGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  /** Empty, Assigning, Reconciling, Stable, Dead; '' with an error. */
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: ConsumerGroupDescribedMember[];
}

export interface ConsumerGroupDescribeResponse {
  groups: ConsumerGroupDescribedGroup[];
}
