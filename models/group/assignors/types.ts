// The public shape of a consumer-group partition assignor. A custom assignor is any object of this shape:
// like Kafka's ConsumerPartitionAssignor, it runs on the group leader (a client), takes the members'
// subscriptions and the partition counts, and returns each member's partitions.

export type { TopicPartition };

export interface AssignorMember {
  memberId: string;
  /** group.instance.id of a static member. */
  groupInstanceId?: string;
  topics: string[];
  /** What the member says it owns (ConsumerProtocolSubscription v1+ ownedPartitions). */
  ownedPartitions?: TopicPartition[];
  /** The generation in which the member got ownedPartitions (subscription v2+); absent means unknown (-1). */
  generation?: number;
}

export interface AssignInput {
  /** Partition count of every topic that exists; subscriptions to topics missing here are ignored. */
  partitionsPerTopic: Record<string, number>;
  members: AssignorMember[];
}

export type RebalanceProtocol = 'EAGER' | 'COOPERATIVE';

export interface Assignor {
  /** Protocol name sent in JoinGroup: 'range' | 'roundrobin' | 'sticky' | 'cooperative-sticky' or a user's. */
  name: string;
  /** As ConsumerPartitionAssignor.supportedProtocols(); absent means ['EAGER']. */
  rebalanceProtocols?: RebalanceProtocol[];
  /** Every input member is a key of the result (possibly with []); lists sorted by topic then partition. */
  assign(input: AssignInput): Record<string, TopicPartition[]>;
}

/**
 * How members are ordered where the assignor depends on order (range, roundrobin).
 * 'java': AbstractPartitionAssignor.MemberInfo.compareTo: static members (group.instance.id) first, by
 * instance id, then dynamic members by member id. 'librdkafka': rd_kafka_group_member_cmp: by instance id
 * only when both members have one, otherwise by member id (byte-wise, like rd_kafkap_str_cmp).
 */
export type MemberOrdering = 'java' | 'librdkafka';

import type { TopicPartition } from '../../protocol/index.ts';
