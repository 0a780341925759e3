// `cluster.listen` on a library cluster (docs/wire.md): the method src/api/cluster-listen.ts adds to Cluster opens
// real TCP listeners, kafkajs creates a topic through them, and the cluster (paced to the wall clock) has it.
import { Kafka, logLevel } from 'kafkajs';
import { expect, it } from 'vitest';
import { createCluster } from '../../src/index.ts';

it('a library cluster listens on the Kafka protocol: kafkajs creates a topic the cluster then has', async () => {
  const cluster = createCluster({ seed: 7, brokers: 1 });
  const kafka = await cluster.listen({ kafkaPort: 0, speed: 1 });
  try {
    expect(Object.keys(kafka.brokers)).toEqual(['0']);
    expect(kafka.bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
    const admin = new Kafka({
      clientId: 'listen-test',
      brokers: [kafka.bootstrap],
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2, replicationFactor: 1 }] });
      expect(await admin.listTopics()).toContain('orders');
    } finally {
      await admin.disconnect();
    }
    expect(cluster.image.topics.orders?.partitions.length).toBe(2);
    expect(kafka.host.log.length).toBeGreaterThan(0);
  } finally {
    await kafka.close();
  }
}, 60_000);
