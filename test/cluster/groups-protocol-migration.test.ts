// Online migration of a live group between the protocols (KIP-848, group.consumer.migration.policy) on a simulated
// cluster: a rolling upgrade of a classic group to group.protocol=consumer, member by member, while a producer
// writes; the way back when the last consumer-protocol member leaves; and the policy refusing it.
// Checked on every trace event: no partition is owned by two live members. At the end every record written was
// consumed, and no member ever started a partition past where the previous owner stopped (no lost progress).
import { describe, expect, it } from 'vitest';
import type { GroupConsumer, GroupConsumerConfigInput } from '../../models/clients/index.ts';
import type { TraceEvent } from '../../models/sim/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

const PARTITIONS = 6;

interface Run {
  c: Cluster;
  live: GroupConsumer[];
  events: TraceEvent[];
  /** Deliveries that started past what was consumed of the partition before. */
  gaps: string[];
  doubleOwned: string[];
  consumedEnd: Map<number, number>;
  join(name: string, protocol: 'classic' | 'consumer', strategy?: string): GroupConsumer;
  leave(m: GroupConsumer): void;
  produceFor(ms: number): void;
  /** Every partition owned once, each live member with its fair share. */
  settled(): () => boolean;
}

function start(serverProperties: Record<string, string> = {}, seed = 3): Run {
  const c = createCluster({ seed, brokers: 3, storage: 'shared', serverProperties });
  c.admin.createTopic({ name: 'events', partitions: PARTITIONS });
  const events: TraceEvent[] = [];
  const live: GroupConsumer[] = [];
  const gaps: string[] = [];
  const doubleOwned: string[] = [];
  const consumedEnd = new Map<number, number>();
  c.sim.trace.subscribe((e) => {
    if (e.kind.startsWith('group.')) events.push(e);
    const owners = new Map<number, string>();
    for (const m of live)
      for (const tp of m.ownedPartitions()) {
        const other = owners.get(tp.partition);
        if (other !== undefined && doubleOwned.length < 5)
          doubleOwned.push(`t=${c.now} p${tp.partition}: ${other} and ${m.id}`);
        owners.set(tp.partition, m.id);
      }
  });
  const p = c.producer('p', { flavour: 'java', config: { 'linger.ms': 0 } });
  const run: Run = {
    c,
    live,
    events,
    gaps,
    doubleOwned,
    consumedEnd,
    join(name, protocol, strategy) {
      const config: GroupConsumerConfigInput = {
        'group.protocol': protocol,
        'auto.offset.reset': 'earliest',
        ...(strategy ? { 'partition.assignment.strategy': strategy } : {}),
      };
      const m = c.groupConsumer(name, { flavour: 'java', groupId: 'app', topics: ['events'], config });
      m.onRecords((chunk) => {
        const end = consumedEnd.get(chunk.partition) ?? 0;
        // Starting past what was consumed so far would skip records: progress lost.
        if (chunk.fromOffset > end)
          gaps.push(`${name} p${chunk.partition} from ${chunk.fromOffset} > ${end}`);
        consumedEnd.set(chunk.partition, Math.max(end, chunk.fromOffset + chunk.records));
      });
      live.push(m);
      return m;
    },
    leave(m) {
      live.splice(live.indexOf(m), 1);
      m.close();
    },
    produceFor(ms) {
      for (let t = 0; t < ms; t += 250) {
        for (let partition = 0; partition < PARTITIONS; partition++)
          p.send({ topic: 'events', partition, value: 'x' });
        c.runFor('250ms');
      }
    },
    settled: () => () => {
      const owned = live.flatMap((m) => m.ownedPartitions().map((tp) => tp.partition));
      const fair = Math.floor(PARTITIONS / live.length);
      return (
        owned.length === PARTITIONS &&
        new Set(owned).size === PARTITIONS &&
        live.every((m) => m.ownedPartitions().length >= fair)
      );
    },
  };
  return run;
}

const logEnd = (c: Cluster, partition: number) =>
  c.partitionLogs().find((l) => l.topic === 'events' && l.partition === partition)!.highWatermark;

describe('group.consumer.migration.policy = bidirectional (Kafka 4.0 default)', () => {
  // Java's default strategies pick range (eager: a rejoining member gives up everything first); cooperative-sticky
  // members keep what they own and say so in their subscription.
  it.each([
    ['range, cooperative-sticky (default)', undefined],
    ['cooperative-sticky', 'org.apache.kafka.clients.consumer.CooperativeStickyAssignor'],
  ])(
    'a rolling upgrade (classic members: %s) converts the live group at the first consumer-protocol member; nothing owned twice, nothing lost',
    (_, strategy) => {
      const r = start();
      const { c } = r;
      const classic = [0, 1, 2].map((i) => r.join(`classic-${i}`, 'classic', strategy));
      c.runUntil(r.settled(), { timeout: '60s', description: 'the classic group formed' });
      r.produceFor(5000);
      const coordinator = () => c.brokers.get(c.groupCoordinator('app'))!.groupCoordinator;
      expect(coordinator().group('app')?.state).toBe('Stable');

      for (let i = 0; i < 3; i++) {
        r.leave(classic[i]!);
        r.produceFor(1000);
        r.join(`consumer-${i}`, 'consumer');
        let t = 0;
        while (!r.settled()() && t < 90_000) {
          r.produceFor(1000);
          t += 1000;
        }
        expect(r.settled()(), `settled after upgrading member ${i}`).toBe(true);
        const group = coordinator().consumerGroup('app');
        expect(group, 'a consumer group from the first upgraded member on').toBeDefined();
        // Classic members still inside: 2, then 1, then none.
        expect([...group!.members.values()].filter((m) => m.classicMemberMetadata !== null)).toHaveLength(
          2 - i,
        );
        r.produceFor(3000);
      }
      const conversions = r.events.filter((e) => e.kind === 'group.converted');
      expect(conversions.map((e) => [e.from, e.to, e.members])).toEqual([['classic', 'consumer', 2]]);
      // Classic members were told to rejoin, and did so through JoinGroup into the consumer group.
      expect(r.events.some((e) => e.kind === 'group.member-added' && e.protocol === 'consumer')).toBe(true);

      c.runFor('20s');
      expect(r.doubleOwned).toEqual([]);
      expect(r.gaps).toEqual([]);
      for (let p = 0; p < PARTITIONS; p++) expect(r.consumedEnd.get(p), `partition ${p}`).toBe(logEnd(c, p));
    },
  );

  it('a classic member joins a consumer group; when the last consumer-protocol member leaves the group turns classic again', () => {
    const r = start();
    const { c } = r;
    const consumers = [0, 1].map((i) => r.join(`consumer-${i}`, 'consumer'));
    c.runUntil(r.settled(), { timeout: '60s', description: 'the consumer group formed' });
    const old = r.join('classic-0', 'classic');
    let t = 0;
    while (!(r.settled()() && old.ownedPartitions().length === 2) && t < 60_000) {
      r.produceFor(1000);
      t += 1000;
    }
    expect(old.ownedPartitions()).toHaveLength(2);
    expect(old.generationId).toBeGreaterThan(0);
    r.leave(consumers[0]!);
    r.produceFor(8000);
    r.leave(consumers[1]!);
    t = 0;
    while (old.ownedPartitions().length < PARTITIONS && t < 60_000) {
      r.produceFor(1000);
      t += 1000;
    }
    expect(old.ownedPartitions()).toHaveLength(PARTITIONS);
    const coordinator = c.brokers.get(c.groupCoordinator('app'))!.groupCoordinator;
    expect(coordinator.consumerGroup('app')).toBeUndefined();
    expect(coordinator.group('app')?.state).toBe('Stable');
    expect(r.events.filter((e) => e.kind === 'group.converted').map((e) => [e.from, e.to])).toEqual([
      ['consumer', 'classic'],
    ]);
    c.runFor('20s');
    expect(r.doubleOwned).toEqual([]);
    expect(r.gaps).toEqual([]);
    for (let p = 0; p < PARTITIONS; p++) expect(r.consumedEnd.get(p), `partition ${p}`).toBe(logEnd(c, p));
  });
});

describe('group.consumer.migration.policy limits', () => {
  it('disabled: a consumer-protocol member cannot join a live classic group (GROUP_ID_NOT_FOUND); the group is untouched', () => {
    const r = start({ 'group.consumer.migration.policy': 'disabled' });
    const { c } = r;
    for (const i of [0, 1]) r.join(`classic-${i}`, 'classic');
    c.runUntil(r.settled(), { timeout: '60s', description: 'the classic group formed' });
    const newcomer = r.join('consumer-0', 'consumer');
    r.produceFor(10_000);
    expect(newcomer.ownedPartitions()).toEqual([]);
    const refused = r.events.filter((e) => e.kind === 'group.conversion-refused');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.reason).toBe('the online upgrade is disabled');
    const coordinator = c.brokers.get(c.groupCoordinator('app'))!.groupCoordinator;
    expect(coordinator.group('app')?.members.size).toBe(2);
    expect(coordinator.consumerGroup('app')).toBeUndefined();
  });

  it('upgrade only: the group converts, but does not go back when the consumer-protocol member leaves', () => {
    const r = start({ 'group.consumer.migration.policy': 'upgrade' });
    const { c } = r;
    for (const i of [0, 1]) r.join(`classic-${i}`, 'classic');
    c.runUntil(r.settled(), { timeout: '60s', description: 'the classic group formed' });
    const upgraded = r.join('consumer-0', 'consumer');
    let t = 0;
    while (upgraded.ownedPartitions().length === 0 && t < 60_000) {
      r.produceFor(1000);
      t += 1000;
    }
    r.leave(upgraded);
    r.produceFor(10_000);
    const coordinator = c.brokers.get(c.groupCoordinator('app'))!.groupCoordinator;
    expect(coordinator.consumerGroup('app')?.members.size).toBe(2);
    expect(r.events.filter((e) => e.kind === 'group.converted').map((e) => e.to)).toEqual(['consumer']);
    expect(r.settled()()).toBe(true);
    expect(r.doubleOwned).toEqual([]);
  });
});
