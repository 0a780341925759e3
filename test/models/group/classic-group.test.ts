// The classic group's protocol and timers, driven directly on a simulation clock (no network): the join
// sequence with MEMBER_ID_REQUIRED, group.initial.rebalance.delay.ms and its extension rule, the rebalance
// timeout, session expiry, the pending-sync timeout, leaving, and the assignment relay.

import { describe, expect, it } from 'vitest';
import {
  ClassicGroup,
  type GroupHost,
  type GroupMetadataValue,
  groupCoordinatorConfig,
} from '../../../models/group/index.ts';
import { Errors, type JoinGroupResponse, type SyncGroupResponse } from '../../../models/protocol/index.ts';
import { createSimActor, Simulation } from '../../../models/sim/index.ts';

interface Harness {
  sim: Simulation;
  host: GroupHost;
  group: ClassicGroup;
  stored: GroupMetadataValue[];
  events: { t: number; kind: string; [k: string]: unknown }[];
}

function harness(serverProperties: Record<string, string> = {}): Harness {
  const sim = new Simulation({ seed: 1 });
  const events: Harness['events'] = [];
  const stored: GroupMetadataValue[] = [];
  let ids = 0;
  const host: GroupHost = {
    config: groupCoordinatorConfig(serverProperties),
    now: () => sim.now,
    schedule: (delay, fn, label) => sim.schedule(delay, fn, label),
    spawn: (logic, input) => {
      const actor = createSimActor(sim, logic, { input } as never);
      actor.start();
      return actor;
    },
    emit: (kind, fields) => events.push({ t: sim.now, kind, ...fields }),
    newMemberId: (clientId) => `${clientId}-${++ids}`,
    storeGroup: (group, done) => {
      stored.push(group.toRecord());
      sim.schedule(1, () => done(0), 'test.store');
    },
  };
  return { sim, host, group: new ClassicGroup('g', host), stored, events };
}

interface JoinOptions {
  rebalanceTimeoutMs?: number;
  sessionTimeoutMs?: number;
  protocols?: string[];
  topics?: string[];
}

/** Sends a JoinGroup; returns the box its response lands in. */
function join(g: ClassicGroup, memberId: string, o: JoinOptions = {}): { r?: JoinGroupResponse } {
  const box: { r?: JoinGroupResponse } = {};
  g.join(
    {
      type: 'JoinGroup',
      groupId: 'g',
      sessionTimeoutMs: o.sessionTimeoutMs ?? 10_000,
      rebalanceTimeoutMs: o.rebalanceTimeoutMs ?? 300_000,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: (o.protocols ?? ['range']).map((name) => ({
        name,
        metadata: { topics: o.topics ?? ['t'], ownedPartitions: [], generation: -1 },
      })),
      clientId: 'c',
      clientHost: '/10.0.0.1',
    },
    (r) => {
      box.r = r;
    },
  );
  return box;
}

/** First join: MEMBER_ID_REQUIRED with an id, then the real JoinGroup with it. */
function joinNew(g: ClassicGroup, o: JoinOptions = {}): { id: string; box: { r?: JoinGroupResponse } } {
  const first = join(g, '', o);
  expect(first.r!.errorCode).toBe(Errors.MEMBER_ID_REQUIRED.code);
  const id = first.r!.memberId;
  return { id, box: join(g, id, o) };
}

function sync(
  g: ClassicGroup,
  memberId: string,
  generationId: number,
  assignments: { memberId: string; assignment: { topic: string; partition: number }[] }[] = [],
): { r?: SyncGroupResponse } {
  const box: { r?: SyncGroupResponse } = {};
  g.sync(
    {
      type: 'SyncGroup',
      groupId: 'g',
      generationId,
      memberId,
      groupInstanceId: null,
      protocolName: 'range',
      assignments,
    },
    (r) => {
      box.r = r;
    },
  );
  return box;
}

const heartbeat = (g: ClassicGroup, memberId: string, generationId: number) =>
  g.heartbeat({ type: 'Heartbeat', groupId: 'g', generationId, memberId, groupInstanceId: null }).errorCode;

/** Two members joined at t=0, synced: a Stable group at generation 1 (A is the leader). */
function stableGroupOfTwo(h: Harness, o: { a?: JoinOptions; b?: JoinOptions } = {}) {
  const a = joinNew(h.group, o.a);
  const b = joinNew(h.group, o.b);
  h.sim.runUntil(() => a.box.r !== undefined && b.box.r !== undefined, { timeout: '10s' });
  const sa = sync(h.group, a.id, 1, [
    { memberId: a.id, assignment: [{ topic: 't', partition: 0 }] },
    { memberId: b.id, assignment: [{ topic: 't', partition: 1 }] },
  ]);
  const sb = sync(h.group, b.id, 1);
  h.sim.runUntil(() => sa.r !== undefined && sb.r !== undefined, { timeout: '1s' });
  expect(h.group.state).toBe('Stable');
  return { a: a.id, b: b.id, sa, sb };
}

describe('JoinGroup and the initial rebalance delay', () => {
  it('answers a new member MEMBER_ID_REQUIRED with `clientId-<id>`, then parks its join', () => {
    const h = harness();
    const first = join(h.group, '');
    expect(first.r).toEqual({
      errorCode: Errors.MEMBER_ID_REQUIRED.code,
      generationId: -1,
      protocolName: null,
      leader: '',
      memberId: 'c-1',
      members: [],
    });
    expect(h.group.state).toBe('Empty');
    const second = join(h.group, 'c-1');
    expect(second.r).toBeUndefined();
    expect(h.group.state).toBe('PreparingRebalance');
  });

  it('a lone first member waits exactly group.initial.rebalance.delay.ms (3000)', () => {
    const h = harness();
    const { box } = joinNew(h.group);
    const at = h.sim.runUntil(() => box.r !== undefined, { timeout: '10s' });
    expect(at).toBe(3000);
    expect(box.r).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', leader: 'c-1' });
    expect(box.r!.members.map((m) => m.memberId)).toEqual(['c-1']);
    expect(h.group.state).toBe('CompletingRebalance');
  });

  it('extends the delay by another 3000 for each member that arrives during it', () => {
    const h = harness();
    const a = joinNew(h.group);
    let b: ReturnType<typeof joinNew> | undefined;
    let c: ReturnType<typeof joinNew> | undefined;
    h.sim.schedule(2000, () => {
      b = joinNew(h.group);
    });
    h.sim.schedule(5000, () => {
      c = joinNew(h.group);
    });
    const at = h.sim.runUntil(() => a.box.r !== undefined, { timeout: '20s' });
    expect(at).toBe(9000);
    expect(b!.box.r!.generationId).toBe(1);
    expect(c!.box.r!.generationId).toBe(1);
    // Only the leader (the first member) gets the member list.
    expect(a.box.r!.members).toHaveLength(3);
    expect(b!.box.r!.members).toEqual([]);
  });

  it('never waits beyond the rebalance timeout: remaining = max(rebalanceTimeout - 3000, 0)', () => {
    const h = harness();
    const o = { rebalanceTimeoutMs: 5000 };
    const a = joinNew(h.group, o);
    h.sim.schedule(2000, () => joinNew(h.group, o));
    h.sim.schedule(4000, () => joinNew(h.group, o));
    // 3000, then min(3000, 2000) = 2000 more; then no time remains although a member arrived at 4000.
    expect(h.sim.runUntil(() => a.box.r !== undefined, { timeout: '20s' })).toBe(5000);
    expect(a.box.r!.members).toHaveLength(3);
  });

  it('follows group.initial.rebalance.delay.ms from server.properties', () => {
    const h = harness({ 'group.initial.rebalance.delay.ms': '0' });
    const { box } = joinNew(h.group);
    expect(h.sim.runUntil(() => box.r !== undefined, { timeout: '1s' })).toBe(0);
  });

  it('refuses a joiner that shares no protocol with the group', () => {
    const h = harness();
    joinNew(h.group, { protocols: ['range', 'roundrobin'] });
    const r = join(h.group, '', { protocols: ['cooperative-sticky'] });
    expect(r.r!.errorCode).toBe(Errors.INCONSISTENT_GROUP_PROTOCOL.code);
  });
});

describe('SyncGroup, heartbeats and the timeouts of a formed group', () => {
  it('relays the leader assignment to every member once stored, and becomes Stable', () => {
    const h = harness();
    const { a, b, sa, sb } = stableGroupOfTwo(h);
    expect(sa.r).toEqual({ errorCode: 0, protocolName: 'range', assignment: [{ topic: 't', partition: 0 }] });
    expect(sb.r).toEqual({ errorCode: 0, protocolName: 'range', assignment: [{ topic: 't', partition: 1 }] });
    expect(h.stored.at(-1)!.members.map((m) => [m.memberId, m.assignment.length])).toEqual([
      [a, 1],
      [b, 1],
    ]);
    expect(h.group.describe()).toMatchObject({ groupState: 'Stable', protocolData: 'range' });
  });

  it('a follower that rejoins unchanged gets the current generation; the leader rejoining rebalances', () => {
    const h = harness();
    const { a, b } = stableGroupOfTwo(h);
    const again = join(h.group, b);
    expect(again.r).toMatchObject({ errorCode: 0, generationId: 1, leader: a });
    expect(h.group.state).toBe('Stable');
    join(h.group, a);
    expect(h.group.state).toBe('PreparingRebalance');
    expect(heartbeat(h.group, b, 1)).toBe(Errors.REBALANCE_IN_PROGRESS.code);
    expect(heartbeat(h.group, b, 0)).toBe(Errors.ILLEGAL_GENERATION.code);
    expect(heartbeat(h.group, 'nobody', 1)).toBe(Errors.UNKNOWN_MEMBER_ID.code);
  });

  it('removes a member that does not rejoin within the rebalance timeout (largest max.poll.interval.ms)', () => {
    const h = harness();
    const { a, b } = stableGroupOfTwo(h, {
      a: { rebalanceTimeoutMs: 20_000 },
      b: { rebalanceTimeoutMs: 8000 },
    });
    const start = h.sim.now;
    // B keeps heartbeating but only A rejoins (with new metadata).
    const ra = join(h.group, a, { topics: ['t', 'u'], rebalanceTimeoutMs: 20_000 });
    for (let t = 1000; t < 30_000; t += 1000) h.sim.schedule(t, () => heartbeat(h.group, b, 1));
    const at = h.sim.runUntil(() => ra.r !== undefined, { timeout: '60s' });
    expect(at - start).toBe(20_000);
    expect(ra.r).toMatchObject({ errorCode: 0, generationId: 2, leader: a });
    expect(ra.r!.members.map((m) => m.memberId)).toEqual([a]);
    expect(h.events.some((e) => e.kind === 'group.member-removed' && e.memberId === b)).toBe(true);
  });

  it('expires a member whose heartbeats stop for session.timeout.ms and rebalances', () => {
    const h = harness();
    const { a, b } = stableGroupOfTwo(h, {
      a: { sessionTimeoutMs: 10_000 },
      b: { sessionTimeoutMs: 10_000 },
    });
    const lastB = h.sim.now;
    for (let t = 1000; t < 15_000; t += 1000) h.sim.schedule(t, () => heartbeat(h.group, a, 1));
    const at = h.sim.runUntil(() => h.events.some((e) => e.kind === 'group.member-expired'), {
      timeout: '30s',
    });
    expect(at - lastB).toBe(10_000);
    expect(h.events.find((e) => e.kind === 'group.member-expired')!.memberId).toBe(b);
    expect(h.group.state).toBe('PreparingRebalance');
    expect([...h.group.members.keys()]).toEqual([a]);
  });

  it('removes members that never sync after the join (pending-sync timeout) and rebalances again', () => {
    const h = harness();
    const o = { rebalanceTimeoutMs: 7000 };
    const a = joinNew(h.group, o);
    const b = joinNew(h.group, o);
    const joinedAt = h.sim.runUntil(() => a.box.r !== undefined, { timeout: '10s' });
    // The leader syncs; B never does.
    sync(h.group, a.id, 1, [{ memberId: a.id, assignment: [{ topic: 't', partition: 0 }] }]);
    h.sim.runUntil(() => h.group.state === 'Stable', { timeout: '1s' });
    const at = h.sim.runUntil(() => h.group.state === 'PreparingRebalance', { timeout: '20s' });
    expect(at - joinedAt).toBe(7000);
    expect(h.group.members.has(b.id)).toBe(false);
    expect(h.group.members.has(a.id)).toBe(true);
  });

  it('leaving: the group rebalances, and the last member leaving empties it at the next generation', () => {
    const h = harness();
    const { a, b } = stableGroupOfTwo(h);
    const leave = (id: string) =>
      h.group.leave({ type: 'LeaveGroup', groupId: 'g', members: [{ memberId: id, groupInstanceId: null }] });
    expect(leave(b).members[0]!.errorCode).toBe(0);
    expect(h.group.state).toBe('PreparingRebalance');
    expect(leave('stranger').members[0]!.errorCode).toBe(Errors.UNKNOWN_MEMBER_ID.code);
    expect(leave(a).members[0]!.errorCode).toBe(0);
    expect(h.group.state).toBe('Empty');
    expect(h.group.generationId).toBe(2);
    expect(h.stored.at(-1)).toMatchObject({ generation: 2, members: [] });
  });

  it('a group restored from its metadata record is Stable with the same members and generation', () => {
    const h = harness();
    stableGroupOfTwo(h);
    const record = h.stored.at(-1)!;
    const h2 = harness();
    const restored = new ClassicGroup('g', h2.host, record);
    expect(restored.state).toBe('Stable');
    expect(restored.generationId).toBe(1);
    expect([...restored.members.keys()]).toEqual(record.members.map((m) => m.memberId));
    expect(heartbeat(restored, record.members[1]!.memberId, 1)).toBe(0);
  });
});
