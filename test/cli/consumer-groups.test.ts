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

/** A POST to the server's API, as a client of it would send one. */
const post = (path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

describe('kafkasim consumer-groups', () => {
  it('describes a group as kafka-consumer-groups.sh does (offsets, --state, --members)', async () => {
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

  it("a consumer-protocol (KIP-848) group prints in Kafka 4.x's layout: epochs and target assignments", async () => {
    await main(
      ['topics', '--create', '--topic', 'kt', '--partitions', '4', '--bootstrap-server', server.url],
      bufferIO(),
    );
    for (const name of ['k1', 'k2'])
      await post('/sim/workloads', {
        kind: 'consumer',
        name,
        topic: 'kt',
        group: 'kgrp',
        group_protocol: 'consumer',
      });
    await post('/sim/advance', { duration: '20s' });
    const view = consumerGroupView(server.host.world, 'kgrp');
    expect(view.type).toBe('consumer');

    const state = await groups('--describe', '--group', 'kgrp', '--state', '--verbose');
    expect(state.code).toBe(0);
    const [, header, row] = state.out.split('\n');
    expect(header).toMatch(
      /^GROUP +COORDINATOR \(ID\) +ASSIGNMENT-STRATEGY +STATE +GROUP-EPOCH +TARGET-ASSIGNMENT-EPOCH +#MEMBERS$/,
    );
    const m = /^kgrp +localhost:\d+ +\(\d\) +uniform +Stable +(\d+) +(\d+) +2$/.exec(row ?? '');
    expect(m, row).not.toBeNull();
    expect(Number(m![1])).toBe(view.groupEpoch);
    expect(Number(m![2])).toBe(view.targetAssignmentEpoch);

    const members = await groups('--describe', '--group', 'kgrp', '--members', '--verbose');
    const lines = members.out.split('\n');
    expect(lines[1]).toMatch(
      /#PARTITIONS +CURRENT-EPOCH +CURRENT-ASSIGNMENT +TARGET-EPOCH +TARGET-ASSIGNMENT +$/,
    );
    const rows = lines.filter((l) => l.startsWith('kgrp '));
    expect(rows).toHaveLength(2);
    const owned: string[] = [];
    for (const r of rows) {
      // Reconciled: each member owns its target, at the target's epoch.
      const cells = r.trim().split(/ +/);
      const [count, epoch, current, targetEpoch, target] = cells.slice(-5);
      expect(current, r).toBe(target);
      expect(Number(epoch)).toBe(view.targetAssignmentEpoch);
      expect(Number(targetEpoch)).toBe(view.targetAssignmentEpoch);
      const partitions = current!.replace(/^kt:/, '').split(',');
      expect(partitions).toHaveLength(Number(count));
      owned.push(...partitions);
    }
    expect(owned.sort()).toEqual(['0', '1', '2', '3']);
    // The offsets view is 4.x's too: rows sorted by partition within each member.
    const offsets = await groups('--describe', '--group', 'kgrp');
    expect(offsets.out.split('\n').filter((l) => l.startsWith('kgrp '))).toHaveLength(4);
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
      [
        ['--describe', '--group', 'g', '--verbose'],
        /\[verbose\] can only be used with \[members\] or \[state\]/,
      ],
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
