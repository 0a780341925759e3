// Consumer groups as kafka-consumer-groups.sh sees them: the admin client finds the group's coordinator,
// describes the group there, fetches its committed offsets, and asks each partition leader for its log end
// offset (ListOffsets latest = the high watermark); the result feeds src/format's formatters. Each call sends
// real requests through the network and runs the simulation until the answers are in, as the tool would.
import {
  type BrokerRequest,
  brokerNodeId,
  type DescribeGroupsResponse,
  type FindCoordinatorResponse,
  type GroupRequest,
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
import type { Cluster } from './cluster.ts';

export interface DescribeGroupOptions {
  /** --state */
  state?: boolean;
  /** --members */
  members?: boolean;
  /** --verbose (with --members) */
  verbose?: boolean;
}

/** One request from the admin client to a broker, running the simulation until it is answered. */
function call<R>(cluster: Cluster, to: string, req: GroupRequest | BrokerRequest): R | undefined {
  const client = cluster.admin.client;
  let outcome: { ok: boolean; response?: R } | undefined;
  client.request<R>(
    to,
    req,
    (o) => {
      outcome = o.ok ? { ok: true, response: o.response } : { ok: false };
    },
    client.requestTimeoutMs,
  );
  cluster.sim.runUntil(() => outcome !== undefined, {
    timeout: client.requestTimeoutMs + 1000,
    description: `the answer to ${req.type}`,
  });
  return outcome?.ok ? outcome.response : undefined;
}

/** The group as the admin client describes it (describeConsumerGroups + listConsumerGroupOffsets + listOffsets). */
export function consumerGroupView(cluster: Cluster, groupId: string): ConsumerGroupView {
  const bootstrap = brokerNodeId(cluster.liveBroker().brokerId);
  const found = call<FindCoordinatorResponse>(cluster, bootstrap, { type: 'FindCoordinator', key: groupId });
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
  const described = call<DescribeGroupsResponse>(cluster, coordinatorNode, {
    type: 'DescribeGroups',
    groups: [groupId],
  })?.groups[0];
  if (!described || described.errorCode !== 0) return { ...dead, coordinator };
  const fetched = call<OffsetFetchResponse>(cluster, coordinatorNode, {
    type: 'OffsetFetch',
    groupId,
    partitions: null,
  });
  const committed = new Map<string, number>();
  for (const p of fetched?.partitions ?? [])
    if (p.offset >= 0) committed.set(`${p.topic}\u0000${p.partition}`, p.offset);
  const members = described.members.map((m) => ({
    consumerId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    host: m.clientHost,
    assignment: m.assignment ?? [],
  }));
  const partitions = groupPartitions(
    members.map((m) => m.assignment),
    committed,
  );
  const logEnd = logEndOffsets(cluster, [...partitions.values()]);
  return {
    groupId,
    state: described.groupState as GroupStateName,
    coordinator,
    assignmentStrategy: described.protocolData,
    members,
    offsets: [...partitions].map(([key, tp]) => ({
      ...tp,
      committedOffset: committed.get(key) ?? null,
      logEndOffset: logEnd.get(key) ?? null,
    })),
  };
}

/** ListOffsets(latest) to each partition's leader, as the tool's getLogEndOffsets does. */
function logEndOffsets(
  cluster: Cluster,
  partitions: { topic: string; partition: number }[],
): Map<string, number> {
  const image = cluster.liveBroker().image;
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
    const r = call<ListOffsetsResponse>(cluster, brokerNodeId(leader), {
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
  cluster: Cluster,
  groupId: string,
  options: DescribeGroupOptions = {},
): ToolOutput {
  const view = consumerGroupView(cluster, groupId);
  if (options.state) return formatConsumerGroupState(view);
  if (options.members) return formatConsumerGroupMembers(view, { verbose: options.verbose ?? false });
  return formatConsumerGroupOffsets(view);
}

/** `kafka-consumer-groups.sh --list`: every live broker's ListGroups, merged and sorted. */
export function listConsumerGroups(cluster: Cluster): { groupId: string; state: string }[] {
  const seen = new Map<string, string>();
  for (const b of cluster.brokers.values()) {
    if (!b.up) continue;
    const r = call<ListGroupsResponse>(cluster, brokerNodeId(b.brokerId), { type: 'ListGroups' });
    for (const g of r?.groups ?? []) seen.set(g.groupId, g.groupState);
  }
  return [...seen]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([groupId, state]) => ({ groupId, state }));
}

/**
 * A group's committed offsets and each partition's log end (high watermark, what ListOffsets latest answers),
 * read straight from the coordinator and the partition logs: no requests, so it does not move the simulation.
 * Conditions checked while the simulation runs (waitUntil) must not send requests: they would run the
 * simulation from inside an event, and perturb the run they observe. The offsets are those
 * kafka-consumer-groups --describe would show for the partitions the group has committed or owns.
 */
export function groupOffsetsNow(
  cluster: Cluster,
  groupId: string,
): { topic: string; partition: number; committedOffset: number | null; logEndOffset: number | null }[] {
  const coordinatorId = cluster.groupCoordinator(groupId);
  const broker = coordinatorId >= 0 ? cluster.brokers.get(coordinatorId) : undefined;
  if (!broker?.up) return [];
  const coordinator = broker.groupCoordinator;
  const committed = coordinator.committedOffsets(groupId) ?? new Map<string, number>();
  const members = [...(coordinator.group(groupId)?.members.values() ?? [])];
  const partitions = groupPartitions(
    members.map((m) => m.assignment ?? []),
    committed,
  );
  const hw = new Map<string, number>();
  for (const log of cluster.partitionLogs()) hw.set(`${log.topic}\u0000${log.partition}`, log.highWatermark);
  return [...partitions].map(([key, tp]) => ({
    ...tp,
    committedOffset: committed.get(key) ?? null,
    logEndOffset: hw.get(key) ?? null,
  }));
}

/**
 * The partitions kafka-consumer-groups --describe lists for a group: those its members own and those it has
 * committed offsets for, keyed `topic\u0000partition` (the coordinator's key).
 */
function groupPartitions(
  assignments: readonly (readonly { topic: string; partition: number }[])[],
  committed: ReadonlyMap<string, number>,
): Map<string, { topic: string; partition: number }> {
  const partitions = new Map<string, { topic: string; partition: number }>();
  for (const assignment of assignments)
    for (const tp of assignment) partitions.set(`${tp.topic}\u0000${tp.partition}`, tp);
  for (const key of committed.keys()) {
    const i = key.lastIndexOf('\u0000');
    partitions.set(key, { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) });
  }
  return partitions;
}
