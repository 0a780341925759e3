// A cluster where a consumer and a producer will wait for a leader: topic `t` with partition 0 on broker 0 and
// partition 1 on broker 1, a consumer assigned both, and a producer sending to `partitions` every 5 ms. Crash
// broker 1 and partition 1 goes leaderless while partition 0 keeps flowing.
import type { Consumer, Producer } from '../../../models/clients/index.ts';
import { type Cluster, createCluster } from '../../../src/cluster/index.ts';

export function leaderWait(partitions: readonly number[]): {
  c: Cluster;
  consumer: Consumer;
  producer: Producer;
} {
  const c = createCluster({ seed: 5, brokers: 2, storage: 'kafka' });
  c.admin.createTopic({ name: 't', assignments: [[0], [1]] });
  c.runFor('1s');
  const consumer = c.consumer('c', { config: { 'auto.offset.reset': 'earliest' } });
  consumer.assign([
    { topic: 't', partition: 0 },
    { topic: 't', partition: 1 },
  ]);
  const producer = c.producer('p');
  c.sim.schedule(0, function tick() {
    for (const partition of partitions) producer.send({ topic: 't', partition, value: 'v' });
    c.sim.schedule(5, tick);
  });
  c.runFor('2s');
  return { c, consumer, producer };
}
