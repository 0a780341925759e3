// The consumer group protocol (KIP-848) over the wire, with a real client: @platformatic/kafka (plain JavaScript,
// groupProtocol 'consumer'; it needs Node 22, so it runs from tools/platformatic-kafka with tools/node22's Node).
// Two members join through ConsumerGroupHeartbeat and split the topic's partitions; the coordinator, not a client,
// computes the assignment; every record is consumed; ConsumerGroupDescribe and ListGroups v5 show the group
// as a consumer-protocol group. When partitions are added, the coordinator notices the metadata change itself and
// hands the new partitions out at the members' next heartbeats: no client-side metadata refresh is involved.
// Debian's librdkafka 2.0.2 and kafkajs predate KIP-848, and no Java is installed; this client is the one
// available.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NODE22, node22Tool } from '../node22-tools.ts';
import { ask, eventually, type WireServer, wireServer } from './fixture.ts';

const GROUP = 'kip848-orders';
const TOPIC = 'orders';
const CLIENT = join(import.meta.dirname, 'clients/platformatic-consumer.mjs');

interface Member {
  child: ChildProcessWithoutNullStreams;
  assignment: string[];
  records: { record: string; partition: number; offset: string }[];
  errors: string[];
  exited: boolean;
}

let s: WireServer;
let lib: string;
const members: Member[] = [];

beforeAll(async () => {
  lib = join(node22Tool('platformatic-kafka'), '@platformatic/kafka/dist/index.js');
  s = await wireServer(
    {
      seed: 21,
      brokers: 3,
      // A 1 s heartbeat (Kafka's default is 5 s) keeps the test short; the interval is the coordinator's to set.
      serverProperties: {
        'group.consumer.heartbeat.interval.ms': '1000',
        'group.consumer.min.heartbeat.interval.ms': '1000',
      },
    },
    1,
  );
  const r = await s.http('POST', `/v3/clusters/${s.clusterId}/topics`, {
    topic_name: TOPIC,
    partitions_count: 2,
    replication_factor: 3,
  });
  expect(r.status).toBe(201);
}, 240_000);

afterAll(async () => {
  for (const m of members) if (!m.exited) m.child.kill('SIGKILL');
  await s?.close();
});

function startMember(clientId: string): Member {
  const child = spawn(NODE22, [CLIENT, lib, s.bootstrap.join(','), GROUP, TOPIC, clientId], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const m: Member = { child, assignment: [], records: [], errors: [], exited: false };
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i = buf.indexOf('\n');
    while (i >= 0) {
      const line = JSON.parse(buf.slice(0, i)) as Record<string, unknown>;
      buf = buf.slice(i + 1);
      if (line.assignment) m.assignment = line.assignment as string[];
      if (line.record !== undefined) m.records.push(line as unknown as Member['records'][number]);
      if (line.error) m.errors.push(String(line.error));
      i = buf.indexOf('\n');
    }
  });
  child.stderr.on('data', (d: Buffer) => m.errors.push(d.toString()));
  child.on('exit', () => {
    m.exited = true;
  });
  members.push(m);
  return m;
}

const portOf = (addr: string) => Number(addr.split(':')[1]);

/** The group coordinator's port: FindCoordinator v3 for the group. */
async function coordinatorPort(group = GROUP): Promise<number> {
  const r = await ask(portOf(s.bootstrap[0]!), 10, 3, { key: group, keyType: 0 });
  expect(r.errorCode).toBe(0);
  return r.port as number;
}

interface Described {
  errorCode: number;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: {
    memberId: string;
    memberEpoch: number;
    clientId: string;
    subscribedTopicNames: string[];
    assignment: { topicPartitions: { topicName: string; partitions: number[] }[] };
    targetAssignment: { topicPartitions: { topicName: string; partitions: number[] }[] };
  }[];
}

async function describe(): Promise<Described> {
  const r = await ask(await coordinatorPort(), 69, 0, {
    groupIds: [GROUP],
    includeAuthorizedOperations: false,
  });
  return (r.groups as Described[])[0]!;
}

const partitionsOf = (a: Described['members'][number]['assignment']) =>
  a.topicPartitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topicName}-${p}`)).sort();

async function produce(partitions: number[], perPartition: number, tag: string): Promise<void> {
  const kafka = new Kafka({ clientId: 'kip848-producer', brokers: s.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({
    topic: TOPIC,
    acks: -1,
    messages: partitions.flatMap((partition) =>
      Array.from({ length: perPartition }, (_, i) => ({ partition, value: `${tag}-${partition}-${i}` })),
    ),
  });
  await producer.disconnect();
}

const consumed = () => members.flatMap((m) => m.records.map((r) => r.record));
/** What the members reported going wrong (in failure messages). */
const clientErrors = () =>
  members
    .flatMap((m) => m.errors)
    .join(' | ')
    .slice(0, 2000);

it('two members split the partitions by the coordinator’s assignment and consume every record', async () => {
  const a = startMember('member-a');
  const b = startMember('member-b');
  await eventually(
    () => a.assignment.length === 1 && b.assignment.length === 1,
    60_000,
    `both members assigned (a: ${a.assignment}, b: ${b.assignment}; errors: ${[...a.errors, ...b.errors]})`,
  );
  expect([...a.assignment, ...b.assignment].sort()).toEqual(['orders-0', 'orders-1']);

  await produce([0, 1], 10, 'first');
  const distinct = () => [...new Set(consumed())].sort();
  await eventually(
    () => distinct().length >= 20,
    60_000,
    `20 records consumed (got ${distinct().length}; errors: ${clientErrors()})`,
  );
  expect(distinct()).toEqual(
    [0, 1].flatMap((p) => Array.from({ length: 10 }, (_, i) => `first-${p}-${i}`)).sort(),
  );

  const g = await describe();
  expect(g.errorCode).toBe(0);
  expect(g.groupState).toBe('Stable');
  expect(g.assignorName).toBe('uniform');
  expect(g.assignmentEpoch).toBe(g.groupEpoch);
  expect(g.members.map((m) => m.clientId).sort()).toEqual(['member-a', 'member-b']);
  for (const m of g.members) {
    expect(m.memberEpoch).toBe(g.groupEpoch);
    expect(m.subscribedTopicNames).toEqual([TOPIC]);
    expect(partitionsOf(m.assignment)).toEqual(partitionsOf(m.targetAssignment));
    expect(partitionsOf(m.assignment)).toHaveLength(1);
  }

  // ListGroups v5 names the group's type; the filter keeps consumer-protocol groups only.
  const listed = await ask(await coordinatorPort(), 16, 5, { statesFilter: [], typesFilter: ['consumer'] });
  expect(listed.groups).toContainEqual({
    groupId: GROUP,
    protocolType: 'consumer',
    groupState: 'Stable',
    groupType: 'consumer',
  });
  const classicOnly = await ask(await coordinatorPort(), 16, 5, {
    statesFilter: [],
    typesFilter: ['classic'],
  });
  expect((classicOnly.groups as { groupId: string }[]).map((x) => x.groupId)).not.toContain(GROUP);
}, 150_000);

it('partitions added to the topic reach the members through the coordinator, at a heartbeat', async () => {
  const [a, b] = members as [Member, Member];
  const before = await describe();
  const r = await s.http('PATCH', `/v3/clusters/${s.clusterId}/topics/${TOPIC}`, { partitions_count: 4 });
  expect(r.status).toBe(200);
  await eventually(
    () => a.assignment.length + b.assignment.length === 4,
    30_000,
    `the four partitions assigned (a: ${a.assignment}, b: ${b.assignment}; errors: ${clientErrors()})`,
  );
  expect([...a.assignment, ...b.assignment].sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
  // Uniform keeps what each member had and gives each one new partition: nobody lost a partition.
  expect(a.assignment).toHaveLength(2);
  expect(b.assignment).toHaveLength(2);
  const after = await describe();
  expect(after.groupEpoch).toBeGreaterThan(before.groupEpoch);

  await produce([2, 3], 5, 'second');
  const distinct = () => [...new Set(consumed())].sort();
  await eventually(
    () => distinct().length >= 30,
    60_000,
    `30 records consumed (got ${distinct().length}; errors: ${clientErrors()})`,
  );
  expect(distinct().filter((x) => x.startsWith('second-'))).toEqual(
    [2, 3].flatMap((p) => Array.from({ length: 5 }, (_, i) => `second-${p}-${i}`)).sort(),
  );
  expect(distinct()).toHaveLength(30);
}, 120_000);

it('a member that leaves hands its partitions to the other, and ConsumerGroupDescribe says who has what', async () => {
  const [a, b] = members as [Member, Member];
  a.child.stdin.end();
  await eventually(() => a.exited, 30_000, 'member-a closed');
  await eventually(
    () => b.assignment.length === 4,
    30_000,
    `member-b has all four (b: ${b.assignment}; errors: ${clientErrors()})`,
  );
  const g = await describe();
  expect(g.members.map((m) => m.clientId)).toEqual(['member-b']);
  expect(partitionsOf(g.members[0]!.assignment)).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
  // An unknown group: GROUP_ID_NOT_FOUND (69), as Kafka answers.
  const unknown = await ask(await coordinatorPort('nobody'), 69, 0, {
    groupIds: ['nobody'],
    includeAuthorizedOperations: false,
  });
  expect((unknown.groups as Described[])[0]!.errorCode).toBe(69);
}, 90_000);
