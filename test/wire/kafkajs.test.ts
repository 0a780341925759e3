// kafkajs, unmodified, against the simulated cluster over TCP: create a topic, produce with acks=all, consume in a
// group of 3, add partitions and see the group rebalance onto them, crash the leader's broker and see the
// producer retry and lose nothing it was told was written (the sim-side delivery report counts it exactly).
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, type WireServer, wireServer } from './fixture.ts';

let s: WireServer;
beforeAll(async () => {
  s = await wireServer({ seed: 7, brokers: 3 }, 2);
});
afterAll(async () => {
  await s?.close();
});

it('a kafkajs group of 3 rebalances onto new partitions and a producer loses nothing through a leader crash', async () => {
  const kafka = new Kafka({
    clientId: 'orders-app',
    brokers: s.bootstrap,
    logLevel: logLevel.NOTHING,
    retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 },
  });
  const admin = kafka.admin();
  await admin.connect();
  expect(
    await admin.createTopics({
      topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 3 }],
      waitForLeaders: true,
    }),
  ).toBe(true);
  // The topic made over the wire is the REST API's too.
  const rest = await s.http('GET', `/v3/clusters/${s.clusterId}/topics/orders`);
  expect(rest.status).toBe(200);
  expect(rest.body.partitions_count).toBe(3);

  const assignments = new Map<string, number[]>();
  const seen = new Set<string>();
  const consumers = [0, 1, 2].map(() =>
    kafka.consumer({
      groupId: 'billing',
      metadataMaxAge: 1000,
      sessionTimeout: 20000,
      heartbeatInterval: 1000,
    }),
  );
  for (const [i, c] of consumers.entries()) {
    c.on(c.events.GROUP_JOIN, (e) =>
      assignments.set(`c${i}`, (e.payload.memberAssignment.orders ?? []) as number[]),
    );
    await c.connect();
    await c.subscribe({ topic: 'orders', fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
  }
  const assigned = () => [...assignments.values()].flat().sort((a, b) => a - b);
  await eventually(
    () => assignments.size === 3 && assigned().join() === '0,1,2',
    30_000,
    'three members owning 0,1,2',
  );

  const producer = kafka.producer({ retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
  await producer.connect();
  let n = 0;
  const send = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const value = `order-${n++}`;
      await producer.send({ topic: 'orders', acks: -1, messages: [{ key: value, value }] });
    }
  };
  await send(30);

  await admin.createPartitions({ topicPartitions: [{ topic: 'orders', count: 6 }] });
  await eventually(
    () => assigned().join() === '0,1,2,3,4,5',
    40_000,
    'the group rebalancing onto 6 partitions',
  );
  expect([...assignments.values()].map((a) => a.length)).toEqual([2, 2, 2]);

  const leader = s.server.host.cluster.image.topics.orders!.partitions[0]!.leader;
  expect((await s.http('POST', '/sim/faults/crash-broker', { broker_id: leader })).status).toBe(200);
  await send(30);

  const report = s.server.host.cluster.deliveryReport('orders-app');
  expect(report).toMatchObject({ acknowledged: 60, lost: 0 });
  expect(s.server.host.cluster.image.topics.orders!.partitions[0]!.leader).not.toBe(leader);
  await eventually(() => seen.size === 60, 60_000, 'the group consuming all 60 records');

  await producer.disconnect();
  for (const c of consumers) await c.disconnect();
  await admin.disconnect();
  expect(s.server.host.halted).toBeUndefined();
}, 180_000);
