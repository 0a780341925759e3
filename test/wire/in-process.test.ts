// kafkajs, unmodified, on the in-process transport: a consumer group of 3 runs through a rebalance (partitions
// added) entirely in virtual time, with vitest's fake timers moving with the simulation; no sockets, no waiting,
// and the same seed gives the same run.
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, expect, it, vi } from 'vitest';
import { createCluster } from '../../src/index.ts';
import { inProcessTransport } from '../../src/wire/index.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

async function groupThroughRebalance(seed: number) {
  const cluster = createCluster({ seed, brokers: 3 });
  vi.useFakeTimers({ now: 0 });
  // kafkajs draws retry jitter and broker order from Math.random: seed it too, so the client is as repeatable as
  // the simulation.
  let x = seed;
  vi.spyOn(Math, 'random').mockImplementation(() => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 4294967296;
  });
  const wire = inProcessTransport(cluster);
  const run = (d: string) => wire.runFor(d, (ms) => vi.advanceTimersByTimeAsync(ms));
  /** Runs virtual time until the promise settles (kafkajs calls need the simulation to answer them). */
  const until = async <T>(p: Promise<T>, limit = 300): Promise<T> => {
    let settled = false;
    void p.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < limit && !settled; i++) await run('100ms');
    return p;
  };
  const kafka = new Kafka({
    clientId: 'virtual',
    brokers: wire.brokers,
    socketFactory: wire.socketFactory as never,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await until(admin.connect());
  expect(
    await until(admin.createTopics({ topics: [{ topic: 'jobs', numPartitions: 3, replicationFactor: 3 }] })),
  ).toBe(true);

  const assignments = new Map<string, number[]>();
  const consumers = [0, 1, 2].map((i) => {
    const c = kafka.consumer({ groupId: 'workers', metadataMaxAge: 1000, heartbeatInterval: 500 });
    c.on(c.events.GROUP_JOIN, (e) =>
      assignments.set(`c${i}`, (e.payload.memberAssignment.jobs ?? []) as number[]),
    );
    return c;
  });
  for (const c of consumers) {
    await until(c.connect());
    await until(c.subscribe({ topic: 'jobs', fromBeginning: true }));
    void c.run({ eachMessage: async () => {} });
  }
  const owned = () =>
    [...assignments.values()]
      .flat()
      .sort((a, b) => a - b)
      .join();
  for (let i = 0; i < 60 && !(assignments.size === 3 && owned() === '0,1,2'); i++) await run('500ms');
  expect(owned()).toBe('0,1,2');
  const t0 = cluster.now;
  await until(admin.createPartitions({ topicPartitions: [{ topic: 'jobs', count: 6 }] }));
  for (let i = 0; i < 60 && owned() !== '0,1,2,3,4,5'; i++) await run('500ms');
  expect(owned()).toBe('0,1,2,3,4,5');
  const rebalanceMs = cluster.now - t0;
  await until(Promise.all([...consumers.map((c) => c.disconnect()), admin.disconnect()]));
  return { rebalanceMs, sizes: [...assignments.values()].map((a) => a.length), hash: cluster.sim.trace.hash };
}

it('a kafkajs group of 3 rebalances onto added partitions in virtual time, the same way for the same seed', async () => {
  const wall = performance.now();
  const a = await groupThroughRebalance(21);
  expect(a.sizes).toEqual([2, 2, 2]);
  expect(a.rebalanceMs).toBeGreaterThan(0);
  const b = await groupThroughRebalance(21);
  expect(b).toEqual(a);
  // Virtual seconds passed; the wall clock did not wait for them (no assertion on speed: see test/bench).
  expect(performance.now() - wall).toBeGreaterThan(0);
}, 120_000);
