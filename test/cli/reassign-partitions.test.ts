// `kafkasim reassign-partitions` against a real server on loopback: --execute, --verify and --list print what
// kafka-reassign-partitions.sh prints, and the moves happen in the simulation.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { CANNOT_EXECUTE_BECAUSE_OF_EXISTING } from '../../src/cli/reassign-partitions.ts';
import { formatExecute, formatReassignmentJson } from '../../src/format/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kafkasim-reassign-'));
const file = (name: string, json: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
  return path;
};

let server: RunningServer;
async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(['reassign-partitions', '--bootstrap-server', server.url, ...args], io);
  return { code, out: io.text(), err: io.errors() };
}
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('kafkasim reassign-partitions (kafka storage)', () => {
  beforeAll(async () => {
    server = await startServer({ world: { seed: 8, brokers: 3 }, pacer: { paused: true }, port: 0 });
    const cid = server.host.world.clusterId;
    await post(`/v3/clusters/${cid}/topics`, {
      topic_name: 'mv',
      replicas_assignments: [
        { partition_id: 0, broker_ids: [0] },
        { partition_id: 1, broker_ids: [1] },
      ],
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('--execute prints the rollback JSON and starts the moves; --verify follows them to the end', async () => {
    const move = file('move.json', {
      version: 1,
      partitions: [
        { topic: 'mv', partition: 0, replicas: [2] },
        { topic: 'mv', partition: 1, replicas: [1, 2] },
      ],
    });
    const r = await run('--reassignment-json-file', move, '--execute');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      formatExecute(
        [
          { topic: 'mv', partition: 0, replicas: [0] },
          { topic: 'mv', partition: 1, replicas: [1] },
        ],
        [
          { topic: 'mv', partition: 0 },
          { topic: 'mv', partition: 1 },
        ],
      ),
    );
    expect(r.out).toContain(
      `Current partition replica assignment\n\n${formatReassignmentJson([
        { topic: 'mv', partition: 0, replicas: [0] },
        { topic: 'mv', partition: 1, replicas: [1] },
      ])}\n`,
    );
    expect(r.out.endsWith('Successfully started partition reassignments for mv-0,mv-1\n')).toBe(true);

    const again = await run('--reassignment-json-file', move, '--execute');
    expect(again).toEqual({ code: 1, out: `${CANNOT_EXECUTE_BECAUSE_OF_EXISTING}\n`, err: '' });

    const list = await run('--list');
    expect(list.out).toBe(
      'Current partition reassignments:\nmv-0: replicas: 2,0. adding: 2. removing: 0.\nmv-1: replicas: 1,2. adding: 2.\n',
    );

    const during = await run('--reassignment-json-file', move, '--verify');
    expect(during.out).toBe(
      'Status of partition reassignment:\nReassignment of partition mv-0 is still in progress.\nReassignment of partition mv-1 is still in progress.\n\n',
    );
    await post('/sim/advance', { until: { reassignments_done: true }, timeout: '60s' });
    const after = await run('--reassignment-json-file', move, '--verify');
    expect(after.out).toBe(
      'Status of partition reassignment:\nReassignment of partition mv-0 is completed.\nReassignment of partition mv-1 is completed.\n\n' +
        'Clearing broker-level throttles on brokers 0,1,2\nClearing topic-level throttles on topic mv\n',
    );
    expect(server.host.cluster.image.topics.mv!.partitions.map((p) => p.replicas)).toEqual([[2], [1, 2]]);
    expect((await run('--list')).out).toBe('No partition reassignments found.\n');
  });

  it('fails as the tool does: unknown broker, missing file, bad JSON, unknown partition', async () => {
    expect(
      await run(
        '--reassignment-json-file',
        file('b.json', { version: 1, partitions: [{ topic: 'mv', partition: 0, replicas: [9] }] }),
        '--execute',
      ),
    ).toEqual({
      code: 1,
      out: 'Error: Unknown broker id 9\n',
      err: '',
    });
    expect(await run('--reassignment-json-file', join(dir, 'none.json'), '--execute')).toEqual({
      code: 1,
      out: `Error: ${join(dir, 'none.json')} (No such file or directory)\n`,
      err: '',
    });
    const empty = await run(
      '--reassignment-json-file',
      file('e.json', '{"version":1,"partitions":[]}'),
      '--execute',
    );
    expect(empty).toEqual({ code: 1, out: 'Error: Partition reassignment list cannot be empty\n', err: '' });
    const missing = await run(
      '--reassignment-json-file',
      file('m.json', { version: 1, partitions: [{ topic: 'mv', partition: 7, replicas: [1] }] }),
      '--execute',
    );
    expect(missing.out).toBe(
      'Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Unable to find partition: mv-7\n',
    );
    const noTopic = await run(
      '--reassignment-json-file',
      file('n.json', { version: 1, partitions: [{ topic: 'zz', partition: 0, replicas: [1] }] }),
      '--execute',
    );
    expect(noTopic.out).toBe(
      'Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic zz not found.\n',
    );
  });

  it('bad flags exit 2', async () => {
    for (const args of [
      ['--execute'],
      ['--execute', '--verify', '--reassignment-json-file', 'x'],
      ['--generate'],
      ['--list', '--nope'],
    ]) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/^kafkasim reassign-partitions: /);
    }
  });
});

describe('kafkasim reassign-partitions (shared storage, workflow A1 steps 1-3)', () => {
  beforeAll(async () => {
    server = await startServer({
      world: { seed: 1, brokers: 2, firstBrokerId: 1, storage: 'shared' },
      pacer: { speed: 'max' },
      port: 0,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('moves every partition to broker 2, as the AutoMQ example does', async () => {
    const topic = 'continuous-self-balancing-topic';
    const io = bufferIO();
    expect(
      await main(
        ['topics', '--partitions', '8', '--create', '--topic', topic, '--bootstrap-server', server.url],
        io,
      ),
    ).toBe(0);
    const move = file('a1.json', {
      partitions: Array.from({ length: 8 }, (_, p) => ({ topic, partition: p, replicas: [2] })),
      version: 1,
    });
    const r = await run('--reassignment-json-file', move, '--execute');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /Successfully started partition reassignments for continuous-self-balancing-topic-0,.*continuous-self-balancing-topic-7\n$/,
    );
    await post('/sim/advance', { until: { partitions_led_by: { topic, broker: 2 } }, timeout: '30s' });
    const d = bufferIO();
    await main(['topics', '--topic', topic, '--describe', '--bootstrap-server', server.url], d);
    const lines = d.text().split('\n');
    expect(lines[0]).toMatch(
      /^Topic: continuous-self-balancing-topic\tTopicId: [\w-]{22}\tPartitionCount: 8\tReplicationFactor: 1\tConfigs: min\.insync\.replicas=1,segment\.bytes=1073741824$/,
    );
    for (let p = 0; p < 8; p++)
      expect(lines[p + 1]).toBe(`\tTopic: ${topic}\tPartition: ${p}\tLeader: 2\tReplicas: 2\tIsr: 2`);
  });
});
