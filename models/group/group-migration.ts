// Online conversion of a non-empty group between the two protocols (KIP-848's upgrade and downgrade paths), as
// group.consumer.migration.policy allows it (bidirectional by default in Kafka 4.0; upgrade, downgrade, disabled):
// - upgrade: the first ConsumerGroupHeartbeat to a classic group of the consumer protocol type (with at most
//   group.consumer.max.size members) converts it. Every classic member becomes a consumer-group member at the
//   classic generation, Stable, holding its last assignment, which is also the target; the joining member then
//   bumps the group epoch and the classic members rejoin to reconcile (consumer-group-classic.ts).
// - downgrade: when the last consumer-protocol member leaves or is fenced and classic members remain (at most
//   group.max.size, the classic limit), the group becomes a classic one at generation = group epoch, each member with the
//   partitions it holds, and a rebalance starts at once.
// Facts: apache/kafka GroupMetadataManager (validateOnlineUpgrade, convertToConsumerGroup,
// validateOnlineDowngradeWithFencedMember, convertToClassicGroup), ConsumerGroup.fromClassicGroup,
// ClassicGroup.fromConsumerGroup, ConsumerGroupMigrationPolicy.

import type { MetadataImage } from '../metadata/index.ts';
import type { ClassicGroup } from './classic-group.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import { byTopicId, byTopicName } from './consumer-group-classic.ts';
import type { ConsumerGroupConfig } from './consumer-group-config.ts';
import {
  type ConsumerGroupMember,
  newConsumerGroupMember,
  usesClassicProtocol,
} from './consumer-group-member.ts';
import type { LoadedConsumerGroup } from './consumer-group-records.ts';
import type { GroupMetadataValue } from './offsets-records.ts';
import { selectProtocol } from './protocol-selection.ts';
import { assignmentOf } from './server-assignors/index.ts';

/** validateOnlineUpgrade: why the classic group cannot become a consumer group, or null when it can. */
export function upgradeRefusal(classic: ClassicGroup, config: ConsumerGroupConfig): string | null {
  const policy = config['group.consumer.migration.policy'];
  if (policy !== 'upgrade' && policy !== 'bidirectional') return 'the online upgrade is disabled';
  if (classic.protocolType !== 'consumer') return 'the group does not use the consumer embedded protocol';
  if (classic.members.size > config['group.consumer.max.size'])
    return 'the group size exceeds the consumer group maximum size';
  return null;
}

/** ConsumerGroup.fromClassicGroup: the classic group's members, as they are, in a consumer group. */
export function consumerGroupFromClassic(classic: ClassicGroup, image: MetadataImage): LoadedConsumerGroup {
  const members = [...classic.members.values()].map((m): ConsumerGroupMember => {
    const subscription =
      m.protocols.find((p) => p.name === classic.protocolName)?.metadata ?? m.protocols[0]!.metadata;
    const assigned = new Map<string, number[]>();
    for (const tp of byTopicId(m.assignment, image)) assigned.set(tp.topicId, tp.partitions);
    return {
      ...newConsumerGroupMember(m.memberId),
      memberEpoch: classic.generationId,
      previousMemberEpoch: classic.generationId,
      instanceId: m.groupInstanceId,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...new Set(subscription.topics)].sort(),
      assignedPartitions: assignmentOf(assigned),
      classicMemberMetadata: { sessionTimeoutMs: m.sessionTimeoutMs, supportedProtocols: m.protocols },
    };
  });
  return {
    groupEpoch: classic.generationId,
    assignmentEpoch: classic.generationId,
    assignor: null,
    subscriptionMetadata: {},
    members: new Map(members.map((m) => [m.memberId, m])),
    targets: new Map(members.map((m) => [m.memberId, m.assignedPartitions])),
  };
}

/** validateOnlineDowngradeWithFencedMember: whether the group becomes classic instead of losing this member. */
export function downgradeAllowed(
  group: ConsumerGroup,
  leavingMemberId: string,
  config: ConsumerGroupConfig,
  classicMaxSize: number,
): boolean {
  const leaving = group.members.get(leavingMemberId);
  if (!leaving || usesClassicProtocol(leaving)) return false;
  for (const m of group.members.values()) if (m !== leaving && !usesClassicProtocol(m)) return false;
  if (group.members.size <= 1) return false;
  const policy = config['group.consumer.migration.policy'];
  if (policy !== 'downgrade' && policy !== 'bidirectional') return false;
  return group.members.size - 1 <= classicMaxSize;
}

/** ClassicGroup.fromConsumerGroup, as the GroupMetadata value a ClassicGroup is loaded from (Stable). */
export function classicValueOf(
  group: ConsumerGroup,
  leavingMemberId: string,
  image: MetadataImage,
): GroupMetadataValue {
  const members = [...group.members.values()].filter((m) => m.memberId !== leavingMemberId);
  return {
    protocolType: 'consumer',
    generation: group.groupEpoch,
    protocol: selectProtocol(
      members.map((m) => ({ protocols: m.classicMemberMetadata!.supportedProtocols.map((p) => p.name) })),
    ),
    leader: members[0]?.memberId ?? null,
    members: members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.classicMemberMetadata!.sessionTimeoutMs,
      protocols: [...m.classicMemberMetadata!.supportedProtocols],
      assignment: byTopicName(m.assignedPartitions, image),
    })),
  };
}
