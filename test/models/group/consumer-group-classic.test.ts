// Classic-protocol members inside a consumer group (the online migration): JoinGroup runs the consumer group's
// steps with the subscription's owned partitions, SyncGroup hands out what the member may own, Heartbeat asks it
// to rejoin when it must; and the conversion checks of group.consumer.migration.policy.
import { describe, expect, it } from 'vitest';
import {
  classicHeartbeatToConsumerGroup,
  classicJoinToConsumerGroup,
  classicLeaveToConsumerGroup,
  classicSyncToConsumerGroup,
} from '../../../models/group/consumer-group-classic.ts';
import { consumerGroupCommitDecision } from '../../../models/group/coordinator-answers.ts';
import { downgradeAllowed } from '../../../models/group/group-migration.ts';
import { Errors, type JoinGroupRequest, type TopicPartition } from '../../../models/protocol/index.ts';
import { harness, owned } from './consumer-group-harness.ts';

const joinRequest = (memberId: string, ownedPartitions: TopicPartition[] = []): JoinGroupRequest => ({
  type: 'JoinGroup',
  groupId: 'g',
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 60_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'cooperative-sticky', metadata: { topics: ['t'], ownedPartitions, generation: -1 } }],
  clientId: 'classic',
  clientHost: '/10.0.0.2',
});
const tps = (...ps: number[]) => ps.map((partition) => ({ topic: 't', partition }));
const sorted = (a: TopicPartition[]) => a.map((tp) => tp.partition).sort();

/** A consumer-protocol member m1 owning all 4 partitions of t, and a classic member that joined after it. */
function mixed() {
  const h = harness({ t: 4 });
  const first = h.heartbeat({ memberEpoch: 0 });
  expect(owned(first)).toEqual(['id-t:0', 'id-t:1', 'id-t:2', 'id-t:3']);
  const id = classicJoinToConsumerGroup(h.group, joinRequest(''));
  expect(id.errorCode).toBe(Errors.MEMBER_ID_REQUIRED.code);
  const join = classicJoinToConsumerGroup(h.group, joinRequest(id.memberId));
  expect(join.errorCode).toBe(0);
  return { h, classicId: id.memberId, join };
}

describe('a classic member joins a consumer group', () => {
  it('is answered at once, never as leader, and gets nothing another member still holds', () => {
    const { h, classicId, join } = mixed();
    expect(join.leader).toBe('');
    expect(join.members).toEqual([]);
    expect(join.protocolName).toBe('cooperative-sticky');
    expect(join.generationId).toBe(h.group.groupEpoch);
    const sync = classicSyncToConsumerGroup(h.group, {
      type: 'SyncGroup',
      groupId: 'g',
      generationId: join.generationId,
      memberId: classicId,
      groupInstanceId: null,
      protocolName: 'cooperative-sticky',
      assignments: [],
    });
    // m1 has not revoked yet: the classic member waits (UNRELEASED_PARTITIONS) with nothing.
    expect(sync).toEqual({ errorCode: 0, protocolName: 'cooperative-sticky', assignment: [] });
    expect(h.group.members.get(classicId)!.state).toBe('UNRELEASED_PARTITIONS');
    // While it waits on a partition m1 still holds, its heartbeat is fine; once m1 released, it must rejoin.
    const hb = () =>
      classicHeartbeatToConsumerGroup(h.group, {
        type: 'Heartbeat',
        groupId: 'g',
        generationId: join.generationId,
        memberId: classicId,
        groupInstanceId: null,
      }).errorCode;
    expect(hb()).toBe(0);
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: [] });
    h.heartbeat({
      memberId: 'm1',
      memberEpoch: 2,
      topicPartitions: [{ topicId: 'id-t', partitions: [0, 1] }],
    });
    expect(hb()).toBe(Errors.REBALANCE_IN_PROGRESS.code);
    const rejoin = classicJoinToConsumerGroup(h.group, joinRequest(classicId));
    const again = classicSyncToConsumerGroup(h.group, {
      type: 'SyncGroup',
      groupId: 'g',
      generationId: rejoin.generationId,
      memberId: classicId,
      groupInstanceId: null,
      protocolName: null,
      assignments: [],
    });
    expect(sorted(again.assignment)).toEqual([2, 3]);
  });

  it('a classic member that still owns what it must give up keeps its epoch until it rejoins without it', () => {
    const { h, classicId } = mixed();
    // m1 gives up 2 and 3, the classic member gets them (epoch 2); then a third member joins: epoch 3.
    h.heartbeat({
      memberId: 'm1',
      memberEpoch: 1,
      topicPartitions: [{ topicId: 'id-t', partitions: [0, 1] }],
    });
    const j = classicJoinToConsumerGroup(h.group, joinRequest(classicId));
    expect(h.group.members.get(classicId)!.assignedPartitions).toEqual({ 'id-t': [2, 3] });
    h.heartbeat({ memberEpoch: 0 });
    const epoch = h.group.groupEpoch;
    expect(epoch).toBeGreaterThan(j.generationId);
    // It rejoins still owning 2 and 3 (cooperative): it keeps one, must revoke the other, at its old epoch.
    const r = classicJoinToConsumerGroup(h.group, joinRequest(classicId, tps(2, 3)));
    const member = h.group.members.get(classicId)!;
    expect(member.state).toBe('UNREVOKED_PARTITIONS');
    expect(r.generationId).toBe(j.generationId);
    const sync = classicSyncToConsumerGroup(h.group, {
      type: 'SyncGroup',
      groupId: 'g',
      generationId: r.generationId,
      memberId: classicId,
      groupInstanceId: null,
      protocolName: null,
      assignments: [],
    });
    expect(sync.assignment).toHaveLength(1);
    const kept = sync.assignment[0]!.partition;
    const revoked = kept === 2 ? 3 : 2;
    expect(h.group.currentPartitionEpoch('id-t', revoked)).toBe(j.generationId);
    // Rejoining with only the kept partition moves it to the new epoch and frees the other.
    const done = classicJoinToConsumerGroup(h.group, joinRequest(classicId, tps(kept)));
    expect(done.generationId).toBe(epoch);
    expect(h.group.currentPartitionEpoch('id-t', revoked)).toBe(-1);
  });

  it('refuses the wrong generation (ILLEGAL_GENERATION), consumer-protocol ids (UNKNOWN_MEMBER_ID), other protocols', () => {
    const { h, classicId, join } = mixed();
    const heartbeat = (memberId: string, generationId: number) =>
      classicHeartbeatToConsumerGroup(h.group, {
        type: 'Heartbeat',
        groupId: 'g',
        generationId,
        memberId,
        groupInstanceId: null,
      }).errorCode;
    expect(heartbeat(classicId, join.generationId + 1)).toBe(Errors.ILLEGAL_GENERATION.code);
    expect(heartbeat('m1', 1)).toBe(Errors.UNKNOWN_MEMBER_ID.code);
    expect(heartbeat('nobody', 1)).toBe(Errors.UNKNOWN_MEMBER_ID.code);
    const other = { ...joinRequest('x'), protocols: [{ ...joinRequest('x').protocols[0]!, name: 'range' }] };
    expect(classicJoinToConsumerGroup(h.group, other).errorCode).toBe(
      Errors.INCONSISTENT_GROUP_PROTOCOL.code,
    );
    const commit = (generationId: number, memberId: string) =>
      consumerGroupCommitDecision(h.group, {
        type: 'OffsetCommit',
        groupId: 'g',
        generationId,
        memberId,
        groupInstanceId: null,
        offsets: [],
      } as never);
    expect(commit(join.generationId + 5, classicId)).toBe('ILLEGAL_GENERATION');
    expect(commit(99, 'm1')).toBe('STALE_MEMBER_EPOCH');
  });

  it('its own session timeout applies, and it is fenced if it does not rejoin within its rebalance timeout', () => {
    const { h, classicId } = mixed();
    // Keep m1 alive; the classic member sends nothing after its join: fenced after its 10 s session.
    for (let t = 0; t < 12; t++) {
      h.sim.runFor(1000);
      if (t % 4 === 0) h.heartbeat({ memberId: 'm1', memberEpoch: h.group.members.get('m1')!.memberEpoch });
    }
    expect(h.group.members.has(classicId)).toBe(false);
    expect(h.events.some((e) => e.kind === 'group.member-expired' && e.sessionTimeoutMs === 10_000)).toBe(
      true,
    );
  });

  it('LeaveGroup fences it and bumps the group epoch', () => {
    const { h, classicId } = mixed();
    const before = h.group.groupEpoch;
    const r = classicLeaveToConsumerGroup(h.group, {
      type: 'LeaveGroup',
      groupId: 'g',
      members: [
        { memberId: classicId, groupInstanceId: null },
        { memberId: 'm1', groupInstanceId: null },
      ],
    });
    // m1 speaks the consumer protocol: a LeaveGroup cannot remove it.
    expect(r.members.map((m) => m.errorCode)).toEqual([0, Errors.UNKNOWN_MEMBER_ID.code]);
    expect(h.group.members.has(classicId)).toBe(false);
    expect(h.group.groupEpoch).toBe(before + 1);
  });
});

describe('group.consumer.migration.policy: downgrade checks (validateOnlineDowngradeWithFencedMember)', () => {
  it('only when the leaving member is the last of the consumer protocol, classic members remain, and the policy allows it', () => {
    const { h, classicId } = mixed();
    expect(downgradeAllowed(h.group, 'm1', h.config, 100)).toBe(true);
    expect(downgradeAllowed(h.group, classicId, h.config, 100)).toBe(false);
    expect(
      downgradeAllowed(h.group, 'm1', { ...h.config, 'group.consumer.migration.policy': 'upgrade' }, 100),
    ).toBe(false);
    expect(downgradeAllowed(h.group, 'm1', h.config, 0)).toBe(false);
    h.heartbeat({ memberEpoch: 0 });
    expect(downgradeAllowed(h.group, 'm1', h.config, 100)).toBe(false);
  });
});
