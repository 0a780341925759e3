// A reassignment under load: the Java producer logs NOT_LEADER_OR_FOLLOWER (the two WARN lines of source
// workflow A step 6), refreshes metadata, and with acks=all and idempotence nothing is lost or duplicated.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../src/cluster/index.ts';

const TOPIC = 'continuous-self-balancing-topic';

describe('reassignment under load', () => {
  for (const storage of ['shared', 'kafka'] as const) {
    it(`${storage} storage: producer sees NOT_LEADER_OR_FOLLOWER, recovers, loses and duplicates nothing`, () => {
      const c = createCluster({ seed: 5, brokers: [{ id: 1 }, { id: 2 }], storage });
      c.admin.createTopic({ name: TOPIC, partitions: 8 });
      const report = c.producerPerfTest({
        topic: TOPIC,
        numRecords: 100_000,
        throughput: 5120,
        recordSize: 1024,
      });
      c.runFor('5s');
      const movedAway = c.image.topics[TOPIC]!.partitions.map((r, p) => ({ p, leader: r.leader })).filter(
        (x) => x.leader === 1,
      );
      expect(movedAway.length).toBeGreaterThan(0);
      const res = c.admin.alterPartitionReassignments(
        movedAway.map(({ p }) => ({ topic: TOPIC, partition: p, replicas: [2] })),
      );
      expect(res.errorCode).toBe(0);
      c.runUntil(() => report.summary !== undefined, { timeout: '60s', description: 'perf test done' });
      // Every moved partition is now on broker 2 only.
      for (const { p } of movedAway) {
        expect(c.image.topics[TOPIC]!.partitions[p]).toMatchObject({ leader: 2, replicas: [2], isr: [2] });
      }
      const warns = c.output.filter((l) =>
        /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] WARN \[Producer clientId=perf-producer-client\]/.test(l),
      );
      expect(
        warns.some((l) =>
          / Error: NOT_LEADER_OR_FOLLOWER \(org\.apache\.kafka\.clients\.producer\.internals\.Sender\)\n/.test(
            l,
          ),
        ),
      ).toBe(true);
      expect(
        warns.some((l) =>
          l.includes(
            'Received invalid metadata error in produce request on partition continuous-self-balancing-topic-',
          ),
        ),
      ).toBe(true);
      const producer = report.workload.producer;
      expect(producer.errorCounts.NOT_LEADER_OR_FOLLOWER).toBeGreaterThan(0);
      const d = c.deliveryReport('perf-producer', TOPIC);
      expect(d).toMatchObject({ sent: 100_000, acknowledged: 100_000, failed: 0, lost: 0, duplicated: 0 });
    });
  }
});

describe('kafka storage: the leader counts a joining replica before the controller commits it (maximal ISR)', () => {
  // Regression: the controller completes a reassignment (and moves leadership to the new replica) in the same
  // step that adds it to the ISR. A leader that kept acknowledging against the old ISR while its expansion was
  // in flight lost those records (seed 5: 15 acknowledged records lost, then an OUT_OF_ORDER_SEQUENCE_NUMBER storm).
  it('moving four of eight partitions under 5 MiB/s loses and duplicates nothing (seed 5)', () => {
    const c = createCluster({ seed: 5, brokers: [{ id: 1 }, { id: 2 }], storage: 'kafka' });
    c.admin.createTopic({ name: 't', partitions: 8, assignments: Array.from({ length: 8 }, () => [2]) });
    const report = c.producerPerfTest({
      topic: 't',
      numRecords: 500_000,
      throughput: 5120,
      recordSize: 1024,
    });
    c.runFor('60s');
    c.admin.alterPartitionReassignments(
      [7, 0, 6, 4].map((p) => ({ topic: 't', partition: p, replicas: [1] })),
    );
    c.runUntil(() => report.summary !== undefined, { timeout: '200s', description: 'perf test done' });
    expect(report.workload.producer.errorCounts.OUT_OF_ORDER_SEQUENCE_NUMBER ?? 0).toBe(0);
    expect(c.deliveryReport('perf-producer', 't')).toMatchObject({
      acknowledged: 500_000,
      failed: 0,
      lost: 0,
      duplicated: 0,
    });
    for (const p of [7, 0, 6, 4])
      expect(c.image.topics.t!.partitions[p]).toMatchObject({ leader: 1, replicas: [1] });
  });
});
