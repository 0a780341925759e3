// The models the API serves when the cluster runs them: consumer groups (models/group, through each broker's
// group coordinator), the auto-balancer (models/balancer, `cluster.balancer`) and the Lake (models/lake,
// `cluster.lakeApi`). Each is reached through a small adapter, so routes do not depend on a model's internals;
// a model the cluster does not run answers 501 with the reason.
//
// Reads here must not change the simulation: they look at coordinator state, detect reports and images only.
// (The cluster's own groupView() asks the coordinator over the simulated network, which runs events and draws
// latencies; the balancer's `model`, `config` and `brokerLoads()` resync its model, which could reorder what it
// decides later. Neither is used.)

import type { DetectReport } from '../../models/balancer/index.ts';
import type { Broker } from '../../models/broker/index.ts';
import {
  type ConsumerGroup,
  type ConsumerMemberState,
  type PartitionAssignment,
  partitionsOf,
  usesClassicProtocol,
} from '../../models/group/index.ts';
import type { Lake, LakeHttpApi } from '../../models/lake/index.ts';
import type { GroupStateName } from '../format/index.ts';
import { notImplemented } from './errors.ts';
import type { World } from './world.ts';

export interface GroupMemberInfo {
  consumerId: string;
  groupInstanceId: string | null;
  clientId: string;
  /** As the coordinator reports it, e.g. `/127.0.0.1`. */
  host: string;
  assignment: { topic: string; partition: number }[];
  /** A consumer-protocol (KIP-848) member's reconciliation; absent for a classic member. */
  consumer?: ConsumerMemberInfo;
}

type TopicPartition = { topic: string; partition: number };

/**
 * Where a consumer-protocol member stands (Kafka's ConsumerGroupMember): its epoch, its MemberState, the target
 * the coordinator's assignor gave it, and the partitions it was told to give up and has not yet confirmed.
 * `assignment` (beside it) is what it owns now; target minus assignment is what it waits for (held by others).
 */
export interface ConsumerMemberInfo {
  memberEpoch: number;
  state: ConsumerMemberState;
  target: TopicPartition[];
  pendingRevocation: TopicPartition[];
  /** False while the member still speaks the classic protocol in a group being migrated (MemberDescription.upgraded). */
  upgraded: boolean;
}

export interface GroupInfo {
  groupId: string;
  /** ConsumerGroupState's toString (Stable, Empty, PreparingRebalance...). */
  state: GroupStateName;
  /** The chosen assignor (protocol name), '' when none. */
  assignor: string;
  /** The generation (classic protocol; bumped by every rebalance), null without a group. */
  generation: number | null;
  /** The group's protocol, as ListGroups' GroupType names it: classic (JoinGroup/SyncGroup) or consumer (KIP-848). */
  type: 'classic' | 'consumer';
  /** A consumer-protocol group's group epoch and the epoch of its target assignment; null for a classic group. */
  epochs: { group: number; assignment: number } | null;
  /** A group without a protocol type that only commits offsets (the admin client's "simple" group). */
  isSimple: boolean;
  coordinator: { id: number; host: string; port: number };
  members: GroupMemberInfo[];
  /** Committed offsets. */
  offsets: { topic: string; partition: number; committedOffset: number }[];
}

export interface GroupsProvider {
  groupIds(): string[];
  describe(groupId: string): GroupInfo | undefined;
}

/** The groups the live brokers' coordinators hold now (no network round trip, nothing runs). */
export function groupsOf(world: World): GroupsProvider {
  const cluster = world.cluster;
  const coordinatorOf = (broker: Broker) =>
    (broker as Partial<Pick<Broker, 'groupCoordinator'>>).groupCoordinator ??
    (() => {
      throw notImplemented('Consumer groups are not served by this build: brokers run no group coordinator.');
    })();
  return {
    groupIds() {
      const ids = new Set<string>();
      for (const b of cluster.brokers.values()) {
        if (!b.up) continue;
        const coordinator = coordinatorOf(b);
        for (const g of coordinator.groups()) if (g.state !== 'Dead') ids.add(g.groupId);
        for (const g of coordinator.consumerGroups()) ids.add(g.groupId);
      }
      return [...ids].sort();
    },
    describe(groupId) {
      const id = cluster.groupCoordinator(groupId);
      const broker = id >= 0 ? cluster.brokers.get(id) : undefined;
      if (!broker?.up) return undefined;
      const coordinator = coordinatorOf(broker);
      // A classic group, or a consumer-protocol (KIP-848) one: DescribeGroups answers for both.
      const group = coordinator.group(groupId) ?? coordinator.consumerGroup(groupId);
      const committed = coordinator.committedOffsets(groupId);
      if (!group && (!committed || committed.size === 0)) return undefined;
      const d = group?.describe();
      const reg = cluster.image.brokers[id];
      const consumerGroup = group && 'groupEpoch' in group ? group : undefined;
      return {
        groupId,
        state: (d?.groupState ?? 'Empty') as GroupStateName,
        assignor: d?.protocolData ?? '',
        // A consumer-protocol group's counterpart of the generation is its group epoch.
        generation: group ? ('generationId' in group ? group.generationId : group.groupEpoch) : null,
        type: consumerGroup ? 'consumer' : 'classic',
        epochs: consumerGroup
          ? { group: consumerGroup.groupEpoch, assignment: consumerGroup.assignmentEpoch }
          : null,
        isSimple: (d?.protocolType ?? '') === '',
        coordinator: { id, host: reg?.host ?? '', port: reg?.port ?? -1 },
        members: (d?.members ?? []).map((m) => {
          const reconciling = consumerGroup && consumerMemberOf(consumerGroup, m.memberId, broker);
          return {
            consumerId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: m.clientId,
            host: m.clientHost,
            assignment: (m.assignment ?? []).map((tp) => ({ topic: tp.topic, partition: tp.partition })),
            ...(reconciling ? { consumer: reconciling } : {}),
          };
        }),
        offsets: [...(committed ?? new Map<string, number>())].map(([key, offset]) => {
          const i = key.lastIndexOf('\u0000');
          return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)), committedOffset: offset };
        }),
      };
    },
  };
}

/** A consumer-protocol member's epoch, state, target and pending revocation, topics by name. */
function consumerMemberOf(
  group: ConsumerGroup,
  memberId: string,
  broker: Broker,
): ConsumerMemberInfo | undefined {
  const m = group.members.get(memberId);
  if (!m) return undefined;
  const names = broker.image.topicNamesById;
  const named = (a: PartitionAssignment | undefined): TopicPartition[] =>
    a ? [...partitionsOf(a)].map(([t, partition]) => ({ topic: names[t] ?? t, partition })) : [];
  return {
    memberEpoch: m.memberEpoch,
    state: m.state,
    target: named(group.targetAssignment.get(memberId)),
    pendingRevocation: named(m.partitionsPendingRevocation),
    upgraded: !usesClassicProtocol(m),
  };
}

export interface LakeAdapter {
  readonly lake: Lake;
  /** Databend's HTTP API, as served (unguessable query ids, each visible only to its user). */
  readonly api: LakeHttpApi;
  setOutage(down: boolean): void;
}

export function lakeOf(world: World): LakeAdapter {
  if (!('lakeApi' in world.cluster))
    throw notImplemented('The Lake is not served by this build (the cluster has no Lake).');
  return {
    lake: world.cluster.lake,
    api: world.lakeHttpApi,
    setOutage: (down) => world.cluster.lake.setAvailable(!down),
  };
}

export interface BalancerAdapter {
  state(): Record<string, unknown>;
  load(): Record<string, unknown>;
  partitionLoad(): Record<string, unknown>;
  proposals(): Record<string, unknown>;
}

const KB = 1024;

/** The auto-balancer under Cruise Control's names, from its detect reports (Cruise Control's JSON, version 1). */
export function balancerOf(world: World): BalancerAdapter {
  const cluster = world.cluster;
  const balancer = cluster.balancer;
  if (!balancer)
    throw notImplemented(
      'The auto-balancer is not running in this simulation: start it with `kafkasim serve --autobalancer` ' +
        '(autobalancer.controller.enable=true) or a scenario that enables it.',
    );
  const last = (): DetectReport | undefined => balancer.lastDetect;
  const moveJson = (m: { topic: string; partition: number; srcBrokerId: number; destBrokerId: number }) => {
    const replicas = cluster.image.topics[m.topic]?.partitions[m.partition]?.replicas ?? [];
    return {
      topicPartition: { topic: m.topic, partition: m.partition },
      oldLeader: m.srcBrokerId,
      oldReplicas: [...replicas],
      newReplicas: replicas.map((r) => (r === m.srcBrokerId ? m.destBrokerId : r)),
    };
  };
  return {
    state() {
      const detector = balancer.state;
      const report = last();
      return {
        MonitorState: { state: detector === undefined ? 'NOT_STARTED' : 'RUNNING' },
        ExecutorState: {
          state:
            detector === 'executing'
              ? 'INTER_BROKER_REPLICA_MOVEMENT_TASK_IN_PROGRESS'
              : 'NO_TASK_IN_PROGRESS',
        },
        AnalyzerState: { isProposalReady: report !== undefined, readyGoals: report?.goals ?? [] },
        AnomalyDetectorState: {
          detector: detector ?? null,
          detects: balancer.history.length,
          lastDetectMs: report?.time ?? null,
          executedMoves: balancer.executedMoves().length,
        },
        version: 1,
      };
    },
    load() {
      const report = last();
      const image = cluster.image;
      const leaders = new Map<number, number>();
      const replicas = new Map<number, number>();
      for (const t of Object.values(image.topics))
        for (const p of t.partitions) {
          if (p.leader >= 0) leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
          for (const r of p.replicas) replicas.set(r, (replicas.get(r) ?? 0) + 1);
        }
      const status = new Map((report?.brokers ?? []).map((b) => [b.brokerId, b]));
      return {
        brokers: Object.values(image.brokers)
          .sort((a, b) => a.brokerId - b.brokerId)
          .map((b) => {
            const s = status.get(b.brokerId);
            return {
              Broker: b.brokerId,
              Host: b.host,
              Rack: b.rack ?? '',
              BrokerState: b.fenced ? 'DEAD' : 'ALIVE',
              Leaders: leaders.get(b.brokerId) ?? 0,
              Replicas: replicas.get(b.brokerId) ?? 0,
              // Cruise Control reports network rates in KB/s; these are the rates of the latest detect.
              NwInRate: s ? s.bytesIn / KB : null,
              NwOutRate: s ? s.bytesOut / KB : null,
              ...(s?.outOfDate ? { kafkasimOutOfDate: s.outOfDate } : {}),
            };
          }),
        kafkasimAsOfMs: report?.time ?? null,
        version: 1,
      };
    },
    partitionLoad() {
      const records: Record<string, unknown>[] = [];
      for (const t of Object.values(cluster.image.topics).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        for (const p of t.partitions) {
          const leaderReplica =
            p.leader >= 0
              ? cluster.brokers.get(p.leader)?.replicas.get(`${t.topicId}:${p.partition}`)
              : undefined;
          records.push({
            topic: t.name,
            partition: p.partition,
            leader: p.leader,
            followers: p.replicas.filter((r) => r !== p.leader),
            // kafkasim: bytes appended since the leader took the partition (the balancer's rates are its own).
            kafkasimBytesIn: leaderReplica?.bytesIn ?? 0,
            kafkasimBytesOut: leaderReplica?.bytesOut ?? 0,
          });
        }
      }
      return { records, version: 1 };
    },
    proposals() {
      const report = last();
      return {
        summary: {
          numReplicaMovements: report?.moves.length ?? 0,
          numLeaderMovements: report?.moves.length ?? 0,
          kafkasimDetectMs: report?.time ?? null,
          kafkasimSkipped: report?.skipped ?? null,
        },
        goalSummary: (report?.goals ?? []).map((goal) => ({ goal, status: 'FIXED' })),
        proposals: (report?.moves ?? []).map(moveJson),
        version: 1,
      };
    },
  };
}
