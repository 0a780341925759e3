// Consumer-protocol (KIP-848) groups through the HTTP API: GET /sim/snapshot's groups carry the protocol type, the
// group and assignment epochs, and each member's epoch, state, target assignment beside its current one, pending
// revocation and pending assignment; classic groups keep their generation. A member joining a stable group is
// followed heartbeat by heartbeat: the newcomer waits for a partition another member still owns (pending
// assignment), that member is told to revoke it (pending revocation), then both settle at the group epoch.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Fixture, fixture } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture({ seed: 3, brokers: 3 });
});
afterEach(async () => {
  await f.close();
});

type TP = { topic: string; partition: number };
interface Member {
  consumer_id: string;
  client_id: string;
  assignment: TP[];
  member_epoch?: number;
  member_state?: string;
  target_assignment?: TP[];
  pending_revocation?: TP[];
  pending_assignment?: TP[];
}
interface Group {
  group_id: string;
  type: string;
  state: string;
  generation: number | null;
  group_epoch: number | null;
  assignment_epoch: number | null;
  members: Member[];
}

const names = (tps: TP[] | undefined) => (tps ?? []).map((tp) => `${tp.topic}-${tp.partition}`).sort();

async function group(id: string): Promise<Group> {
  const s = await f.call('GET', '/sim/snapshot');
  expect(s.status).toBe(200);
  const g = (s.body.groups as Group[]).find((x) => x.group_id === id);
  if (!g) throw new Error(`no group ${id} in the snapshot: ${JSON.stringify(s.body.groups)}`);
  return g;
}

async function addMember(name: string, groupId: string, protocol?: 'classic' | 'consumer') {
  const r = await f.call('POST', '/sim/workloads', {
    kind: 'consumer',
    name,
    topic: 't',
    group: groupId,
    ...(protocol ? { group_protocol: protocol } : {}),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

function expectSettled(g: Group, members: number) {
  expect(g.state).toBe('Stable');
  expect(g.members).toHaveLength(members);
  expect(g.assignment_epoch).toBe(g.group_epoch);
  for (const m of g.members) {
    expect(m.member_epoch, m.client_id).toBe(g.group_epoch);
    expect(m.member_state).toBe('STABLE');
    expect(names(m.target_assignment)).toEqual(names(m.assignment));
    expect(m.pending_revocation).toEqual([]);
    expect(m.pending_assignment).toEqual([]);
  }
  // Every partition owned, each by one member.
  expect(g.members.flatMap((m) => names(m.assignment)).sort()).toEqual(['t-0', 't-1', 't-2', 't-3']);
}

describe('consumer-protocol groups in the snapshot', () => {
  it('shows epochs and each member reconciling from its current assignment to its target', async () => {
    expect(
      (await f.call('POST', `/v3/clusters/${f.cid}/topics`, { topic_name: 't', partitions_count: 4 })).status,
    ).toBe(201);
    await addMember('a', 'k', 'consumer');
    await addMember('b', 'k', 'consumer');
    await addMember('c', 'old'); // classic (the default)
    expect((await f.call('POST', '/sim/advance', { duration: '12s' })).status).toBe(200);

    const before = await group('k');
    expect(before.type).toBe('consumer');
    expect(before.generation).toBeNull();
    expect(before.group_epoch).toBeGreaterThan(0);
    expectSettled(before, 2);
    const classic = await group('old');
    expect(classic).toMatchObject({ type: 'classic', group_epoch: null, assignment_epoch: null });
    expect(classic.generation).toBeGreaterThan(0);
    expect(classic.members[0]).not.toHaveProperty('member_epoch');
    // kafka-rest's group type.
    const v3 = await f.call('GET', `${f.base}/consumer-groups/k`);
    expect(v3.body.type).toBe('CONSUMER');
    expect((await f.call('GET', `${f.base}/consumer-groups/old`)).body.type).toBe('CLASSIC');

    // A third member joins: the coordinator computes a new target at a new group epoch.
    await addMember('d', 'k', 'consumer');
    const computed = await f.call('POST', '/sim/advance', {
      until: { trace_kind: 'group.consumer.target-assignment' },
      timeout: '10s',
    });
    expect(computed.status).toBe(200);
    const assigning = await group('k');
    expect(assigning.group_epoch).toBe(before.group_epoch! + 1);
    expect(assigning.assignment_epoch).toBe(assigning.group_epoch);
    const known = new Set(before.members.map((m) => m.consumer_id));
    const d = assigning.members.find((m) => !known.has(m.consumer_id))!;
    // Its target partition is still owned by another member: pending assignment, nothing owned yet.
    expect(d.member_state).toBe('UNRELEASED_PARTITIONS');
    expect(d.assignment).toEqual([]);
    // 4 partitions over 3 members (uniform): 1 or 2 for the new one, each owned by another member now.
    expect(d.target_assignment?.length).toBeGreaterThanOrEqual(1);
    expect(d.target_assignment?.length).toBeLessThanOrEqual(2);
    expect(d.pending_assignment).toEqual(d.target_assignment);
    const taken = names(d.target_assignment)[0]!;
    const victim = assigning.members.find((m) => names(m.assignment).includes(taken))!;
    // The owner has not heartbeated yet: its target no longer has the partition, it still owns it.
    expect(names(victim.target_assignment)).not.toContain(taken);
    expect(victim.member_epoch).toBe(before.group_epoch);
    expect(assigning.state).toBe('Reconciling');

    // Heartbeat by heartbeat until the owner is told to give it up.
    let revoking: Member | undefined;
    for (let i = 0; i < 20 && !revoking; i++) {
      const r = await f.call('POST', '/sim/advance', {
        until: { trace_kind: 'group.consumer.member-epoch' },
        timeout: '10s',
      });
      expect(r.status).toBe(200);
      revoking = (await group('k')).members.find((m) => names(m.pending_revocation ?? []).includes(taken));
    }
    expect(revoking, 'no member was ever shown revoking a partition').toBeDefined();
    expect(revoking!.consumer_id).toBe(victim.consumer_id);
    expect(revoking!.member_state).toBe('UNREVOKED_PARTITIONS');
    expect(names(revoking!.pending_revocation)).toContain(taken);
    expect(names(revoking!.assignment)).not.toContain(taken);

    expect((await f.call('POST', '/sim/advance', { duration: '12s' })).status).toBe(200);
    const after = await group('k');
    expectSettled(after, 3);
    expect(names(after.members.find((m) => m.consumer_id === d.consumer_id)!.assignment).sort()).toEqual(
      names(d.target_assignment).sort(),
    );
  });

  it('refuses a group protocol it does not know, or one without a group', async () => {
    await f.call('POST', `${f.base}/topics`, { topic_name: 't', partitions_count: 1 });
    const before = f.host.fingerprint();
    const bad = await f.call('POST', '/sim/workloads', {
      kind: 'consumer',
      topic: 't',
      group: 'k',
      group_protocol: 'cooperative',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/group_protocol/);
    const alone = await f.call('POST', '/sim/workloads', {
      kind: 'consumer',
      topic: 't',
      group_protocol: 'consumer',
    });
    expect(alone.status).toBe(400);
    expect(alone.body.message).toBe('group_protocol is for a group member: name the group to join ("group")');
    expect(f.host.fingerprint()).toEqual(before);
  });
});
