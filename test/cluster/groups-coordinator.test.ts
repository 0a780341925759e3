// The coordinator's place: __consumer_offsets created on the first FindCoordinator (50 partitions; RF 1 with
// shared storage, min(3, brokers) with Kafka storage), the group served only by its partition's leader
// (NOT_COORDINATOR elsewhere), and moving with that leadership.

import { describe, expect, it } from 'vitest';
import { partitionForGroup } from '../../models/group/index.ts';
import {
  brokerNodeId,
  Errors,
  type FindCoordinatorResponse,
  type HeartbeatResponse,
  OFFSETS_TOPIC,
} from '../../models/protocol/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

function ask<R>(c: Cluster, to: string, req: object): R {
  let res: R | undefined;
  c.admin.client.request<R>(to, req, (o) => {
    if (o.ok) res = o.response;
  });
  c.runUntil(() => res !== undefined, { timeout: '5s' });
  return res!;
}

describe('group coordinator placement', () => {
  it.each([
    ['kafka', 2, 2],
    ['kafka', 4, 3],
    ['shared', 3, 1],
  ] as const)(
    '%s storage, %d brokers: __consumer_offsets gets 50 partitions of RF %d on first use',
    (storage, brokers, rf) => {
      const c = createCluster({ seed: 2, brokers, storage });
      expect(c.image.topics[OFFSETS_TOPIC]).toBeUndefined();
      const first = ask<FindCoordinatorResponse>(c, brokerNodeId(0), { type: 'FindCoordinator', key: 'app' });
      expect(first.errorCode).toBe(Errors.COORDINATOR_NOT_AVAILABLE.code);
      c.runFor('2s');
      const topic = c.image.topics[OFFSETS_TOPIC]!;
      expect(topic.partitions).toHaveLength(50);
      expect(topic.partitions.every((p) => p.replicas.length === rf)).toBe(true);
      expect(c.describeTopic(OFFSETS_TOPIC).split('\n')[0]).toContain('cleanup.policy=compact');
      const found = ask<FindCoordinatorResponse>(c, brokerNodeId(0), { type: 'FindCoordinator', key: 'app' });
      const leader = topic.partitions[partitionForGroup('app', 50)]!.leader;
      expect(found).toMatchObject({ errorCode: 0, nodeId: leader, host: 'localhost', port: 9092 + leader });
    },
  );

  it('only the leader of the group partition serves it; the others answer NOT_COORDINATOR', () => {
    const c = createCluster({ seed: 3, brokers: 3, storage: 'kafka' });
    c.admin.createTopic({ name: 'events', partitions: 3, replicationFactor: 3 });
    const m = c.groupConsumer('m', { groupId: 'app', topics: ['events'] });
    c.runUntil(() => m.memberState === 'Stable', { timeout: '30s' });
    const coordinator = c.groupCoordinator('app');
    expect(m.coordinatorId).toBe(coordinator);
    const hb = {
      type: 'Heartbeat',
      groupId: 'app',
      generationId: m.generationId,
      memberId: m.memberId,
      groupInstanceId: null,
    };
    expect(ask<HeartbeatResponse>(c, brokerNodeId(coordinator), hb).errorCode).toBe(0);
    const other = [0, 1, 2].find((b) => b !== coordinator)!;
    expect(ask<HeartbeatResponse>(c, brokerNodeId(other), hb).errorCode).toBe(Errors.NOT_COORDINATOR.code);
  });

  it('a leadership move (reassignment) unloads the group; members hear NOT_COORDINATOR and follow it', () => {
    const c = createCluster({ seed: 4, brokers: 3, storage: 'kafka' });
    c.admin.createTopic({ name: 'events', partitions: 3, replicationFactor: 3 });
    const m = c.groupConsumer('m', { groupId: 'app', topics: ['events'] });
    c.runUntil(() => m.memberState === 'Stable', { timeout: '30s' });
    const events: string[] = [];
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'member.coordinator-unknown') events.push(String(e.why));
    });
    const before = c.groupCoordinator('app');
    const p = partitionForGroup('app', 50);
    const replicas = c.image.topics[OFFSETS_TOPIC]!.partitions[p]!.replicas;
    // Put another broker first and elect it: the preferred leader moves.
    const next = replicas.find((b) => b !== before)!;
    c.admin.alterPartitionReassignments([
      { topic: OFFSETS_TOPIC, partition: p, replicas: [next, ...replicas.filter((b) => b !== next)] },
    ]);
    c.runFor('2s');
    c.admin.call({ type: 'ElectLeaders', partitions: [{ topic: OFFSETS_TOPIC, partition: p }] });
    c.runUntil(() => c.groupCoordinator('app') === next && m.coordinatorId === next, { timeout: '30s' });
    expect(events.some((w) => w.includes('NOT_COORDINATOR'))).toBe(true);
    c.runFor('10s');
    expect(m.memberState).toBe('Stable');
    expect(c.groupView('app')).toMatchObject({ state: 'Stable', coordinator: { id: next } });
  });
});
