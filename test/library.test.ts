// The README's library example, verbatim in spirit: if this breaks, the README is wrong.
import { describe, expect, it } from 'vitest';
import { assignors, createCluster } from '../src/index.ts';

describe('library API (README example)', () => {
  it('a leader crash under acks=all loses nothing', { timeout: 30_000 }, () => {
    const cluster = createCluster({ seed: 42, brokers: 3, storage: 'kafka' });
    cluster.admin.createTopic({ name: 'orders', partitions: 6, replicationFactor: 3 });

    const perf = cluster.producerPerfTest({
      topic: 'orders',
      numRecords: 50_000,
      throughput: 5_000,
      recordSize: 512,
    });
    cluster.runFor('4s');
    const leader = cluster.image.topics.orders!.partitions[0]!.leader;
    cluster.crashBroker(leader); // fenced after broker.session.timeout.ms, then a new leader from the ISR
    cluster.runUntil(() => perf.summary !== undefined, { timeout: '2m', description: 'perf test done' });

    expect(cluster.image.topics.orders!.partitions[0]!.leader).not.toBe(leader);
    expect(cluster.deliveryReport(perf.workload.producer.id)).toMatchObject({
      acknowledged: 50_000,
      lost: 0,
      duplicated: 0,
    });
    expect(cluster.describeTopic('orders')).toContain('PartitionCount: 6');
  });

  it('assignors are plain functions a test can call', () => {
    const result = assignors.range.assign({
      partitionsPerTopic: { t: 3 },
      members: [
        { memberId: 'a', topics: ['t'] },
        { memberId: 'b', topics: ['t'] },
      ],
    });
    expect(result).toEqual({
      a: [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ],
      b: [{ topic: 't', partition: 2 }],
    });
  });
});
