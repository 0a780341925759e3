// Scripted request faults: the same rule hits a simulated producer (library) and a real kafkajs producer (over
// the listener, the rule added through the HTTP API); both retry and lose nothing; the rule runs its count out;
// latency and dropped answers apply; the API refuses rules that cannot apply; a recorded run replays.
import { Kafka, logLevel } from 'kafkajs';
import { expect, it } from 'vitest';
import { replayRequestLog } from '../../src/api/server.ts';
import { createCluster } from '../../src/index.ts';
import { wireServer } from './fixture.ts';

it('a simulated producer meets NOT_LEADER_OR_FOLLOWER 3 times on one partition, retries, and loses nothing', () => {
  const cluster = createCluster({ seed: 3, brokers: 3 });
  cluster.admin.createTopic({ name: 'orders', partitions: 2, replicationFactor: 3 });
  cluster.runFor('1s');
  const rule = cluster.requestFaults.add({
    api: 'Produce',
    topic: 'orders',
    partition: 0,
    error: 'NOT_LEADER_OR_FOLLOWER',
    count: 3,
  });
  const p = cluster.producer('app', { config: { acks: 'all' } as never });
  const retries: string[] = [];
  p.onEvent((e) => {
    if (e.type === 'retry') retries.push(`${e.topic}-${e.partition}:${e.error}`);
  });
  for (let i = 0; i < 20; i++) p.send({ topic: 'orders', partition: i % 2, value: `v${i}` }, () => {});
  cluster.runFor('10s');
  expect(retries).toEqual(Array(3).fill('orders-0:NOT_LEADER_OR_FOLLOWER'));
  expect(cluster.requestFaults.list()).toEqual([]);
  expect(rule.id).toBe(1);
  expect(cluster.deliveryReport('app')).toMatchObject({ acknowledged: 20, lost: 0, duplicated: 0 });
});

it('refuses rules that cannot apply, with a message that says why', () => {
  const cluster = createCluster({ seed: 3, brokers: 1 });
  const faults = cluster.requestFaults;
  expect(() => faults.add({ api: 'Produce' })).toThrow(/needs error, latency or dropResponse/);
  expect(() => faults.add({ api: 'Metadata', error: 'NOT_LEADER_OR_FOLLOWER' })).toThrow(
    /takes latency or dropResponse/,
  );
  expect(() => faults.add({ api: 'Heartbeat', topic: 'x', latencyMs: 5 })).toThrow(/carries no partitions/);
  expect(() => faults.add({ api: 'Produce', error: 'NOPE' as never })).toThrow(/Kafka error name/);
  expect(() => faults.add({ api: 'Produce', latencyMs: 1, count: 0 })).toThrow(/count must be/);
  expect(faults.list()).toEqual([]);
});

it('a rule added over HTTP hits a real kafkajs producer, which retries; the run replays from its log', async () => {
  const s = await wireServer({ seed: 9, brokers: 3 }, 2);
  try {
    const kafka = new Kafka({ clientId: 'checkout', brokers: s.bootstrap, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: 'payments', numPartitions: 2, replicationFactor: 3 }],
      waitForLeaders: true,
    });
    const bad = await s.http('POST', '/sim/faults/requests', { api: 'Produce', error: 'NOPE' });
    expect(bad.status).toBe(400);
    const added = await s.http('POST', '/sim/faults/requests', {
      api: 'Produce',
      topic: 'payments',
      partition: 1,
      client: 'checkout',
      error: 'NOT_LEADER_OR_FOLLOWER',
      count: 3,
    });
    expect(added.status).toBe(201);
    const slow = await s.http('POST', '/sim/faults/requests', {
      api: 'Metadata',
      client: 'checkout',
      latency: '50ms',
      count: 1,
    });
    expect(slow.status).toBe(201);
    expect((await s.http('GET', '/sim/faults/requests')).body.data).toHaveLength(2);

    const producer = kafka.producer({ retry: { retries: 10, initialRetryTime: 50 } });
    await producer.connect();
    const [r] = await producer.send({
      topic: 'payments',
      acks: -1,
      messages: [{ partition: 1, value: 'paid' }],
    });
    expect(r).toMatchObject({ partition: 1, errorCode: 0 });
    const trace = s.server.host.sim.trace.recent('fault.request').filter((e) => e.kind === 'fault.request');
    expect(trace.filter((e) => e.api === 'Produce').map((e) => e.error)).toEqual(
      Array(3).fill('NOT_LEADER_OR_FOLLOWER'),
    );
    expect(trace.every((e) => String(e.node).startsWith('wire-'))).toBe(true);
    expect(trace.some((e) => e.api === 'Metadata' && e.latencyMs === 50)).toBe(true);
    expect((await s.http('GET', '/sim/faults/requests')).body.data).toEqual([]);
    expect(s.server.host.cluster.deliveryReport('checkout')).toMatchObject({ acknowledged: 1, lost: 0 });
    await producer.disconnect();
    await admin.disconnect();
  } finally {
    await s.close();
  }
  const log = JSON.parse(JSON.stringify(s.server.host.requestLog()));
  const replay = await replayRequestLog(log);
  expect(replay.mismatches).toEqual([]);
  await replay.app.close();
}, 120_000);
