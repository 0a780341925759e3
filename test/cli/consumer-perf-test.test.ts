// `kafkasim consumer-perf-test` against a real server on loopback, paced at max speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

let server: RunningServer;
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  server = await startServer({ world: { seed: 9, brokers: 3 }, pacer: { speed: 'max' }, port: 0 });
  const io = bufferIO();
  await main(
    ['topics', '--create', '--topic', 'cp', '--partitions', '4', '--bootstrap-server', server.url],
    io,
  );
  // 20,000 records already in the log.
  await post('/sim/workloads', {
    kind: 'producer',
    name: 'preload',
    topic: 'cp',
    rate: 10_000,
    records: 20_000,
    record_size: 512,
  });
  await post('/sim/advance', { until: { workload_done: 'preload' }, timeout: '60s' });
});
afterAll(async () => {
  await server.close();
});

const DATE = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d:\\d{3}';

describe('kafkasim consumer-perf-test', () => {
  it('prints the header and the summary row', async () => {
    const io = bufferIO();
    const code = await main(
      ['consumer-perf-test', '--bootstrap-server', server.url, '--topic', 'cp', '--messages', '20000'],
      io,
    );
    expect(code).toBe(0);
    const lines = io.text().trimEnd().split('\n');
    expect(lines[0]).toBe(
      'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${DATE}, ${DATE}, \\d+\\.\\d{4}, \\d+\\.\\d{4}, 20000, \\d+\\.\\d{4}, \\d+, \\d+, \\d+\\.\\d{4}, \\d+\\.\\d{4}$`,
      ),
    );
  });

  it("with the source workflow's flags, prints a row per reporting interval while records arrive", async () => {
    await main(
      ['topics', '--create', '--topic', 'cp2', '--partitions', '4', '--bootstrap-server', server.url],
      bufferIO(),
    );
    // The server runs at max speed, and this test sets things up in wall time, so it drives the clock itself:
    // paused, then 5 s for the consumer to join (the group's 3 s initial delay) before the producer starts, then
    // until the consumer is done. Left to the pacer, either race broke the test: the producer started within the
    // join (the consumer caught up in one interval: one row), or 300 s passed first (the consumer timed out).
    const clock = async (action: 'pause' | 'resume') =>
      expect(
        (
          await fetch(`${server.url}/sim/${action}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBe(200);
    await clock('pause');
    const io = bufferIO();
    const running = main(
      [
        'consumer-perf-test',
        '--topic',
        'cp2',
        '--show-detailed-stats',
        '--timeout',
        '300000',
        '--messages=8000',
        '--reporting-interval',
        '1000',
        `--bootstrap-server=${server.url}`,
      ],
      io,
    );
    // The producer starts once the perf consumer runs: 8,000 records over 4 s of virtual time.
    for (;;) {
      const list = (await (await fetch(`${server.url}/sim/workloads`)).json()) as {
        data: { kind: string; topic: string }[];
      };
      if (list.data.some((w) => w.kind === 'consumer-perf' && w.topic === 'cp2')) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await post('/sim/advance', { duration: '5s' });
    await post('/sim/workloads', {
      kind: 'producer',
      name: 'live',
      topic: 'cp2',
      rate: 2_000,
      records: 8_000,
      record_size: 1024,
    });
    const advanced = (await (
      await post('/sim/advance', { until: { workload_done: 'perf-consumer-2' }, timeout: '120s' })
    ).json()) as { met: boolean };
    await clock('resume');
    expect(advanced.met).toBe(true);
    expect(await running).toBe(0);
    const lines = io.text().trimEnd().split('\n');
    expect(lines[0]).toBe(
      'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const l of lines.slice(1))
      expect(l).toMatch(
        new RegExp(
          `^${DATE}, 0, \\d+\\.\\d{4}, \\d+\\.\\d{4}, \\d+, \\d+\\.\\d{4}, \\d+, \\d+, \\d+\\.\\d{4}, \\d+\\.\\d{4}$`,
        ),
      );
    // After the first row (which includes joining the group: rebalance.time.ms), rows come once per reporting
    // interval of virtual time, about 2,000 records apart, with fetch.time.ms the whole interval.
    const rows = lines.slice(1).map((l) => l.split(', '));
    expect(Number(rows[0]![6])).toBeGreaterThan(0);
    for (let i = 2; i < rows.length; i++) {
      expect(Number(rows[i]![4]) - Number(rows[i - 1]![4])).toBeGreaterThan(1500);
      // A row is due at the first record at or after the interval's end, so the interval is 1000 ms or a hair
      // more (records arrive every ~0.5 ms; where the paced server applied the request shifts the phase).
      expect(Number(rows[i]![7])).toBeGreaterThanOrEqual(1000);
      expect(Number(rows[i]![7])).toBeLessThanOrEqual(1010);
    }
    // Rows stop at the last full interval; the run itself read all 8,000 records.
    const perf = server.host.world.workloads
      .list()
      .find((w) => w.kind === 'consumer-perf' && w.topic === 'cp2')!;
    expect(perf.view()).toMatchObject({ state: 'done', stats: { consumed: 8000 } });
  });

  it('stops after --timeout without records and says so', async () => {
    const io = bufferIO();
    const code = await main(
      [
        'consumer-perf-test',
        '--bootstrap-server',
        server.url,
        '--topic',
        'cp',
        '--messages',
        '5',
        '--from-latest',
        '--timeout',
        '2000',
        '--hide-header',
      ],
      io,
    );
    expect(code).toBe(0);
    const lines = io.text().trimEnd().split('\n');
    expect(lines[0]).toBe(
      'WARNING: Exiting before consuming the expected number of messages: timeout (2000 ms) exceeded. You can use the --timeout option to increase the timeout.',
    );
    expect(lines[1]).toMatch(new RegExp(`^${DATE}, ${DATE}, 0\\.0000, 0\\.0000, 0, 0\\.0000, 0, \\d+, `));
  });

  it('bad flags exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--topic', 'cp', '--messages', '1'], /bootstrap-server/],
      [['--bootstrap-server', server.url, '--messages', '1'], /\[topic\]/],
      [['--bootstrap-server', server.url, '--topic', 'cp'], /\[messages\]/],
      [['--bootstrap-server', server.url, '--topic', 'cp', '--messages', 'x'], /whole number/],
      [
        ['--bootstrap-server', server.url, '--topic', 'cp', '--messages', '1', '--date-format', 'yyyy'],
        /date-format/,
      ],
    ];
    for (const [args, message] of cases) {
      const io = bufferIO();
      expect(await main(['consumer-perf-test', ...args], io), args.join(' ')).toBe(2);
      expect(io.errors()).toMatch(message);
    }
  });
});
