// Real clients' requests are in the request log: replaying the log of a run in which kafkajs created a topic,
// produced and consumed in a group gives the same trace hash after every entry, the listener's included.
import { Kafka, logLevel } from 'kafkajs';
import { expect, it } from 'vitest';
import { replayRequestLog } from '../../src/api/server.ts';
import { WIRE_LOG_METHOD } from '../../src/wire/index.ts';
import { wireServer } from './fixture.ts';

it('a run driven by kafkajs replays from its request log with the same fingerprint', async () => {
  const s = await wireServer({ seed: 11, brokers: 3 }, 2);
  const kafka = new Kafka({ clientId: 'replayed', brokers: s.bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [{ topic: 'events', numPartitions: 2, replicationFactor: 3 }],
    waitForLeaders: true,
  });
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < 10; i++)
    await producer.send({ topic: 'events', acks: -1, messages: [{ value: `e${i}` }] });
  const consumer = kafka.consumer({ groupId: 'readers' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'events', fromBeginning: true });
  let got = 0;
  await new Promise<void>((resolve) => {
    void consumer.run({ eachMessage: async () => void (++got === 10 && resolve()) });
  });
  await consumer.disconnect();
  await producer.disconnect();
  await admin.disconnect();
  await s.close();
  // A copy: sockets closing after this may still append disconnects to the live log.
  const log = JSON.parse(JSON.stringify(s.server.host.requestLog())) as ReturnType<
    typeof s.server.host.requestLog
  >;
  const wire = log.entries.filter((e) => e.method === WIRE_LOG_METHOD);
  expect(wire.length).toBeGreaterThan(20);
  const apis = new Set(wire.map((e) => (e.body as { api?: string }).api).filter(Boolean));
  for (const api of [
    'ApiVersions',
    'Metadata',
    'CreateTopics',
    'Produce',
    'Fetch',
    'JoinGroup',
    'SyncGroup',
    'OffsetCommit',
  ])
    expect(apis).toContain(api);
  const replay = await replayRequestLog(log);
  expect(replay.mismatches).toEqual([]);
  expect(replay.host.sim.trace.hash).toBe(log.entries.at(-1)!.hashAfter);
  expect(replay.host.cluster.partitionLogs('events').reduce((n, l) => n + l.logEndOffset, 0)).toBe(10);
  await replay.app.close();
}, 120_000);
