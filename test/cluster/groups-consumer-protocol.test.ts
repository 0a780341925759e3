// The consumer group protocol (KIP-848, group.protocol=consumer) end to end on a simulated cluster, beside the
// classic one: partitions added to a topic are assigned by the coordinator at the members' next heartbeats and
// consumed long before any client's periodic metadata refresh; a crashed member's partitions move after
// group.consumer.session.timeout.ms; both client flavours; the same seed gives the same run.
import { describe, expect, it } from 'vitest';
import type { GroupConsumer, GroupConsumerConfigInput } from '../../models/clients/index.ts';
import type { TraceEvent } from '../../models/sim/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';
import { groupOffsetsNow } from '../../src/cluster/views.ts';

function members(
  c: Cluster,
  n: number,
  flavour: 'java' | 'librdkafka',
  config: GroupConsumerConfigInput,
): GroupConsumer[] {
  return Array.from({ length: n }, (_, i) =>
    c.groupConsumer(`${flavour}-${i}`, { flavour, groupId: 'app', topics: ['events'], config }),
  );
}

/** Every partition owned by exactly one member, `each` per member. */
const fullyAssigned = (ms: GroupConsumer[], partitions: number, each: number) => () => {
  const owned = ms.flatMap((m) => m.ownedPartitions().map((tp) => tp.partition));
  return (
    ms.every((m) => m.ownedPartitions().length === each) &&
    new Set(owned).size === partitions &&
    owned.length === partitions
  );
};

function grow(protocol: 'classic' | 'consumer', flavour: 'java' | 'librdkafka') {
  const c = createCluster({ seed: 5, brokers: 3, storage: 'shared' });
  c.admin.createTopic({ name: 'events', partitions: 2 });
  const events: TraceEvent[] = [];
  c.sim.trace.subscribe((e) => {
    if (e.kind.startsWith('member.') || e.kind.startsWith('group.')) events.push(e);
  });
  const ms = members(c, 4, flavour, { 'group.protocol': protocol, 'auto.offset.reset': 'earliest' });
  c.runUntil(
    () =>
      ms.flatMap((m) => m.ownedPartitions()).length === 2 &&
      ms.every((m) => m.generationId > 0 || m.ownedPartitions().length === 0),
    { timeout: '60s', description: 'the group formed' },
  );
  c.runFor('10s');
  const alterAt = c.now;
  c.admin.createPartitions('events', 8);
  c.runFor('1s');
  // One record to each new partition, once the producer knows them (it refreshes on its own).
  const p = c.producer('p', { flavour: 'java', config: { 'metadata.max.age.ms': 1000 } });
  c.runFor('2s');
  for (let partition = 2; partition < 8; partition++) p.send({ topic: 'events', partition, value: 'x' });
  const consumedNew = new Set<number>();
  for (const m of ms)
    m.onRecords((chunk) => {
      if (chunk.partition >= 2 && chunk.records > 0) consumedNew.add(chunk.partition);
    });
  const assignedAt = c.runUntil(fullyAssigned(ms, 8, 2), { timeout: '900s', description: 'all 8 assigned' });
  const consumedAt = c.runUntil(() => consumedNew.size === 6, {
    timeout: '900s',
    description: 'new partitions consumed',
  });
  return { c, ms, events, alterAt, assigned: assignedAt - alterAt, consumed: consumedAt - alterAt };
}

describe('partitions added: 4 members, 2 partitions -> 8', () => {
  it('Java, group.protocol=consumer: assigned and consumed within a heartbeat or two, no periodic metadata refresh', () => {
    const r = grow('consumer', 'java');
    // group.consumer.heartbeat.interval.ms is 5 s: the coordinator bumps the epoch at the first heartbeat after
    // the image change, then revocations and acknowledgements take a few more heartbeats at most.
    expect(r.assigned).toBeLessThan(20_000);
    expect(r.consumed).toBeLessThan(25_000);
    // metadata.max.age.ms (300 s) has not passed: the members learned nothing from a periodic refresh.
    expect(r.consumed).toBeLessThan(300_000);
    const bump = r.events.find((e) => e.kind === 'group.consumer.epoch-bumped' && e.t > r.alterAt);
    expect(bump?.reason).toBe('metadata');
    // No JoinGroup/SyncGroup at all.
    expect(r.events.some((e) => e.kind === 'member.join')).toBe(false);
  });

  it('the classic protocol needs the leader metadata.max.age.ms refresh (300 s) for the same change', () => {
    const r = grow('classic', 'java');
    expect(r.assigned).toBeGreaterThan(250_000);
    expect(r.events.some((e) => e.kind === 'member.rejoin-needed' && e.t > r.alterAt)).toBe(true);
  });

  it('librdkafka, group.protocol=consumer: the same, from the coordinator', () => {
    const r = grow('consumer', 'librdkafka');
    expect(r.assigned).toBeLessThan(20_000);
    expect(r.consumed).toBeLessThan(25_000);
  });
});

describe('failures and determinism', () => {
  function formed(flavour: 'java' | 'librdkafka', seed = 5) {
    const c = createCluster({ seed, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 4 });
    const ms = members(c, 2, flavour, { 'group.protocol': 'consumer' });
    c.runUntil(fullyAssigned(ms, 4, 2), { timeout: '60s', description: 'the group formed' });
    return { c, ms };
  }

  it('a crashed member is fenced after group.consumer.session.timeout.ms (45 s); the other takes its partitions', () => {
    const { c, ms } = formed('java');
    const crashedAt = c.now;
    ms[1]!.crash();
    const doneAt = c.runUntil(() => ms[0]!.ownedPartitions().length === 4, {
      timeout: '120s',
      description: 'taken over',
    });
    // Its last heartbeat was at most the 5 s interval before the crash; the survivor learns at its next one.
    expect(doneAt - crashedAt).toBeGreaterThan(45_000 - 5000);
    expect(doneAt - crashedAt).toBeLessThan(45_000 + 5000 + 100);
  });

  it('close() leaves at once (epoch -1): the partitions move at the next heartbeat, not after the session timeout', () => {
    const { c, ms } = formed('librdkafka');
    const closedAt = c.now;
    ms[1]!.close();
    const doneAt = c.runUntil(() => ms[0]!.ownedPartitions().length === 4, {
      timeout: '60s',
      description: 'taken over',
    });
    expect(doneAt - closedAt).toBeLessThan(6000);
  });

  it('kafka-consumer-groups --describe and the lag view see the members and their partitions', () => {
    const { c, ms } = formed('java');
    const state = c.describeGroup('app', { state: true }).stdout.split('\n')[2]!;
    expect(state).toMatch(/^app\s+\S+\s+\(\d\)\s+uniform\s+Stable\s+2$/);
    const rows = c.describeGroup('app').stdout.split('\n').slice(2, -1);
    expect(rows).toHaveLength(4);
    for (const m of ms) expect(rows.filter((r) => r.includes(m.memberId))).toHaveLength(2);
    expect(groupOffsetsNow(c, 'app').map((o) => o.partition)).toEqual([0, 1, 2, 3]);
  });

  it('the same seed gives the same run', () => {
    const run = () => {
      const { c } = formed('java', 9);
      c.runFor('20s');
      return c.sim.fingerprint.hash;
    };
    expect(run()).toBe(run());
  });

  it('group.protocol=consumer refuses the classic settings the coordinator now owns', () => {
    const c = createCluster({ seed: 1, brokers: 1 });
    expect(() =>
      c.groupConsumer('x', {
        groupId: 'g',
        topics: ['t'],
        config: { 'group.protocol': 'consumer', 'session.timeout.ms': 10_000 },
      }),
    ).toThrow('session.timeout.ms cannot be set when group.protocol=CONSUMER');
    expect(() =>
      c.groupConsumer('y', { groupId: 'g', topics: ['t'], config: { 'group.remote.assignor': 'range' } }),
    ).toThrow('group.remote.assignor cannot be set when group.protocol=CLASSIC');
  });
});

describe('the member side: reconciliation order and the application thread', () => {
  it('Java commits before it revokes, and the callbacks come revoked-then-assigned', () => {
    const c = createCluster({ seed: 3, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 4 });
    const p = c.producer('p', { flavour: 'java' });
    p.sendMany('events', 400, 100);
    const hooks: string[] = [];
    const first = c.groupConsumer('java-0', {
      groupId: 'app',
      topics: ['events'],
      // The periodic auto commit waits 10 min: only the commit before the revocation can have stored anything.
      config: {
        'group.protocol': 'consumer',
        'auto.offset.reset': 'earliest',
        'auto.commit.interval.ms': 600_000,
      },
      listener: {
        onPartitionsRevoked(parts, ctl) {
          hooks.push(`revoked ${parts.map((tp) => tp.partition).join(',')}`);
          // Auto commit ran first: what the application consumed of them is committed already.
          for (const tp of parts) {
            expect(ctl.consumer.consumedPosition(tp)).toBeGreaterThan(0);
            expect(ctl.consumer.committed.get(`${tp.topic}-${tp.partition}`)).toBe(
              ctl.consumer.consumedPosition(tp),
            );
          }
        },
        onPartitionsAssigned(parts) {
          hooks.push(`assigned ${parts.map((tp) => tp.partition).join(',')}`);
        },
      },
    });
    c.runUntil(() => first.ownedPartitions().length === 4 && first.recordsConsumed > 0, { timeout: '30s' });
    c.runFor('2s');
    const second = c.groupConsumer('java-1', {
      groupId: 'app',
      topics: ['events'],
      config: { 'group.protocol': 'consumer' },
    });
    c.runUntil(() => second.ownedPartitions().length === 2 && first.ownedPartitions().length === 2, {
      timeout: '30s',
    });
    expect(hooks[0]).toBe('assigned 0,1,2,3');
    expect(hooks[1]).toMatch(/^revoked \d,\d$/);
    expect(hooks[2]).toBe('assigned ');
    expect(hooks).toHaveLength(3);
  });

  /** A member that processes 20 s per poll, with or without a rebalance listener; returns ms until the newcomer has its partitions. */
  function handOver(withListener: boolean): number {
    const c = createCluster({ seed: 3, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 2 });
    const p = c.producer('p', { flavour: 'java' });
    p.sendMany('events', 200, 100);
    const slow = c.groupConsumer('slow', {
      groupId: 'app',
      topics: ['events'],
      config: { 'group.protocol': 'consumer', 'auto.offset.reset': 'earliest' },
      processing: { perPollMs: 20_000 },
      ...(withListener ? { listener: { onPartitionsRevoked() {} } } : {}),
    });
    c.runUntil(() => slow.ownedPartitions().length === 2 && slow.recordsConsumed > 0, { timeout: '30s' });
    const joinedAt = c.now;
    const other = c.groupConsumer('other', {
      groupId: 'app',
      topics: ['events'],
      config: { 'group.protocol': 'consumer' },
    });
    return c.runUntil(() => other.ownedPartitions().length === 1, { timeout: '60s' }) - joinedAt;
  }

  it('callbacks wait for poll only when the application has a listener', () => {
    const background = handOver(false);
    const inPoll = handOver(true);
    // Without a listener the revocation runs in the background: the next heartbeat hands the partition over.
    expect(background).toBeLessThan(6000);
    // With one, onPartitionsRevoked runs at the slow member's next poll, up to 20 s later.
    expect(inPoll).toBeGreaterThan(background + 5000);
  });
});

describe('describing a consumer-protocol group (kafka-consumer-groups.sh, Kafka 4.x)', () => {
  it("the admin's describe (DescribeGroups, then ConsumerGroupDescribe) prints the epochs and each member's target", () => {
    const c = createCluster({ seed: 3, brokers: 3 });
    c.admin.createTopic({ name: 'events', partitions: 4 });
    const ms = members(c, 2, 'java', { 'group.protocol': 'consumer' });
    c.runUntil(fullyAssigned(ms, 4, 2), { timeout: '60s', description: 'the group formed' });
    const state = c.describeGroup('app', { state: true, verbose: true }).stdout.split('\n');
    const m = /^app +\S+ +\(\d\) +uniform +Stable +(\d+) +(\d+) +2$/.exec(state[2] ?? '');
    expect(m, state.join('\n')).not.toBeNull();
    expect(m![1]).toBe(m![2]);
    const rows = c
      .describeGroup('app', { members: true, verbose: true })
      .stdout.split('\n')
      .filter((l) => l.startsWith('app '));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      // The coordinator's member id is Uuid.randomUuid().toString(): 22 characters of URL-safe base64, never
      // starting with '-' (a tool would read it as a flag).
      expect(row.split(/ +/)[1]).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      const [count, epoch, current, targetEpoch, target] = row.trim().split(/ +/).slice(-5);
      expect(count).toBe('2');
      expect(epoch).toBe(m![1]);
      expect(targetEpoch).toBe(m![1]);
      expect(current).toMatch(/^events:\d,\d$/);
      expect(target).toBe(current);
    }
    // A classic group's describe is the 3.9 tool's: no epochs.
    const classic = c.groupConsumer('classic-0', { flavour: 'java', groupId: 'old', topics: ['events'] });
    c.runUntil(() => classic.ownedPartitions().length === 4, {
      timeout: '60s',
      description: 'the classic group',
    });
    expect(c.describeGroup('old', { members: true, verbose: true }).stdout).toMatch(
      /#PARTITIONS {5}ASSIGNMENT\n/,
    );
  });
});
