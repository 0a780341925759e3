// The stand-in group: the classic protocol's rules the sink relies on.
import { describe, expect, it } from 'vitest';
import type { RebalanceEvent } from '../../../models/lake/index.ts';
import { Cluster } from '../../../src/cluster/index.ts';
import { LocalGroup, LocalGroupConsumer } from './local-group.ts';

function setup(members: number, partitions = 4) {
  const cluster = new Cluster({ seed: 5, brokers: 1, out: () => {} });
  cluster.start();
  cluster.admin.createTopic({ name: 't', partitions, replicationFactor: 1 });
  const group = new LocalGroup(cluster.sim, { groupId: 'g' });
  const events: { member: number; e: RebalanceEvent; t: number }[] = [];
  const consumers = Array.from({ length: members }, (_, i) => {
    const c = new LocalGroupConsumer(group, {
      clientId: `c${i}`,
      topic: 't',
      bootstrap: cluster.bootstrap(),
      metadataRefreshMs: 1000,
    });
    c.onRebalance((e) => events.push({ member: i, e, t: cluster.now }), { manualRevoke: false });
    return c;
  });
  return { cluster, group, consumers, events };
}

describe('LocalGroup', () => {
  it('waits group.initial.rebalance.delay.ms, then assigns ranges in member order', () => {
    const { cluster, group, consumers, events } = setup(2);
    const t0 = cluster.now;
    for (const c of consumers) c.start();
    cluster.runUntil(() => group.state === 'Stable', { timeout: '10s' });
    expect(cluster.now - t0).toBeGreaterThanOrEqual(3000);
    cluster.runFor('100ms');
    expect(consumers.map((c) => c.assignment().map((p) => p.partition))).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(events.filter((x) => x.e.type === 'assigned')).toHaveLength(2);
    expect(group.describe()).toMatchObject({ state: 'Stable', generation: 1, protocol: 'range' });
  });

  it('checks commits the way the classic coordinator does', () => {
    const { cluster, group, consumers } = setup(1);
    consumers[0]!.start();
    cluster.runUntil(() => group.state === 'Stable', { timeout: '10s' });
    const id = consumers[0]!.memberId;
    const o = [{ topic: 't', partition: 0, offset: 5 }];
    expect(group.commit(id, group.generation, o)).toBeUndefined();
    expect(group.committedOffset('t', 0)).toBe(5);
    expect(group.commit(id, group.generation - 1, o)).toBe('ILLEGAL_GENERATION');
    expect(group.commit('stranger', group.generation, o)).toBe('UNKNOWN_MEMBER_ID');
    expect(group.commit('', -1, o)).toBe('UNKNOWN_MEMBER_ID');
    // While PreparingRebalance a member of the current generation may still commit.
    group.requestRebalance('test');
    expect(group.state).toBe('PreparingRebalance');
    expect(group.commit(id, group.generation, [{ topic: 't', partition: 0, offset: 6 }])).toBeUndefined();
    cluster.runUntil(() => group.state === 'CompletingRebalance', { timeout: '1s' });
    expect(group.commit(id, group.generation, o)).toBe('REBALANCE_IN_PROGRESS');
  });

  it('a member that dies keeps its partitions until session.timeout.ms, then the rest take them', () => {
    const { cluster, group, consumers } = setup(2);
    for (const c of consumers) c.start();
    cluster.runUntil(() => group.state === 'Stable', { timeout: '10s' });
    cluster.runFor('100ms');
    const died = cluster.now;
    consumers[1]!.crash();
    cluster.runUntil(() => consumers[0]!.assignment().length === 4, { timeout: '60s' });
    expect(cluster.now - died).toBeGreaterThanOrEqual(45_000);
  });

  it('every member rejoins when the topic gains partitions (librdkafka metadata check)', () => {
    const { cluster, group, consumers } = setup(2, 2);
    for (const c of consumers) c.start();
    cluster.runUntil(() => group.state === 'Stable', { timeout: '10s' });
    cluster.runFor('100ms');
    expect(consumers.map((c) => c.assignment().length)).toEqual([1, 1]);
    cluster.admin.createPartitions('t', 6);
    cluster.runUntil(() => consumers.every((c) => c.assignment().length === 3), { timeout: '5s' });
    expect(group.generation).toBe(2);
  });
});
