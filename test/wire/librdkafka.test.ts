// librdkafka, through Debian's kcat and python3-confluent-kafka (.ci/run installs both), against the simulated
// cluster over TCP: `kcat -L` shows exactly the sim's metadata image, `kcat -P`/`-C` round-trip records, a topic
// made over the wire is the REST API's and the reverse, and workflow B's group (4 confluent-kafka consumers,
// range,roundrobin, topic.metadata.refresh.interval.ms 5000) on a 2-partition topic expanded to 8 ends with 2
// partitions each.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type WireServer, wireServer } from './fixture.ts';

const run = promisify(execFile);

/** `kcat -L -J` output, the fields compared. */
interface KcatMetadata {
  brokers: { id: number; name: string }[];
  topics: {
    topic: string;
    partitions: { partition: number; leader: number; replicas: { id: number }[]; isrs: { id: number }[] }[];
  }[];
}
let s: WireServer;
beforeAll(async () => {
  s = await wireServer({ seed: 3, brokers: 3 }, 1);
});
afterAll(async () => {
  await s?.close();
});

const kcat = async (args: string[], input?: string) => {
  const child = spawn('kcat', ['-b', s.bootstrap[0]!, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end(input ?? '');
  const code = await new Promise<number | null>((r) => child.on('close', r));
  return { code, out, err };
};

it('kcat -L lists brokers and topics exactly as the simulation has them', async () => {
  const made = await s.http('POST', `/v3/clusters/${s.clusterId}/topics`, {
    topic_name: 'rest-made',
    partitions_count: 4,
    replication_factor: 2,
  });
  expect(made.status).toBe(201);
  await new Promise((r) => setTimeout(r, 300));
  const { code, out } = await kcat(['-L', '-J']);
  expect(code).toBe(0);
  const meta = JSON.parse(out) as KcatMetadata;
  const image = s.server.host.cluster.image;
  expect(meta.brokers.map((b) => [b.id, b.name])).toEqual(
    Object.keys(image.brokers).map((id, i) => [Number(id), s.bootstrap[i]]),
  );
  const topics = Object.fromEntries(
    meta.topics.map((t) => [
      t.topic,
      t.partitions.map((p) => ({
        partition: p.partition,
        leader: p.leader,
        replicas: p.replicas.map((r) => r.id),
        isr: p.isrs.map((r) => r.id),
      })),
    ]),
  );
  const expected = Object.fromEntries(
    Object.entries(image.topics).map(([name, t]) => [
      name,
      t.partitions.map((p, i) => ({
        partition: i,
        leader: p.leader,
        replicas: [...p.replicas],
        isr: [...p.isr],
      })),
    ]),
  );
  expect(topics).toEqual(expected);
  expect(topics['rest-made']).toHaveLength(4);
});

it('kcat -P then -C round-trips records with keys, and the wire-made topic is seen by the REST API', async () => {
  const lines = Array.from({ length: 50 }, (_, i) => `k${i}:value ${i}`);
  const p = await kcat(
    ['-P', '-t', 'roundtrip', '-p', '0', '-K', ':', '-X', 'message.timeout.ms=1500'],
    `${lines.join('\n')}\n`,
  );
  // No such topic yet: librdkafka reports it (auto-creation is off), the records are not written.
  expect(p.code).not.toBe(0);
  const created = await run('/usr/bin/python3', [
    '-c',
    `from confluent_kafka.admin import AdminClient, NewTopic
a = AdminClient({'bootstrap.servers': '${s.bootstrap.join(',')}'})
f = a.create_topics([NewTopic('roundtrip', 2, 3)])
for t, fut in f.items(): fut.result(10)
print('ok')`,
  ]);
  expect(created.stdout.trim()).toBe('ok');
  const rest = await s.http('GET', `/v3/clusters/${s.clusterId}/topics/roundtrip`);
  expect(rest.body.partitions_count).toBe(2);
  await new Promise((r) => setTimeout(r, 300));
  expect((await kcat(['-P', '-t', 'roundtrip', '-p', '0', '-K', ':'], `${lines.join('\n')}\n`)).code).toBe(0);
  const c = await kcat(['-C', '-t', 'roundtrip', '-p', '0', '-o', 'beginning', '-e', '-f', '%k=%s\\n']);
  expect(c.code).toBe(0);
  expect(c.out.trim().split('\n')).toEqual(lines.map((l) => l.replace(':', '=')));
  const offsets = await s.http('GET', `/v3/clusters/${s.clusterId}/topics/roundtrip/partitions/0`);
  expect(offsets.status).toBe(200);
});

it('a confluent-kafka group of 4 (range,roundrobin, refresh 5000 ms) on 2 partitions expanded to 8 ends with 2 each', async () => {
  const script = `
import json, sys, time, urllib.request
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic, NewPartitions
bs = '${s.bootstrap.join(',')}'
a = AdminClient({'bootstrap.servers': bs})
for t, f in a.create_topics([NewTopic('lake-topic', 2, 1)]).items(): f.result(10)
time.sleep(0.5)
conf = lambda i: {'bootstrap.servers': bs, 'group.id': 'lake-group', 'client.id': 'worker-%d' % i,
  'partition.assignment.strategy': 'range,roundrobin', 'topic.metadata.refresh.interval.ms': 5000,
  'auto.offset.reset': 'earliest', 'session.timeout.ms': 10000}
cs = [Consumer(conf(i)) for i in range(4)]
for c in cs: c.subscribe(['lake-topic'])
def settle(total, limit):
  end = time.time() + limit
  while time.time() < end:
    for c in cs: c.poll(0.05)
    got = [sorted(p.partition for p in c.assignment()) for c in cs]
    if sum(len(g) for g in got) == total and all(len(g) == total // 4 or total < 4 for g in got): return got
  return [sorted(p.partition for p in c.assignment()) for c in cs]
before = settle(2, 30)
for t, f in a.create_partitions([NewPartitions('lake-topic', 8)]).items(): f.result(10)
t0 = time.time()
after = settle(8, 40)
print(json.dumps({'before': before, 'after': after, 'seconds': time.time() - t0}))
for c in cs: c.close()
`;
  const { stdout } = await run('/usr/bin/python3', ['-c', script], { timeout: 120_000 });
  const r = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(r.before.flat().sort()).toEqual([0, 1]);
  expect(r.after.map((a: number[]) => a.length)).toEqual([2, 2, 2, 2]);
  expect(r.after.flat().sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  const group = await s.http('GET', `/v3/clusters/${s.clusterId}/consumer-groups/lake-group`);
  expect(group.status).toBe(200);
}, 150_000);
