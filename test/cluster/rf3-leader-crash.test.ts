// RF 3, acks=all, the leader's broker crashes under load: the new leader comes from the ISR and no acknowledged
// record is lost. Broker fencing after broker.session.timeout.ms is what triggers the election.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/cluster/index.ts';

describe('RF 3, acks=all, leader crash', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: new leader from the ISR, nothing acknowledged lost`, () => {
      const c = createCluster({ seed, brokers: 4, storage: 'kafka' });
      c.admin.createTopic({ name: 'orders', partitions: 3, replicationFactor: 3 });
      const report = c.producerPerfTest({
        topic: 'orders',
        numRecords: 60_000,
        throughput: 2000,
        recordSize: 200,
        name: 'p',
      });
      c.runFor('10s');
      const before = c.image.topics.orders!.partitions[0]!;
      expect(before.isr).toHaveLength(3);
      const victim = before.leader;
      c.crashBroker(victim);
      c.runUntil(() => (c.image.topics.orders!.partitions[0]!.leader ?? -1) !== victim, {
        timeout: '20s',
        description: 'new leader',
      });
      const after = c.image.topics.orders!.partitions[0]!;
      expect(before.isr).toContain(after.leader);
      expect(after.leader).not.toBe(victim);
      expect(after.isr).not.toContain(victim);
      expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
      c.runUntil(() => report.summary !== undefined, { timeout: '120s', description: 'perf test done' });
      const d = c.deliveryReport('p', 'orders');
      expect(d.acknowledged).toBe(60_000);
      expect(d.lost).toBe(0);
      expect(d.duplicated).toBe(0);
    });
  }
});
