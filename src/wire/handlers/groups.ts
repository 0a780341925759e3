// The classic group protocol: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit,
// OffsetFetch, DescribeGroups, ListGroups, onto the model's group coordinator. The consumer protocol's bytes
// (ConsumerProtocolSubscription, ConsumerProtocolAssignment) are decoded into the model's structured values; the
// members' own bytes (user data included) are what other members get back, since the coordinator passes the
// values it was given through unchanged (kept here by identity).
import type {
  DescribeGroupsResponse,
  FindCoordinatorResponse,
  HeartbeatResponse,
  JoinGroupResponse,
  LeaveGroupResponse,
  ListGroupsResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
  Subscription,
  SyncGroupResponse,
  TopicPartition,
} from '../../../models/protocol/index.ts';
import { Reader, WireDecodeError, Writer } from '../codec/bytes.ts';
import { decodeMessage, encodeMessage, type Message } from '../codec/message-codec.ts';
import type { FindCoordinatorRequestData } from '../generated/find-coordinator-request.ts';
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../generated/index.ts';
import type { JoinGroupRequestData } from '../generated/join-group-request.ts';
import type { LeaveGroupRequestData } from '../generated/leave-group-request.ts';
import type { OffsetCommitRequestData } from '../generated/offset-commit-request.ts';
import type { OffsetFetchRequestData } from '../generated/offset-fetch-request.ts';
import type { SyncGroupRequestData } from '../generated/sync-group-request.ts';
import { byTopic, call, type HandlerContext } from './context.ts';

const INCONSISTENT_GROUP_PROTOCOL = 23;
const INVALID_REQUEST = 42;
/** JoinGroup and SyncGroup wait for the whole group: their sim-side requests may wait that long. */
const groupWait = (rebalanceTimeoutMs: number) => rebalanceTimeoutMs + 60_000;

const rawSubscriptions = new WeakMap<Subscription, Uint8Array>();
const rawAssignments = new WeakMap<TopicPartition[], Uint8Array>();

function versioned(bytes: Uint8Array): { version: number; reader: Reader } {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  return { version: r.int16('consumer protocol version'), reader: r };
}

export function subscriptionOf(bytes: Uint8Array): Subscription {
  let sub: Subscription = { topics: [], ownedPartitions: [], generation: -1 };
  try {
    const { version, reader } = versioned(bytes);
    const v = Math.min(Math.max(version, 0), ConsumerProtocolSubscription.validVersions[1]);
    const m = decodeMessage(ConsumerProtocolSubscription, v, reader) as {
      topics: string[];
      ownedPartitions: { topic: string; partitions: number[] }[];
      generationId: number;
    };
    sub = {
      topics: m.topics,
      ownedPartitions: m.ownedPartitions.flatMap((o) =>
        o.partitions.map((partition) => ({ topic: o.topic, partition })),
      ),
      generation: m.generationId,
    };
  } catch (e) {
    if (!(e instanceof WireDecodeError)) throw e;
  }
  rawSubscriptions.set(sub, bytes);
  return sub;
}

function subscriptionBytes(sub: Subscription | null): Uint8Array {
  if (sub === null) return new Uint8Array(0);
  const raw = rawSubscriptions.get(sub);
  if (raw) return raw;
  const w = new Writer(64);
  w.int16(1);
  encodeMessage(
    ConsumerProtocolSubscription,
    1,
    {
      topics: sub.topics,
      userData: null,
      ownedPartitions: [...byTopic(sub.ownedPartitions, (p) => p.topic)].map(([topic, ps]) => ({
        topic,
        partitions: ps.map((p) => p.partition),
      })),
    },
    w,
  );
  return Buffer.from(w.result());
}

export function assignmentOf(bytes: Uint8Array): TopicPartition[] {
  let out: TopicPartition[] = [];
  if (bytes.length > 0) {
    try {
      const { version, reader } = versioned(bytes);
      const v = Math.min(Math.max(version, 0), ConsumerProtocolAssignment.validVersions[1]);
      const m = decodeMessage(ConsumerProtocolAssignment, v, reader) as {
        assignedPartitions: { topic: string; partitions: number[] }[];
      };
      out = m.assignedPartitions.flatMap((a) =>
        a.partitions.map((partition) => ({ topic: a.topic, partition })),
      );
    } catch (e) {
      if (!(e instanceof WireDecodeError)) throw e;
    }
  }
  rawAssignments.set(out, bytes);
  return out;
}

function assignmentBytes(a: TopicPartition[] | null): Uint8Array {
  if (a === null) return new Uint8Array(0);
  const raw = rawAssignments.get(a);
  if (raw) return raw;
  const w = new Writer(64);
  w.int16(0);
  encodeMessage(
    ConsumerProtocolAssignment,
    0,
    {
      assignedPartitions: [...byTopic(a, (p) => p.topic)].map(([topic, ps]) => ({
        topic,
        partitions: ps.map((p) => p.partition),
      })),
      userData: null,
    },
    w,
  );
  return Buffer.from(w.result());
}

export function handleFindCoordinator(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as FindCoordinatorRequestData;
  const v = ctx.version;
  const keys = v >= 4 ? req.coordinatorKeys : [req.key];
  const answers: (FindCoordinatorResponse & { key: string })[] = [];
  const finish = () => {
    const address = (a: FindCoordinatorResponse) => {
      const addr = a.errorCode === 0 ? ctx.session.addressOf(a.nodeId) : undefined;
      return { nodeId: addr ? a.nodeId : -1, host: addr?.host ?? '', port: addr?.port ?? -1 };
    };
    if (v >= 4) {
      return ctx.respond({
        throttleTimeMs: 0,
        coordinators: answers.map((a) => ({
          key: a.key,
          ...address(a),
          errorCode: a.errorCode,
          errorMessage: a.errorMessage ?? null,
        })),
      });
    }
    const a = answers[0]!;
    ctx.respond({
      throttleTimeMs: 0,
      errorCode: a.errorCode,
      errorMessage: a.errorMessage ?? null,
      ...address(a),
    });
  };
  if (req.keyType !== 0) {
    for (const key of keys)
      answers.push({
        key,
        errorCode: INVALID_REQUEST,
        errorMessage: 'only group coordinators are modelled',
        nodeId: -1,
        host: '',
        port: -1,
      });
    return finish();
  }
  let left = keys.length;
  keys.forEach((key, i) => {
    call<FindCoordinatorResponse>(ctx, { type: 'FindCoordinator', key }, (res) => {
      answers[i] = { ...res, key };
      if (--left === 0) finish();
    });
  });
  if (keys.length === 0) finish();
}

export function handleJoinGroup(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as JoinGroupRequestData;
  if (req.protocolType !== 'consumer') {
    return ctx.respond({
      throttleTimeMs: 0,
      errorCode: INCONSISTENT_GROUP_PROTOCOL,
      generationId: -1,
      protocolType: null,
      protocolName: null,
      leader: '',
      skipAssignment: false,
      memberId: req.memberId,
      members: [],
    });
  }
  call<JoinGroupResponse>(
    ctx,
    {
      type: 'JoinGroup',
      groupId: req.groupId,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      protocolType: 'consumer',
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: subscriptionOf(p.metadata) })),
      clientId: ctx.clientId,
      clientHost: '/127.0.0.1',
      ...(req.reason ? { reason: req.reason } : {}),
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: res.errorCode,
        generationId: res.generationId,
        protocolType: 'consumer',
        protocolName: res.protocolName ?? (ctx.version >= 7 ? null : ''),
        leader: res.leader,
        skipAssignment: false,
        memberId: res.memberId,
        members: res.members.map((x) => ({
          memberId: x.memberId,
          groupInstanceId: x.groupInstanceId,
          metadata: subscriptionBytes(x.metadata),
        })),
      }),
    { timeoutMs: groupWait(req.rebalanceTimeoutMs) },
  );
}

export function handleSyncGroup(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as SyncGroupRequestData;
  call<SyncGroupResponse>(
    ctx,
    {
      type: 'SyncGroup',
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      protocolName: req.protocolName,
      assignments: req.assignments.map((a) => ({
        memberId: a.memberId,
        assignment: assignmentOf(a.assignment),
      })),
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: res.errorCode,
        protocolType: 'consumer',
        protocolName: res.protocolName,
        assignment: assignmentBytes(res.errorCode === 0 ? res.assignment : null),
      }),
    { timeoutMs: groupWait(300_000) },
  );
}

export function handleHeartbeat(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as {
    groupId: string;
    generationId: number;
    memberId: string;
    groupInstanceId: string | null;
  };
  call<HeartbeatResponse>(
    ctx,
    {
      type: 'Heartbeat',
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
    },
    (res) => ctx.respond({ throttleTimeMs: 0, errorCode: res.errorCode }),
  );
}

export function handleLeaveGroup(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as LeaveGroupRequestData;
  const members =
    ctx.version >= 3
      ? req.members.map((x) => ({
          memberId: x.memberId,
          groupInstanceId: x.groupInstanceId,
          ...(x.reason ? { reason: x.reason } : {}),
        }))
      : [{ memberId: req.memberId, groupInstanceId: null }];
  call<LeaveGroupResponse>(ctx, { type: 'LeaveGroup', groupId: req.groupId, members }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      errorCode: res.errorCode,
      members: res.members.map((x, i) => ({
        memberId: x.memberId,
        groupInstanceId: members[i]?.groupInstanceId ?? null,
        errorCode: x.errorCode,
      })),
    }),
  );
}

export function handleOffsetCommit(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as OffsetCommitRequestData;
  const offsets = req.topics.flatMap((t) =>
    t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset })),
  );
  call<OffsetCommitResponse>(
    ctx,
    {
      type: 'OffsetCommit',
      groupId: req.groupId,
      generationId: req.generationIdOrMemberEpoch,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      offsets,
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        topics: [...byTopic(res.partitions, (p) => p.topic)].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode })),
        })),
      }),
  );
}

export function handleOffsetFetch(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as OffsetFetchRequestData;
  const partitions =
    req.topics === null
      ? null
      : req.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
  call<OffsetFetchResponse>(ctx, { type: 'OffsetFetch', groupId: req.groupId, partitions }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      errorCode: res.errorCode,
      topics: [...byTopic(res.partitions, (p) => p.topic)].map(([name, ps]) => ({
        name,
        partitions: ps.map((p) => ({
          partitionIndex: p.partition,
          committedOffset: p.offset,
          committedLeaderEpoch: -1,
          metadata: '',
          // Before v2 a group-level error is reported on every partition.
          errorCode: p.errorCode || (ctx.version < 2 ? res.errorCode : 0),
        })),
      })),
    }),
  );
}

export function handleDescribeGroups(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as { groups: string[] };
  call<DescribeGroupsResponse>(ctx, { type: 'DescribeGroups', groups: req.groups }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      groups: res.groups.map((g) => ({
        errorCode: g.errorCode,
        groupId: g.groupId,
        groupState: g.groupState,
        protocolType: g.protocolType,
        protocolData: g.protocolData,
        members: g.members.map((x) => ({
          memberId: x.memberId,
          groupInstanceId: x.groupInstanceId,
          clientId: x.clientId,
          clientHost: x.clientHost,
          memberMetadata: subscriptionBytes(x.metadata),
          memberAssignment: assignmentBytes(x.assignment),
        })),
        authorizedOperations: -2147483648,
      })),
    }),
  );
}

export function handleListGroups(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as { statesFilter: string[]; typesFilter: string[] };
  // Kafka matches both filters without regard to case (GroupMetadataManager.listGroups).
  const filter = (values: string[] | undefined, since: number) =>
    ctx.version >= since && values && values.length > 0
      ? new Set(values.map((v) => v.toLowerCase()))
      : undefined;
  const states = filter(req.statesFilter, 4);
  const types = filter(req.typesFilter, 5);
  call<ListGroupsResponse>(ctx, { type: 'ListGroups' }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      errorCode: res.errorCode,
      groups: res.groups
        .filter((g) => !states || states.has(g.groupState.toLowerCase()))
        .filter((g) => !types || types.has(g.groupType))
        .map((g) => ({
          groupId: g.groupId,
          protocolType: g.protocolType,
          groupState: g.groupState,
          groupType: g.groupType,
        })),
    }),
  );
}
