// A consumer-protocol group (KIP-848) survives a coordinator crash: its records in __consumer_offsets
// (ConsumerGroupMetadata, members, target and current assignments) are replayed by the broker that takes the
// partition over, so members keep heartbeating at their epoch: no one is fenced, no epoch is bumped, and every
// member keeps its partitions. Kafka storage, 3 brokers, __consumer_offsets with 3 replicas.
import { describe, expect, it } from 'vitest';
import type { GroupConsumer } from '../../models/clients/index.ts';
import type { TraceEvent } from '../../models/sim/index.ts';
import { createCluster } from '../../src/cluster/index.ts';

describe('consumer group records in __consumer_offsets', () => {
  it.each(['consumer', 'mixed'] as const)(
    '%s group: the coordinator crashes; the new one reloads the group at the same epochs and nobody rejoins',
    (kind) => {
      const c = createCluster({ seed: 4, brokers: 3, storage: 'kafka' });
      c.admin.createTopic({ name: 'events', partitions: 6, replicationFactor: 3 });
      const events: TraceEvent[] = [];
      c.sim.trace.subscribe((e) => {
        if (e.kind.startsWith('group.')) events.push(e);
      });
      const protocols =
        kind === 'consumer' ? ['consumer', 'consumer', 'consumer'] : ['consumer', 'classic', 'classic'];
      const ms: GroupConsumer[] = protocols.map((protocol, i) =>
        c.groupConsumer(`m${i}`, {
          flavour: 'java',
          groupId: 'app',
          topics: ['events'],
          config: { 'group.protocol': protocol as 'consumer' | 'classic', 'auto.offset.reset': 'earliest' },
        }),
      );
      const settled = () => ms.every((m) => m.ownedPartitions().length === 2);
      if (kind === 'mixed') {
        // The classic members join first; the consumer-protocol one converts the group.
        ms[0]!.close();
        c.runUntil(() => ms.slice(1).every((m) => m.ownedPartitions().length === 3), { timeout: '60s' });
        ms[0] = c.groupConsumer('m0b', {
          flavour: 'java',
          groupId: 'app',
          topics: ['events'],
          config: { 'group.protocol': 'consumer', 'auto.offset.reset': 'earliest' },
        });
      }
      c.runUntil(settled, { timeout: '120s', description: 'the group settled' });
      c.runFor('10s');
      const before = c.brokers.get(c.groupCoordinator('app'))!.groupCoordinator.consumerGroup('app')!;
      const epochs = [...before.members.values()].map((m) => [m.memberId, m.memberEpoch]).sort();
      const groupEpoch = before.groupEpoch;
      const owned = ms.map((m) =>
        m
          .ownedPartitions()
          .map((tp) => tp.partition)
          .sort(),
      );
      const old = c.groupCoordinator('app');
      const crashedAt = c.now;
      c.crashBroker(old);
      c.runUntil(() => c.groupCoordinator('app') !== old && c.groupCoordinator('app') >= 0, {
        timeout: '30s',
      });
      c.runFor('60s');
      const coordinator = c.brokers.get(c.groupCoordinator('app'))!.groupCoordinator;
      const after = coordinator.consumerGroup('app');
      expect(after, 'the consumer group is loaded on the new coordinator').toBeDefined();
      expect(after!.groupEpoch).toBe(groupEpoch);
      expect([...after!.members.values()].map((m) => [m.memberId, m.memberEpoch]).sort()).toEqual(epochs);
      expect(after!.state).toBe('Stable');
      expect(
        ms.map((m) =>
          m
            .ownedPartitions()
            .map((tp) => tp.partition)
            .sort(),
        ),
      ).toEqual(owned);
      const later = events.filter((e) => e.t > crashedAt);
      expect(later.some((e) => e.kind === 'group.coordinator-loaded' && e.consumerGroups === 1)).toBe(true);
      expect(
        later.filter((e) => e.kind === 'group.member-added' || e.kind === 'group.member-removed'),
      ).toEqual([]);
      expect(later.filter((e) => e.kind === 'group.consumer.epoch-bumped')).toEqual([]);
    },
  );
});
