// `kafkasim consumer-groups` against a real server on loopback: kafka-consumer-groups.sh's output for a live
// group, and flag handling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';
import { consumerGroupView } from '../../src/api/sim/state.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { formatConsumerGroupOffsets } from '../../src/format/index.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ world: { seed: 2, brokers: 3 }, pacer: { paused: true }, port: 0 });
});
afterAll(async () => {
  await server.close();
});

async function groups(...args: string[]) {
  const io = bufferIO();
  const code = await main(['consumer-groups', '--bootstrap-server', server.url, ...args], io);
  return { code, out: io.text(), err: io.errors() };
}

describe('kafkasim consumer-groups', () => {
  it('describes a group as kafka-consumer-groups.sh does (offsets, --state, --members)', async () => {
    const post = (path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    await main(
      ['topics', '--create', '--topic', 'gt', '--partitions', '4', '--bootstrap-server', server.url],
      bufferIO(),
    );
    await post('/sim/workloads', {
      kind: 'producer',
      name: 'load',
      topic: 'gt',
      rate: 500,
      record_size: 100,
    });
    await post('/sim/workloads', { kind: 'consumer', name: 'c1', topic: 'gt', group: 'grp' });
    await post('/sim/workloads', { kind: 'consumer', name: 'c2', topic: 'gt', group: 'grp' });
    await post('/sim/advance', { duration: '20s' });
    await post('/sim/workloads/load/stop');
    await post('/sim/advance', { duration: '10s' });

    const r = await groups('--describe', '--group', 'grp');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toBe(formatConsumerGroupOffsets(consumerGroupView(server.host.world, 'grp')).stdout);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('');
    expect(lines[1]).toMatch(
      /^GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\s+HOST\s+CLIENT-ID$/,
    );
    expect(
      lines
        .slice(2, 6)
        .every((l) =>
          /^grp\s+gt\s+\d\s+\d+\s+\d+\s+0\s+consumer-grp-\d-[\w-]+\s+\/127\.0\.0\.1\s+consumer-grp-\d$/.test(
            l,
          ),
        ),
    ).toBe(true);
    // The same rows the model's own admin path (FindCoordinator, DescribeGroups, OffsetFetch, ListOffsets) sees.
    expect(r.out).toBe(formatConsumerGroupOffsets(server.host.cluster.groupView('grp')).stdout);

    const state = await groups('--describe', '--group', 'grp', '--state');
    expect(state.out).toMatch(
      /^\nGROUP\s+COORDINATOR \(ID\)\s+ASSIGNMENT-STRATEGY\s+STATE\s+#MEMBERS\ngrp\s+localhost:\d+\s+\(\d\)\s+range\s+Stable\s+2\n$/,
    );
    const members = await groups('--describe', '--group', 'grp', '--members', '--verbose');
    expect(members.out.split('\n').filter((l) => l.startsWith('grp '))).toHaveLength(2);
    expect(members.out).toMatch(/ASSIGNMENT\n/);
    expect((await groups('--list')).out).toBe('grp\n');
  });

  it('an unknown group: the tool\'s "does not exist" line', async () => {
    expect(await groups('--describe', '--group', 'nobody')).toEqual({
      code: 0,
      out: "\nError: Consumer group 'nobody' does not exist.\n",
      err: '',
    });
  });

  it('bad flags exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--describe'], /takes one of these options: \[all-groups\], \[group\]/],
      [['--describe', '--group', 'g', '--state', '--members'], /at most one of these options/],
      [['--describe', '--group', 'g', '--verbose'], /\[verbose\] can only be used with \[members\]/],
      [['--list', '--describe'], /exactly one action/],
      [['--describe', '--grup', 'g'], /--grup is not a recognized option/],
    ];
    for (const [args, message] of cases) {
      const r = await groups(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    }
  });
});
