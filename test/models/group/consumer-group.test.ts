// The consumer group protocol's coordinator steps (KIP-848), driven directly on a simulation clock: group epoch
// bumps, target assignment, revoke-before-assign reconciliation, fencing (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID,
// session and rebalance timeouts), static membership, the metadata image hook, the coordinator's configs.
import { describe, expect, it } from 'vitest';
import { consumerGroupConfig, consumerGroupDefaults } from '../../../models/group/index.ts';
import { Errors } from '../../../models/protocol/index.ts';
import { harness, owned, topicPartitions } from './consumer-group-harness.ts';

const t = (...ps: number[]) => ps.map((p) => `id-t:${p}`);

describe('ConsumerGroupHeartbeat: joining and reconciling', () => {
  it('a first member gets every partition at group epoch 1, with the coordinator heartbeat interval', () => {
    const h = harness({ t: 4 });
    const r = h.heartbeat({});
    expect(r.errorCode).toBe(0);
    expect(r.memberId).toBe('m1');
    expect(r.memberEpoch).toBe(1);
    expect(r.heartbeatIntervalMs).toBe(5000);
    expect(owned(r)).toEqual(t(0, 1, 2, 3));
    expect(h.group.groupEpoch).toBe(1);
    expect(h.group.assignmentEpoch).toBe(1);
    expect(h.group.state).toBe('Stable');
  });

  it('a second member: the first revokes at its epoch before the second gets the partitions', () => {
    const h = harness({ t: 4 });
    h.heartbeat({});
    const b1 = h.heartbeat({});
    // The group moved to epoch 2; m2 is at epoch 2 but its partitions are still held by m1.
    expect(b1.memberEpoch).toBe(2);
    expect(owned(b1)).toEqual([]);
    expect(h.group.members.get('m2')!.state).toBe('UNRELEASED_PARTITIONS');
    expect(h.group.state).toBe('Reconciling');
    // m1 learns what to give up: it stays at epoch 1 until it has.
    const a2 = h.heartbeat({ memberId: 'm1', memberEpoch: 1 });
    expect(a2.memberEpoch).toBe(1);
    expect(owned(a2)).toEqual(t(0, 1));
    expect(h.group.members.get('m1')!.state).toBe('UNREVOKED_PARTITIONS');
    // Still owning them: no progress, nothing for m2.
    expect(
      h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0, 1, 2, 3)) })
        .memberEpoch,
    ).toBe(1);
    expect(owned(h.heartbeat({ memberId: 'm2', memberEpoch: 2, topicPartitions: [] }))).toEqual([]);
    // Revoked: m1 moves to epoch 2, and m2 gets 2 and 3 on its next heartbeat.
    const a3 = h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0, 1)) });
    expect(a3.memberEpoch).toBe(2);
    const b2 = h.heartbeat({ memberId: 'm2', memberEpoch: 2 });
    expect(owned(b2)).toEqual(t(2, 3));
    expect(h.group.state).toBe('Stable');
    expect(h.group.groupEpoch).toBe(2);
  });

  it('group.remote.assignor=range picks the server-side range assignor', () => {
    const h = harness({ t: 3, u: 3 });
    h.heartbeat({ subscribedTopicNames: ['t', 'u'], serverAssignor: 'range' });
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: [] });
    h.heartbeat({ subscribedTopicNames: ['t', 'u'], serverAssignor: 'range' });
    // Range is co-partitioned: m1 gets t0,t1,u0,u1 and m2 t2,u2 in the target.
    expect(h.group.targetAssignment.get('m1')).toEqual({ 'id-t': [0, 1], 'id-u': [0, 1] });
    expect(h.group.targetAssignment.get('m2')).toEqual({ 'id-t': [2], 'id-u': [2] });
    expect(
      h.events.some((e) => e.kind === 'group.consumer.target-assignment' && e.assignor === 'range'),
    ).toBe(true);
  });

  it('an unchanged heartbeat gets no assignment back and does not bump anything', () => {
    const h = harness({ t: 2 });
    h.heartbeat({});
    const r = h.heartbeat({ memberId: 'm1', memberEpoch: 1 });
    expect(r.errorCode).toBe(0);
    expect(r.assignment).toBeNull();
    expect(h.group.groupEpoch).toBe(1);
  });
});

describe('fencing', () => {
  it('FENCED_MEMBER_EPOCH for an epoch ahead, or behind that is not the previous one with a subset owned', () => {
    const h = harness({ t: 2 });
    h.heartbeat({});
    h.heartbeat({});
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0)) }); // m1 → epoch 2
    expect(h.group.members.get('m1')!.memberEpoch).toBe(2);
    const fenced = Errors.FENCED_MEMBER_EPOCH.code;
    expect(h.heartbeat({ memberId: 'm1', memberEpoch: 3 }).errorCode).toBe(fenced);
    // The previous epoch is accepted when what it owns is a subset of its assignment (its response was lost)...
    expect(
      h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0)) }).errorCode,
    ).toBe(0);
    // ...not when it claims a partition it no longer has.
    expect(
      h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0, 1)) }).errorCode,
    ).toBe(fenced);
  });

  it('UNKNOWN_MEMBER_ID for a member the group does not have; a fenced member rejoins with epoch 0', () => {
    const h = harness({ t: 2 });
    expect(h.heartbeat({ memberId: 'x', memberEpoch: 3 }).errorCode).toBe(Errors.UNKNOWN_MEMBER_ID.code);
    h.heartbeat({});
    const r = h.heartbeat({ memberId: 'm1', memberEpoch: 0 });
    expect(r.errorCode).toBe(0);
    expect(owned(r)).toEqual(t(0, 1));
  });

  it('a member whose session expires is removed and the group epoch bumped; its partitions go to the others', () => {
    const h = harness({ t: 2 });
    h.heartbeat({});
    h.heartbeat({});
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0)) });
    h.heartbeat({ memberId: 'm2', memberEpoch: 2 });
    // Only m1 keeps heartbeating, every 5 s.
    for (let i = 0; i < 10; i++) {
      h.sim.runFor(5000);
      h.heartbeat({
        memberId: 'm1',
        memberEpoch: h.group.members.get('m1')!.memberEpoch,
        topicPartitions: topicPartitions(owned1(h)),
      });
    }
    expect(h.group.members.has('m2')).toBe(false);
    expect(h.events.find((e) => e.kind === 'group.member-expired')?.t).toBe(45_000);
    expect(h.group.members.get('m1')!.assignedPartitions).toEqual({ 'id-t': [0, 1] });
    expect(h.group.groupEpoch).toBe(3);
  });

  it('a member that does not revoke within its rebalance timeout is fenced', () => {
    const h = harness({ t: 2 });
    h.heartbeat({ rebalanceTimeoutMs: 10_000 });
    h.heartbeat({});
    h.heartbeat({ memberId: 'm1', memberEpoch: 1 }); // asked to revoke t-1
    for (let i = 0; i < 3; i++) {
      h.sim.runFor(4000);
      h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0, 1)) });
      if (h.group.members.has('m2'))
        h.heartbeat({ memberId: 'm2', memberEpoch: h.group.members.get('m2')!.memberEpoch });
    }
    expect(h.group.members.has('m1')).toBe(false);
    const removed = h.events.find((e) => e.kind === 'group.member-removed');
    expect(removed?.reason).toBe('it failed to transition from epoch 1 within 10000ms');
    expect(removed?.t).toBe(10_000);
  });

  it('leaving with epoch -1 removes the member at once', () => {
    const h = harness({ t: 2 });
    h.heartbeat({});
    const r = h.heartbeat({ memberId: 'm1', memberEpoch: -1 });
    expect(r).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    expect(h.group.state).toBe('Empty');
    expect(h.group.groupEpoch).toBe(2);
  });
});

describe('static membership', () => {
  it('a static member that leaves with -2 keeps its partitions and gets them back without a new group epoch', () => {
    const h = harness({ t: 2 });
    h.heartbeat({ instanceId: 'a' });
    h.heartbeat({ instanceId: 'b' });
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0)) });
    h.heartbeat({ memberId: 'm2', memberEpoch: 2 });
    const left = h.heartbeat({ memberId: 'm2', memberEpoch: -2, instanceId: 'b' });
    expect(left.memberEpoch).toBe(-2);
    // m1 heartbeats on: t-1 is not offered to it.
    expect(h.heartbeat({ memberId: 'm1', memberEpoch: 2 }).assignment).toBeNull();
    const epoch = h.group.groupEpoch;
    const back = h.heartbeat({ instanceId: 'b' });
    expect(back.memberId).toBe('m3');
    expect(owned(back)).toEqual(t(1));
    expect(h.group.groupEpoch).toBe(epoch);
    expect(h.group.members.has('m2')).toBe(false);
  });

  it('UNRELEASED_INSTANCE_ID while the instance id is in use; FENCED_INSTANCE_ID for the wrong member id', () => {
    const h = harness({ t: 2 });
    h.heartbeat({ instanceId: 'a' });
    expect(h.heartbeat({ instanceId: 'a' }).errorCode).toBe(Errors.UNRELEASED_INSTANCE_ID.code);
    expect(h.heartbeat({ memberId: 'zz', memberEpoch: 1, instanceId: 'a' }).errorCode).toBe(
      Errors.FENCED_INSTANCE_ID.code,
    );
  });

  it('a static member that stays away past its session timeout is fenced and its partitions move', () => {
    const h = harness({ t: 2 });
    h.heartbeat({ instanceId: 'a' });
    h.heartbeat({ instanceId: 'b' });
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: topicPartitions(t(0)) });
    h.heartbeat({ memberId: 'm2', memberEpoch: 2 });
    h.heartbeat({ memberId: 'm2', memberEpoch: -2, instanceId: 'b' });
    for (let i = 0; i < 10; i++) {
      h.sim.runFor(5000);
      h.heartbeat({
        memberId: 'm1',
        memberEpoch: h.group.members.get('m1')!.memberEpoch,
        topicPartitions: topicPartitions(owned1(h)),
      });
    }
    expect(h.group.members.has('m2')).toBe(false);
    expect(h.group.members.get('m1')!.assignedPartitions).toEqual({ 'id-t': [0, 1] });
  });
});

describe('metadata image changes', () => {
  it('partitions added to a subscribed topic bump the group epoch at the next heartbeat', () => {
    const h = harness({ t: 2, other: 1 });
    h.heartbeat({});
    h.setTopic('other', 3); // not subscribed: nothing
    expect(h.heartbeat({ memberId: 'm1', memberEpoch: 1 }).assignment).toBeNull();
    expect(h.group.groupEpoch).toBe(1);
    h.setTopic('t', 4);
    const r = h.heartbeat({ memberId: 'm1', memberEpoch: 1 });
    expect(h.group.groupEpoch).toBe(2);
    expect(r.memberEpoch).toBe(2);
    expect(owned(r)).toEqual(t(0, 1, 2, 3));
    expect(h.events.find((e) => e.kind === 'group.consumer.epoch-bumped' && e.groupEpoch === 2)?.reason).toBe(
      'metadata',
    );
  });

  it('a deleted topic is revoked; a recreated one comes back under its new id', () => {
    const h = harness({ t: 2 });
    h.heartbeat({});
    h.setTopic('t', 0);
    const r = h.heartbeat({ memberId: 'm1', memberEpoch: 1 });
    expect(r.memberEpoch).toBe(1);
    expect(owned(r)).toEqual([]);
    expect(h.group.members.get('m1')!.state).toBe('UNREVOKED_PARTITIONS');
    const r2 = h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: [] });
    expect(r2.memberEpoch).toBe(2);
    h.setTopic('t', 1);
    const r3 = h.heartbeat({ memberId: 'm1', memberEpoch: 2 });
    expect(owned(r3)).toEqual(['id-t-2:0']);
  });
});

describe('request checks and configs', () => {
  it('rejects malformed heartbeats with INVALID_REQUEST and unknown assignors with UNSUPPORTED_ASSIGNOR', () => {
    const h = harness({ t: 1 });
    const code = (p: Parameters<typeof h.heartbeat>[0]) => {
      try {
        return h.heartbeat(p).errorCode;
      } catch (e) {
        return (e as { errorName: keyof typeof Errors }).errorName;
      }
    };
    expect(code({ subscribedTopicNames: [] })).toBe('INVALID_REQUEST');
    expect(code({ rebalanceTimeoutMs: -1 })).toBe('INVALID_REQUEST');
    expect(code({ memberEpoch: 5 })).toBe('INVALID_REQUEST'); // no member id
    expect(code({ memberEpoch: -3, memberId: 'x' })).toBe('INVALID_REQUEST');
    expect(code({ serverAssignor: 'sticky' })).toBe('UNSUPPORTED_ASSIGNOR');
    expect(code({ subscribedTopicRegex: 't.*' })).toBe('INVALID_REQUEST');
  });

  it("Kafka's defaults and checks for group.consumer.*", () => {
    expect(consumerGroupDefaults['group.consumer.session.timeout.ms']).toBe(45_000);
    expect(consumerGroupDefaults['group.consumer.heartbeat.interval.ms']).toBe(5000);
    expect(consumerGroupDefaults['group.consumer.assignors']).toEqual(['uniform', 'range']);
    expect(() => consumerGroupConfig({ 'group.consumer.heartbeat.interval.ms': '2000' })).toThrow(
      'group.consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms',
    );
    expect(() => consumerGroupConfig({ 'group.consumer.session.timeout.ms': '90000' })).toThrow(
      'must be less than or equal to group.consumer.max.session.timeout.ms',
    );
    const c = consumerGroupConfig({
      'group.consumer.assignors': 'org.apache.kafka.coordinator.group.assignor.RangeAssignor',
      'group.consumer.min.heartbeat.interval.ms': '1000',
      'group.consumer.heartbeat.interval.ms': '1000',
    });
    expect(c['group.consumer.assignors']).toEqual(['range']);
    const h = harness(
      { t: 1 },
      { 'group.consumer.min.heartbeat.interval.ms': '1000', 'group.consumer.heartbeat.interval.ms': '1000' },
    );
    expect(h.heartbeat({}).heartbeatIntervalMs).toBe(1000);
  });

  it('GROUP_MAX_SIZE_REACHED past group.consumer.max.size', () => {
    const h = harness({ t: 1 }, { 'group.consumer.max.size': '1' });
    h.heartbeat({});
    expect(h.heartbeat({}).errorCode).toBe(Errors.GROUP_MAX_SIZE_REACHED.code);
  });
});

function owned1(h: ReturnType<typeof harness>): string[] {
  const a = h.group.members.get('m1')!.assignedPartitions;
  return Object.entries(a).flatMap(([topic, ps]) => ps.map((p) => `${topic}:${p}`));
}
