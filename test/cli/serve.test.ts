// `kafkasim serve` as a real process: it listens on loopback, serves the API, pays attention to --token, writes
// the request log and shuts down cleanly on SIGTERM and SIGINT; bad flags exit 2.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { spawnKafkasim } from '../kafkasim-process.ts';

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

async function serve(...args: string[]): Promise<Served> {
  return spawnServer(['serve', '--port', '0', ...args]);
}

async function spawnServer(argv: string[]): Promise<Served> {
  const child = spawnKafkasim(argv, {
    stdio: 'pipe',
  }) as ChildProcessWithoutNullStreams;
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = / at (http:\/\/127\.0\.0\.1:\d+), speed/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 20);
    void exit.then((code) => {
      clearInterval(timer);
      reject(new Error(`serve exited with ${code}: ${err}`));
    });
  });
  return { child, url, stdout: () => out, stderr: () => err, exit };
}

describe('kafkasim serve', () => {
  it('serves until SIGTERM, then stops cleanly and writes the request log', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'kafkasim-serve-')), 'requests.json');
    const s = await serve(
      '--brokers',
      '2',
      '--storage',
      'shared',
      '--speed',
      'max',
      '--seed',
      '5',
      '--record-requests',
      log,
    );
    expect(s.stdout()).toMatch(
      /^kafkasim serve: cluster [\w-]{22} \(2 brokers, shared storage, seed 5\) at http:\/\/127\.0\.0\.1:\d+, speed max\n/,
    );
    const clusters = (await (await fetch(`${s.url}/v3/clusters`)).json()) as {
      data: { cluster_id: string }[];
    };
    const cid = clusters.data[0]!.cluster_id;
    const io = bufferIO();
    expect(
      await main(
        ['topics', '--create', '--topic', 't', '--partitions', '4', '--bootstrap-server', s.url],
        io,
      ),
    ).toBe(0);
    expect(io.text()).toBe('Created topic t.\n');
    const clock = (await (await fetch(`${s.url}/sim/clock`)).json()) as { now_ms: number; speed: string };
    expect(clock.speed).toBe('max');
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    expect(s.stdout()).toMatch(
      /kafkasim serve: SIGTERM: stopped at virtual time \d+\.\d{3}s, trace hash [0-9a-f]{16}\n$/,
    );
    const recorded = JSON.parse(readFileSync(log, 'utf8'));
    expect(recorded.world).toEqual({ seed: 5, brokers: 2, storage: 'shared' });
    expect(recorded.entries).toHaveLength(1);
    expect(recorded.entries[0]).toMatchObject({ method: 'POST', url: `/v3/clusters/${cid}/topics` });
  });

  it('with --token, requests need the bearer token; SIGINT stops it too', async () => {
    const s = await serve('--token', 'tok', '--paused');
    expect((await fetch(`${s.url}/v3/clusters`)).status).toBe(401);
    expect((await fetch(`${s.url}/v3/clusters`, { headers: { authorization: 'Bearer tok' } })).status).toBe(
      200,
    );
    expect((await fetch(`${s.url}/health`)).status).not.toBe(401);
    const denied = bufferIO();
    expect(await main(['topics', '--list', '--bootstrap-server', s.url], denied)).toBe(1);
    expect(denied.text()).toMatch(/^Error while executing topic command : Unauthorized/);
    const io = bufferIO();
    io.env.KAFKASIM_TOKEN = 'tok';
    expect(await main(['topics', '--list', '--bootstrap-server', s.url], io)).toBe(0);
    s.child.kill('SIGINT');
    expect(await s.exit).toBe(0);
  });

  it('serves a scenario file: its cluster and clients', async () => {
    const s = await serve(
      new URL('../../scenarios/automq-reassign-hotspot.yaml', import.meta.url).pathname,
      '--paused',
    );
    const snap = (await (await fetch(`${s.url}/sim/snapshot`)).json()) as {
      storage: string;
      scenario: string;
      brokers: { broker_id: number }[];
      workloads: { name: string; state: string }[];
    };
    expect(snap.storage).toBe('shared');
    expect(snap.scenario).toBe('automq-reassign-hotspot');
    expect(snap.brokers.map((b) => b.broker_id)).toEqual([1, 2]);
    expect(snap.workloads).toEqual([expect.objectContaining({ name: 'perf-producer', state: 'created' })]);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it("kafkasim ui NAME: prints the page's URL first, serves the shipped scenario as a lesson, paused", async () => {
    const s = await spawnServer(['ui', 'broker-failure-rf3', '--port', '0', '--seed', '3', '--token', 't k']);
    const first = s.stdout().split('\n')[0]!;
    expect(first).toMatch(/^kafkasim ui: open http:\/\/127\.0\.0\.1:\d+\/#token=t%20k$/);
    expect(first).toContain(s.url);
    const auth = { headers: { authorization: 'Bearer t k' } };
    const snap = (await (await fetch(`${s.url}/sim/snapshot`, auth)).json()) as {
      seed: string;
      clock: { paused: boolean };
      lesson: { scenario: string; next: number; steps: unknown[] } | null;
    };
    expect(snap.seed).toBe('3');
    expect(snap.clock.paused).toBe(true);
    expect(snap.lesson).toMatchObject({ scenario: 'broker-failure-rf3', next: 0 });
    expect(snap.lesson!.steps).toHaveLength(9);
    // The page itself needs no token (it carries no state); it is the built UI.
    const page = await fetch(`${s.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script src="/ui/app.js"></script>');
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('kafkasim ui --controllers 3: a sandbox with a KRaft quorum of three controllers', async () => {
    const s = await spawnServer(['ui', '--controllers', '3', '--brokers', '2', '--port', '0']);
    expect(s.stdout()).toMatch(/\(2 brokers, 3 controllers, kafka storage, seed 1\)/);
    const snap = (await (await fetch(`${s.url}/sim/snapshot`)).json()) as {
      controllers: { node: string; role: string; active: boolean }[];
    };
    expect(snap.controllers.map((c) => c.node)).toEqual([
      'controller-3000',
      'controller-3001',
      'controller-3002',
    ]);
    expect(snap.controllers.filter((c) => c.active && c.role === 'leader')).toHaveLength(1);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('bad flags and bad input exit 2 with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['--storage', 'disk'], /--storage expects kafka or shared/],
      [['--brokers', '0'], /--brokers expects a whole number from 1 to 64/],
      [['--controllers', '10'], /--controllers expects a whole number from 1 to 9, got '10'/],
      [
        ['broker-failure-rf3', '--controllers', '3'],
        /--brokers, --first-broker-id, --controllers and --storage describe the cluster when no scenario file is given/,
      ],
      [['--speed', 'fast'], /--speed expects a positive decimal number/],
      [['--speed', '1e3'], /--speed expects a positive decimal number/],
      [['--lake-user', 'root:'], /--lake-user: the Lake password must not be empty/],
      [['--allowed-hosts', 'a b'], /--allowed-hosts expects host names/],
      [['--port', '70000'], /--port expects a whole number from 0 to 65535/],
      [['--request-log-limit', '10'], /--request-log-limit expects a size from 1MiB to 2GiB .* got '10'/],
      [['--request-log-limit', '3GiB'], /--request-log-limit expects a size from 1MiB to 2GiB/],
      [['--request-log-limit', 'lots'], /--request-log-limit expects a size from 1MiB to 2GiB/],
      [['--bogus'], /unknown option '--bogus'/],
      [['no-such-file.yaml'], /cannot read the scenario file 'no-such-file.yaml'/],
      [['/dev/zero'], /cannot read the scenario file '\/dev\/zero': not a regular file/],
      [['a.yaml', 'b.yaml'], /at most one scenario file/],
    ];
    for (const [args, message] of cases) {
      const io = bufferIO();
      expect(await main(['serve', ...args], io), args.join(' ')).toBe(2);
      expect(io.errors()).toMatch(message);
    }
  });
});
