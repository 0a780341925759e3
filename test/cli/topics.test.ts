// `kafkasim topics` against a real server listening on loopback: kafka-topics.sh's output, byte for byte.
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

let server: RunningServer;
beforeAll(async () => {
  // Paused: the clock moves only with the admin calls themselves, so describe output stays put.
  server = await startServer({ world: { seed: 12, brokers: 3 }, pacer: { paused: true }, port: 0 });
});
afterAll(async () => {
  await server.close();
});

async function topics(...args: string[]) {
  const io = bufferIO();
  const code = await main(['topics', '--bootstrap-server', server.url, ...args], io);
  return { code, out: io.text(), err: io.errors() };
}

describe('kafkasim topics', () => {
  it('--create prints "Created topic"; the topic exists with the asked shape', async () => {
    const r = await topics(
      '--create',
      '--topic',
      'orders',
      '--partitions',
      '6',
      '--replication-factor',
      '2',
      '--config',
      'cleanup.policy=compact',
    );
    expect(r).toEqual({ code: 0, out: 'Created topic orders.\n', err: '' });
    const t = server.host.cluster.image.topics.orders!;
    expect(t.partitions).toHaveLength(6);
    expect(t.partitions.every((p) => p.replicas.length === 2)).toBe(true);
    expect(server.host.cluster.image.configs.topic.orders).toEqual({ 'cleanup.policy': 'compact' });
  });

  it('--create warns about a name with . or _ as the tool does; --replica-assignment places replicas', async () => {
    const r = await topics('--create', '--topic', 'a.b', '--replica-assignment', '2:0,0:1');
    expect(r.out).toBe(
      "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\nCreated topic a.b.\n",
    );
    expect(server.host.cluster.image.topics['a.b']!.partitions.map((p) => p.replicas)).toEqual([
      [2, 0],
      [0, 1],
    ]);
  });

  it('an existing topic is an error, unless --if-not-exists', async () => {
    await topics('--create', '--topic', 'dup', '--partitions', '1');
    expect(await topics('--create', '--topic', 'dup')).toEqual({
      code: 1,
      out: "Error while executing topic command : Topic 'dup' already exists.\n",
      err: '',
    });
    expect(await topics('--create', '--topic', 'dup', '--if-not-exists')).toEqual({
      code: 0,
      out: '',
      err: '',
    });
  });

  it('--describe prints what kafka-topics.sh --describe prints', async () => {
    await topics('--create', '--topic', 'desc', '--partitions', '3', '--replication-factor', '3');
    const r = await topics('--describe', '--topic', 'desc');
    expect(r.code).toBe(0);
    expect(r.out).toBe(server.host.cluster.describeTopic('desc'));
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(
      /^Topic: desc\tTopicId: [\w-]{22}\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: segment\.bytes=1073741824$/,
    );
    expect(lines[1]).toMatch(/^\tTopic: desc\tPartition: 0\tLeader: \d\tReplicas: \d,\d,\d\tIsr: \d,\d,\d$/);
  });

  it('--describe without --topic describes every topic in name order; --topic is a regular expression', async () => {
    const all = await topics('--describe');
    const names = Object.keys(server.host.cluster.image.topics).sort();
    expect(all.out).toBe(names.map((n) => server.host.cluster.describeTopic(n)).join(''));
    const some = await topics('--describe', '--topic', 'd.*');
    expect(some.out).toBe(['desc', 'dup'].map((n) => server.host.cluster.describeTopic(n)).join(''));
  });

  it('a missing topic: "does not exist as expected", exit 1; --if-exists prints nothing', async () => {
    expect(await topics('--describe', '--topic', 'nope')).toEqual({
      code: 1,
      out: "Error while executing topic command : Topic 'nope' does not exist as expected\n",
      err: '',
    });
    expect(await topics('--describe', '--topic', 'nope', '--if-exists')).toEqual({
      code: 0,
      out: '',
      err: '',
    });
    expect((await topics('--delete', '--topic', 'nope')).code).toBe(1);
  });

  it('--alter --partitions adds partitions and prints nothing; a decrease prints the error', async () => {
    await topics('--create', '--topic', 'grow', '--partitions', '2');
    expect(await topics('--alter', '--topic', 'grow', '--partitions', '8')).toEqual({
      code: 0,
      out: '',
      err: '',
    });
    expect(server.host.cluster.image.topics.grow!.partitions).toHaveLength(8);
    expect(await topics('--alter', '--topic', 'grow', '--partitions', '4')).toEqual({
      code: 1,
      out: 'Error while executing topic command : The topic grow currently has 8 partition(s); 4 would not be an increase.\n',
      err: '',
    });
  });

  it('--list prints the names sorted, --delete removes', async () => {
    await topics('--create', '--topic', 'zz-gone', '--partitions', '1');
    const names = Object.keys(server.host.cluster.image.topics).sort();
    expect((await topics('--list')).out).toBe(`${names.join('\n')}\n`);
    expect(await topics('--delete', '--topic', 'zz-gone')).toEqual({ code: 0, out: '', err: '' });
    expect(server.host.cluster.image.topics['zz-gone']).toBeUndefined();
    expect((await topics('--list', '--topic', 'zz.*')).out).toBe('\n');
  });

  it('--describe --under-replicated-partitions prints only those partitions', async () => {
    await topics('--create', '--topic', 'urp', '--replica-assignment', '0:1,1:2');
    await fetch(`${server.url}/sim/faults/crash-broker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"broker_id":2}',
    });
    await fetch(`${server.url}/sim/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"duration":"40s"}',
    });
    const r = await topics('--describe', '--topic', 'urp', '--under-replicated-partitions');
    expect(r.out).toBe('\tTopic: urp\tPartition: 1\tLeader: 1\tReplicas: 1,2\tIsr: 1\n');
    await fetch(`${server.url}/sim/faults/restart-broker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"broker_id":2}',
    });
  });

  it('bad flags exit 2 with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['--list', '--bogus'], /--bogus is not a recognized option/],
      [['--list', '--describe'], /exactly one action/],
      [['--create'], /Missing required argument "\[topic\]"/],
      [['--create', '--topic', 'x', '--partitions', 'many'], /--partitions expects a whole number/],
      [['--alter', '--topic', 'x'], /--alter needs --partitions/],
      [['--create', '--topic', 'x', '--config', 'novalue'], /expected key=value/],
    ];
    for (const [args, message] of cases) {
      const r = await topics(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).toMatch(/^kafkasim topics: /);
    }
    const io = bufferIO();
    expect(await main(['topics', '--list'], io)).toBe(2);
    expect(io.errors()).toMatch(/Missing required argument "\[bootstrap-server\]"/);
  });

  it('an unreachable server is exit 1 with the address', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const io = bufferIO();
    expect(await main(['topics', '--bootstrap-server', `127.0.0.1:${port}`, '--list'], io)).toBe(1);
    expect(io.errors()).toBe(
      `kafkasim topics: cannot reach kafkasim at http://127.0.0.1:${port}: ECONNREFUSED\n`,
    );
  });
});
