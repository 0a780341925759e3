// Finding offsets over the wire: ListOffsets by timestamp (KIP-79) as kafkajs's fetchTopicOffsetsByTimestamp and
// kcat's `-o s@<ms>` ask it, and OffsetForLeaderEpoch (KIP-320) as a consumer validates its position after a leader
// change. No client installable here sends OffsetForLeaderEpoch (kafkajs has no such request; Debian's librdkafka
// 2.0.2 predates its KIP-320 support in 2.1.0), so that part speaks the protocol through the codec generated from
// Kafka's own message definitions.
import { execFileSync, spawn } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ask, eventually, type WireServer, wireServer } from './fixture.ts';

let s: WireServer;
let kafka: Kafka;
beforeAll(async () => {
  s = await wireServer({ seed: 11, brokers: 3 }, 4);
  kafka = new Kafka({
    clientId: 'offsets-app',
    brokers: s.bootstrap,
    logLevel: logLevel.NOTHING,
    retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 },
  });
});
afterAll(async () => {
  await s?.close();
});

async function createTopic(topic: string): Promise<void> {
  const r = await s.http('POST', `/v3/clusters/${s.clusterId}/topics`, {
    topic_name: topic,
    partitions_count: 1,
    replication_factor: 3,
  });
  expect(r.status).toBe(201);
}

const highWatermark = (topic: string) =>
  Math.max(
    ...s.server.host.cluster
      .partitionLogs()
      .filter((l) => l.topic === topic)
      .map((l) => l.highWatermark),
  );
/** kcat against the listener, asynchronously (the server runs in this process: a blocking call would stall it). */
const kcat = (args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn('kcat', ['-b', s.bootstrap.join(','), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill(), 30_000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`kcat ${args.join(' ')} exited ${code}: ${err}`));
    });
  });
const portOf = (broker: number) => Number(s.bootstrap[broker]!.split(':')[1]);
const hasKcat = (() => {
  try {
    execFileSync('kcat', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

it('ListOffsets by timestamp finds the first record at or after the time: kafkajs and kcat', async () => {
  await createTopic('clicks');
  const producer = kafka.producer();
  await producer.connect();
  // Two batches with CreateTimes the test chooses: three records at 1,000,000..2 ms, then two at 2,000,000..1 ms.
  await producer.send({
    topic: 'clicks',
    acks: -1,
    messages: [0, 1, 2].map((i) => ({ value: `a${i}`, timestamp: String(1_000_000 + i) })),
  });
  await producer.send({
    topic: 'clicks',
    acks: -1,
    messages: [0, 1].map((i) => ({ value: `b${i}`, timestamp: String(2_000_000 + i) })),
  });
  await producer.disconnect();

  const admin = kafka.admin();
  await admin.connect();
  const at = async (ts: number) => (await admin.fetchTopicOffsetsByTimestamp('clicks', ts))[0]!.offset;
  expect(await at(1_000_000)).toBe('0');
  // Inside a batch: the record, not the batch's first offset.
  expect(await at(1_000_001)).toBe('1');
  expect(await at(1_500_000)).toBe('3');
  expect(await at(2_000_001)).toBe('4');
  // Nothing at or after it: Kafka answers -1 (kafkajs then reports the latest offset, as its docs say).
  expect(await at(3_000_000)).toBe('5');
  await admin.disconnect();

  if (!hasKcat) return; // .ci/run installs kcat; a developer without it still runs the kafkajs half
  const out = await kcat(['-C', '-t', 'clicks', '-o', 's@1500000', '-e', '-q', '-f', '%o %T %s\n']);
  expect(out.trim().split('\n')).toEqual(['3 2000000 b0', '4 2000001 b1']);
}, 120_000);

it('a record the simulation made carries its append time on the run wall clock, and is found by it', async () => {
  await createTopic('ticks');
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'ticks', acks: -1, messages: [{ value: 'real', timestamp: '5' }] });
  await producer.disconnect();
  const sim = s.server.host.cluster.sim;
  const before = Math.floor(sim.startTime + sim.now);
  // Sim-made records: a simulated producer (the HTTP API's producer workload), stamped by the leader's append.
  const r = await s.http('POST', '/sim/workloads', {
    kind: 'producer',
    name: 'ticker',
    topic: 'ticks',
    rate: 100,
    records: 3,
  });
  expect(r.status).toBeLessThan(300);
  await eventually(
    () => s.server.host.cluster.image.topics.ticks !== undefined && highWatermark('ticks') >= 4,
    30_000,
    'three simulated records committed',
  );
  const admin = kafka.admin();
  await admin.connect();
  expect((await admin.fetchTopicOffsetsByTimestamp('ticks', before))[0]!.offset).toBe('1');
  await admin.disconnect();
  if (!hasKcat) return;
  const out = await kcat(['-C', '-t', 'ticks', '-o', '1', '-c', '1', '-e', '-q', '-f', '%T %s\n']);
  const [ts, value] = out.trim().split(' ');
  expect(value).toBeDefined();
  expect(Number(ts)).toBeGreaterThanOrEqual(before);
  expect(Number(ts)).toBeLessThan(sim.startTime + sim.now + 1);
}, 120_000);

it('OffsetForLeaderEpoch: where each epoch ends in the leader log, fenced and unknown epochs, followers refuse', async () => {
  await createTopic('ledger');
  const producer = kafka.producer();
  await producer.connect();
  const send = (n: number, tag: string) =>
    producer.send({
      topic: 'ledger',
      acks: -1,
      messages: Array.from({ length: n }, (_, i) => ({ value: `${tag}${i}` })),
    });
  await send(5, 'x');
  const part = () => s.server.host.cluster.image.topics.ledger!.partitions[0]!;
  const first = part();
  const e0 = first.leaderEpoch;
  expect((await s.http('POST', '/sim/faults/crash-broker', { broker_id: first.leader })).status).toBe(200);
  await eventually(() => part().leader >= 0 && part().leader !== first.leader, 60_000, 'a new leader');
  await send(4, 'y');
  await producer.disconnect();
  const now = part();
  const e1 = now.leaderEpoch;
  expect(e1).toBeGreaterThan(e0);

  const OFFSET_FOR_LEADER_EPOCH = 23;
  const query = async (broker: number, currentLeaderEpoch: number, leaderEpoch: number, version = 4) => {
    const body = await ask(portOf(broker), OFFSET_FOR_LEADER_EPOCH, version, {
      replicaId: -1,
      topics: [{ topic: 'ledger', partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }],
    });
    const topics = body.topics as { partitions: Record<string, number>[] }[];
    return topics[0]!.partitions[0]!;
  };
  // The epoch the first five records were written in ends where the new leader's epoch starts.
  expect(await query(now.leader, e1, e0)).toMatchObject({ errorCode: 0, leaderEpoch: e0, endOffset: 5 });
  // The current epoch ends at the log end.
  expect(await query(now.leader, e1, e1)).toMatchObject({ errorCode: 0, leaderEpoch: e1, endOffset: 9 });
  // No fencing check without a current epoch (-1), as v2's default and every v0/v1 request.
  expect(await query(now.leader, -1, e0, 2)).toMatchObject({ errorCode: 0, leaderEpoch: e0, endOffset: 5 });
  expect(await query(now.leader, -1, e0, 0)).toMatchObject({ errorCode: 0, endOffset: 5 });
  // An epoch above every known one: undefined.
  expect(await query(now.leader, e1, e1 + 5)).toMatchObject({ errorCode: 0, leaderEpoch: -1, endOffset: -1 });
  // A client behind the leader's epoch is fenced; one ahead of it is told the epoch is unknown.
  expect((await query(now.leader, e0, e0)).errorCode).toBe(74); // FENCED_LEADER_EPOCH
  expect((await query(now.leader, e1 + 1, e0)).errorCode).toBe(75); // UNKNOWN_LEADER_EPOCH
  // Only the leader answers.
  const follower = now.isr.find((b) => b !== now.leader)!;
  expect((await query(follower, e1, e0)).errorCode).toBe(6); // NOT_LEADER_OR_FOLLOWER

  // ApiVersions advertises it.
  const versions = await ask(portOf(now.leader), 18, 3, {
    clientSoftwareName: 'offsets-test',
    clientSoftwareVersion: '1',
  });
  const keys = versions.apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[];
  expect(keys.find((k) => k.apiKey === OFFSET_FOR_LEADER_EPOCH)).toMatchObject({
    minVersion: 0,
    maxVersion: 4,
  });
}, 120_000);
