// `kafkasim producer-perf-test` against a real server on loopback, paced at max speed: the tool's progress and
// summary lines stream as virtual time passes, and every record is in the simulated cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    world: { seed: 6, brokers: 3, storage: 'shared' },
    pacer: { speed: 'max' },
    port: 0,
  });
  const io = bufferIO();
  await main(
    ['topics', '--create', '--topic', 'perf', '--partitions', '8', '--bootstrap-server', server.url],
    io,
  );
});
afterAll(async () => {
  await server.close();
});

// The server's cluster is AutoMQ's (shared storage): its tool stamps each window line with the window's start.
const WINDOW =
  /^\[2026-01-01 \d\d:\d\d:\d\d,\d{3}\] \d+ records sent, \d+\.\d records\/sec \(\d+\.\d\d MB\/sec\), \d+\.\d ms avg latency, \d+\.\d ms max latency\.$/;
const TOTAL =
  /^40960 records sent, \d+\.\d{6} records\/sec \(\d+\.\d\d MB\/sec\), \d+\.\d\d ms avg latency, \d+\.\d\d ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.$/;

describe('kafkasim producer-perf-test', () => {
  it("runs with the source workflow's flags and prints the tool's lines", async () => {
    const io = bufferIO();
    const code = await main(
      [
        'producer-perf-test',
        '--topic',
        'perf',
        '--num-records=40960',
        '--throughput',
        '5120',
        '--record-size',
        '1024',
        '--producer-props',
        `bootstrap.servers=${server.url}`,
        'acks=all',
      ],
      io,
    );
    expect(code).toBe(0);
    const lines = io.text().trimEnd().split('\n');
    // 8 s of work at 5120 records/s: one window line per 5 s, then the summary.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines.slice(0, -1)) expect(l).toMatch(WINDOW);
    expect(lines.at(-1)).toMatch(TOTAL);
    const rate = Number(/(\d+\.\d+) records\/sec/.exec(lines.at(-1)!)![1]);
    expect(rate).toBeGreaterThan(5000);
    expect(rate).toBeLessThanOrEqual(5121);
    expect(server.host.cluster.deliveryReport('perf-producer')).toMatchObject({
      acknowledged: 40960,
      lost: 0,
      duplicated: 0,
    });
  });

  it('takes --bootstrap-server too; an unknown topic is an error from the server', async () => {
    const io = bufferIO();
    const code = await main(
      [
        'producer-perf-test',
        '--bootstrap-server',
        server.url,
        '--topic',
        'none',
        '--num-records',
        '10',
        '--throughput',
        '-1',
        '--record-size',
        '10',
      ],
      io,
    );
    expect(code).toBe(1);
    expect(io.errors()).toBe(
      'kafkasim producer-perf-test: This server does not host this topic-partition.\n',
    );
  });

  it('bad flags exit 2', async () => {
    const base = [
      '--topic',
      'perf',
      '--num-records',
      '10',
      '--throughput',
      '10',
      '--record-size',
      '10',
      '--bootstrap-server',
      server.url,
    ];
    const cases: [string[], RegExp][] = [
      [base.filter((_, i) => i > 1), /--topic is required/],
      [[...base.slice(0, 2), ...base.slice(4)], /--num-records is required/],
      [
        [
          '--topic',
          'perf',
          '--num-records',
          '10',
          '--throughput',
          'fast',
          '--record-size',
          '10',
          '--bootstrap-server',
          server.url,
        ],
        /--throughput is required/,
      ],
      [['--topic', 'perf', '--num-records', '10', '--throughput', '10', '--record-size', '10'], /bootstrap/],
      [[...base, '--payload-file', 'x'], /not supported/],
      [[...base, '--producer-props', 'novalue'], /expected key=value/],
      [[...base, '--nope'], /--nope is not a recognized option/],
    ];
    for (const [args, message] of cases) {
      const io = bufferIO();
      expect(await main(['producer-perf-test', ...args], io), args.join(' ')).toBe(2);
      expect(io.errors()).toMatch(message);
    }
  });
});
