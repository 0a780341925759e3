// Consumer groups as kafka-consumer-groups.sh sees them: the admin client finds the group's coordinator,
// describes the group there, fetches its committed offsets, and asks each partition leader for its log end
// offset (ListOffsets latest = the high watermark); the result feeds src/format's formatters. Each call sends
// real requests through the network and runs the simulation until the answers are in, as the tool would (so
// these are admin operations, not views: the request-free reading is views.ts's groupOffsetsNow).
import type { MetadataImage } from '../../models/metadata/index.ts';
import {
  brokerNodeId,
  type ConsumerGroupDescribeResponse,
  type ConsumerGroupDescribeTopicPartitions,
  type DescribeGroupsResponse,
  type FindCoordinatorResponse,
  type ListGroupsResponse,
  type ListOffsetsResponse,
  type OffsetFetchResponse,
} from '../../models/protocol/index.ts';
import {
  type ConsumerGroupView,
  formatConsumerGroupMembers,
  formatConsumerGroupOffsets,
  formatConsumerGroupState,
  type GroupStateName,
  type ToolOutput,
} from '../format/index.ts';
import type { ClusterAdmin } from './admin.ts';
import { groupPartitions } from './views.ts';

/**
 * The broker the tool bootstraps from (a live one, asked when needed: requests run the simulation, and a broker
 * may go down meanwhile) and whose metadata names the partition leaders.
 */
export type BootstrapBroker = () => {
  readonly brokerId: number;
  readonly image: MetadataImage;
};

export interface DescribeGroupOptions {
  /** --state */
  state?: boolean;
  /** --members */
  members?: boolean;
  /** --verbose (with --members or --state) */
  verbose?: boolean;
}

/** The group as the admin client describes it (describeConsumerGroups + listConsumerGroupOffsets + listOffsets). */
export function consumerGroupView(
  admin: ClusterAdmin,
  via: BootstrapBroker,
  groupId: string,
): ConsumerGroupView {
  const bootstrap = brokerNodeId(via().brokerId);
  const found = admin.brokerRequest<FindCoordinatorResponse>(bootstrap, {
    type: 'FindCoordinator',
    key: groupId,
  });
  const dead: ConsumerGroupView = {
    groupId,
    state: 'Dead',
    coordinator: { id: -1, host: '', port: -1 },
    assignmentStrategy: '',
    members: [],
    offsets: [],
  };
  if (!found || found.errorCode !== 0) return dead;
  const coordinator = { id: found.nodeId, host: found.host, port: found.port };
  const coordinatorNode = brokerNodeId(found.nodeId);
  const described = describeGroup(admin, coordinatorNode, groupId);
  if (!described) return { ...dead, coordinator };
  const fetched = admin.brokerRequest<OffsetFetchResponse>(coordinatorNode, {
    type: 'OffsetFetch',
    groupId,
    partitions: null,
  });
  const committed = new Map<string, number>();
  for (const p of fetched?.partitions ?? [])
    if (p.offset >= 0) committed.set(`${p.topic}\u0000${p.partition}`, p.offset);
  const { members } = described;
  const partitions = groupPartitions(
    members.map((m) => m.assignment),
    committed,
  );
  const logEnd = logEndOffsets(admin, via().image, [...partitions.values()]);
  return {
    groupId,
    coordinator,
    ...described,
    offsets: [...partitions].map(([key, tp]) => ({
      ...tp,
      committedOffset: committed.get(key) ?? null,
      logEndOffset: logEnd.get(key) ?? null,
    })),
  };
}

type Described = Pick<
  ConsumerGroupView,
  'state' | 'assignmentStrategy' | 'members' | 'type' | 'groupEpoch' | 'targetAssignmentEpoch'
>;

/**
 * Kafka 4.x's Admin.describeConsumerGroups (DescribeConsumerGroupsHandler): ConsumerGroupDescribe first; a group
 * it does not hold as a consumer-protocol group is answered GROUP_ID_NOT_FOUND and is asked again with
 * DescribeGroups, the classic protocol's describe. Undefined when neither describes it.
 */
function describeGroup(admin: ClusterAdmin, coordinatorNode: string, groupId: string): Described | undefined {
  const consumer = admin
    .brokerRequest<ConsumerGroupDescribeResponse>(coordinatorNode, {
      type: 'ConsumerGroupDescribe',
      groupIds: [groupId],
    })
    ?.groups.find((g) => g.groupId === groupId && g.errorCode === 0);
  const partitionsOf = (a: ConsumerGroupDescribeTopicPartitions[]) =>
    a.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topicName, partition })));
  if (consumer)
    return {
      type: 'consumer',
      state: consumer.groupState as GroupStateName,
      assignmentStrategy: consumer.assignorName,
      groupEpoch: consumer.groupEpoch,
      targetAssignmentEpoch: consumer.assignmentEpoch,
      members: consumer.members.map((m) => ({
        consumerId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        host: m.clientHost,
        assignment: partitionsOf(m.assignment),
        memberEpoch: m.memberEpoch,
        targetAssignment: partitionsOf(m.targetAssignment),
      })),
    };
  const classic = admin.brokerRequest<DescribeGroupsResponse>(coordinatorNode, {
    type: 'DescribeGroups',
    groups: [groupId],
  })?.groups[0];
  if (!classic || classic.errorCode !== 0) return undefined;
  return {
    state: classic.groupState as GroupStateName,
    assignmentStrategy: classic.protocolData,
    members: classic.members.map((m) => ({
      consumerId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      host: m.clientHost,
      assignment: m.assignment ?? [],
    })),
  };
}

/** ListOffsets(latest) to each partition's leader, as the tool's getLogEndOffsets does. */
function logEndOffsets(
  admin: ClusterAdmin,
  image: MetadataImage,
  partitions: { topic: string; partition: number }[],
): Map<string, number> {
  const byLeader = new Map<number, { topic: string; partition: number; timestamp: -1 }[]>();
  for (const tp of partitions) {
    const leader = image.topics[tp.topic]?.partitions[tp.partition]?.leader ?? -1;
    if (leader < 0) continue;
    let list = byLeader.get(leader);
    if (!list) byLeader.set(leader, (list = []));
    list.push({ ...tp, timestamp: -1 });
  }
  const out = new Map<string, number>();
  for (const [leader, list] of byLeader) {
    const r = admin.brokerRequest<ListOffsetsResponse>(brokerNodeId(leader), {
      type: 'ListOffsets',
      partitions: list,
    });
    for (const p of r?.partitions ?? [])
      if (p.errorCode === 0) out.set(`${p.topic}\u0000${p.partition}`, p.offset);
  }
  return out;
}

/** `kafka-consumer-groups.sh --describe --group <g>` with --state, --members [--verbose] or the offsets view. */
export function describeConsumerGroup(
  admin: ClusterAdmin,
  via: BootstrapBroker,
  groupId: string,
  options: DescribeGroupOptions = {},
): ToolOutput {
  const view = consumerGroupView(admin, via, groupId);
  if (options.state) return formatConsumerGroupState(view, { verbose: options.verbose ?? false });
  if (options.members) return formatConsumerGroupMembers(view, { verbose: options.verbose ?? false });
  return formatConsumerGroupOffsets(view);
}

/** `kafka-consumer-groups.sh --list`: every live broker's ListGroups, merged and sorted. */
export function listConsumerGroups(
  admin: ClusterAdmin,
  /** Read lazily, one broker at a time: each ListGroups runs the simulation. */
  liveBrokerIds: Iterable<number>,
): { groupId: string; state: string }[] {
  const seen = new Map<string, string>();
  for (const brokerId of liveBrokerIds) {
    const r = admin.brokerRequest<ListGroupsResponse>(brokerNodeId(brokerId), { type: 'ListGroups' });
    for (const g of r?.groups ?? []) seen.set(g.groupId, g.groupState);
  }
  return [...seen]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([groupId, state]) => ({ groupId, state }));
}
