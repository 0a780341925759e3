// The elastic pool for real: a redis-server, `kafkasim worker` processes from the build (dist/), and a sweep
// submitted with --queue. A worker killed mid-run loses nothing (its run goes back to the queue once its lock
// expires and the other worker takes it), and the result is the local sweep's, byte for byte: the same table and
// CSV, the same JSON apart from wall times. Submitting again reruns nothing. Bad input says what is wrong.
// Skipped (with a warning) only on a machine without redis-server and outside CI; bounded: 8 runs of about a second,
// a 3 s lock, and no wait longer than the test's timeout.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferIO, type CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import type { SweepDocument } from '../../src/sweep/index.ts';
import { queueName } from '../../src/sweep/queue/queue-config.ts';
import { loadQueueModules, QueueNotInstalledError } from '../../src/sweep/queue/queue-modules.ts';
import { type RedisServer, redisServerOrSkip, startRedisServer } from '../redis-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist/src/cli/bin.js');
const TINY = fileURLToPath(new URL('./fixtures/tiny.yaml', import.meta.url));
// 8 runs of about a second each (longer than the tiny default), so that a kill lands in the middle of one.
const SWEEP = [
  TINY,
  '--grid',
  'topics.0.partitions=2,4',
  '--grid',
  'timeline.0.crashBroker=1,3',
  '--seeds',
  '2',
  '--set',
  'clients.producers.0.records=8000',
  '--set',
  'timeline.1.run=16s',
  '--metrics',
  'acked,produceErrors,produceLatencyP99Ms',
];
const tmp = () => mkdtempSync(join(tmpdir(), 'kafkasim-queue-'));

const haveRedis = redisServerOrSkip('the sweep queue tests (test/sweep/queue.test.ts)');
let redis: RedisServer;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  if (!haveRedis) return;
  // The workers run the build; it is skipped when dist/ is up to date (as after npm ci).
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 280_000, // spawnSync blocks the hook's own timeout: a stalled build fails here
    killSignal: 'SIGKILL',
  });
  expect(build.status, build.stderr).toBe(0);
  redis = await startRedisServer();
}, 300_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await redis?.stop();
});

/** `kafkasim worker` from dist/, with its stderr lines collected (and watched). */
function startWorker(name: string, onLine: (line: string) => void = () => {}) {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'worker',
      '--queue',
      redis.url,
      '--name',
      name,
      '--concurrency',
      '1',
      // Short locks, so that a killed worker's run comes back within seconds, not 45 s.
      '--lock-duration',
      '3000',
      '--stalled-interval',
      '1000',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  workers.push(child);
  const lines: string[] = [];
  let rest = '';
  child.stderr!.on('data', (d) => {
    rest += d;
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      onLine(line);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

async function sweep(args: string[], io: CliIO = bufferIO()) {
  const buffer = io as ReturnType<typeof bufferIO>;
  const code = await main(['sweep', ...args], io);
  return { code, out: buffer.text(), err: buffer.errors() };
}

const withoutWallTimes = (d: SweepDocument) => ({
  ...d,
  wallMs: 0,
  cells: d.cells.map((c) => ({ ...c, runs: c.runs.map((r) => ({ ...r, wallMs: 0 })) })),
});
/** The table without its last line (which says how long the sweep took, and where). */
const table = (out: string) => out.split('\n').slice(0, -2).join('\n');

describe.skipIf(!haveRedis)(
  'kafkasim sweep --queue with kafkasim worker processes',
  { timeout: 300_000 },
  () => {
    it('a worker killed mid-run loses nothing: the result is the local sweep’s, byte for byte', async () => {
      const dir = tmp();
      const local = await sweep([
        ...SWEEP,
        '--parallel',
        '2',
        '--csv',
        join(dir, 'local.csv'),
        '--out',
        join(dir, 'local.json'),
      ]);
      // Some cells lose records when their broker crashes (the expectation fails: exit 1), on the queue as here.
      expect(local.code).toBe(1);

      // Submit first (no worker yet), then start two workers; kill the first in the middle of its second run.
      let submitted: () => void = () => {};
      const isSubmitted = new Promise<void>((resolve) => {
        submitted = resolve;
      });
      const io = bufferIO();
      const stderr = io.stderr;
      io.stderr = (t) => {
        stderr(t);
        if (/^Submitted 8 runs/m.test(t)) submitted();
      };
      const onQueue = sweep(
        [...SWEEP, '--queue', redis.url, '--csv', join(dir, 'queue.csv'), '--out', join(dir, 'queue.json')],
        io,
      );
      // A sweep that fails before submitting (or ends) must not leave the test waiting for its timeout.
      await Promise.race([isSubmitted, onQueue]);
      expect(io.errors()).toMatch(/^Submitted 8 runs/m);
      let killed: string | undefined;
      let started = 0;
      const w1 = startWorker('w1', (line) => {
        const m = /^run (run-[0-9a-f]+) .* started$/.exec(line);
        if (m && ++started === 2 && !killed) {
          killed = m[1];
          w1.child.kill('SIGKILL');
        }
      });
      const w2 = startWorker('w2');
      const queued = await onQueue;
      expect(queued.code, queued.err).toBe(local.code);
      expect(killed).toBeDefined();
      expect(await w1.exited).toBeNull(); // killed by the signal
      expect(w1.lines.some((l) => l.startsWith(`run ${killed} `) && !l.endsWith('started'))).toBe(false);

      // The killed run was taken again and finished by the other worker.
      const modules = await loadQueueModules('test');
      const connection = new modules.Redis(redis.url, { maxRetriesPerRequest: null });
      const queue = new modules.bullmq.Queue(queueName(), { connection });
      const job = await queue.getJob(killed!);
      expect(await job!.getState()).toBe('completed');
      expect(job!.processedBy).toBe('w2');
      expect(job!.attemptsStarted).toBeGreaterThanOrEqual(2);
      expect(w2.lines.some((l) => l.startsWith(`run ${killed} `) && / passed in | failed its /.test(l))).toBe(
        true,
      );

      // Byte for byte: the table, the CSV; the JSON apart from wall times.
      expect(table(queued.out)).toBe(table(local.out));
      expect(readFileSync(join(dir, 'queue.csv'), 'utf8')).toBe(readFileSync(join(dir, 'local.csv'), 'utf8'));
      const doc = JSON.parse(readFileSync(join(dir, 'queue.json'), 'utf8')) as SweepDocument;
      expect(JSON.stringify(withoutWallTimes(doc))).toBe(
        JSON.stringify(withoutWallTimes(JSON.parse(readFileSync(join(dir, 'local.json'), 'utf8')))),
      );
      expect(queued.out).toMatch(/8 runs in .* wall on the queue/);
      expect(queued.err).toMatch(/\d\/4 cells \(\d\/8 runs, [12] workers?\)/);

      // Submitting the same sweep again runs nothing: every run is collected from the queue (w2 logs no new run).
      const before = w2.lines.length;
      const again = await sweep([...SWEEP, '--queue', redis.url, '--csv', join(dir, 'again.csv')]);
      expect(again.code).toBe(local.code);
      expect(again.err).toMatch(/Submitted 8 runs .*: 8 already done, 0 to run/);
      expect(readFileSync(join(dir, 'again.csv'), 'utf8')).toBe(readFileSync(join(dir, 'local.csv'), 'utf8'));
      expect(w2.lines.slice(before).filter((l) => / started$/.test(l))).toEqual([]);
      expect((await queue.getJobCounts('completed')).completed).toBe(8);

      // The worker stops cleanly on SIGTERM.
      w2.child.kill('SIGTERM');
      expect(await w2.exited).toBe(0);
      await queue.close();
      connection.disconnect();
    });

    it('says what is wrong: a bad URL, no Redis there, --shard or --parallel with --queue, a scenario reading files', async () => {
      const bad = await sweep([TINY, '--queue', 'http://localhost:6379/0']);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(
        /--queue http:\/\/localhost:6379\/0: expected a redis:\/\/ \(or rediss:\/\/\) URL/,
      );
      expect((await sweep([TINY, '--queue', 'redis://localhost:6379/x'])).err).toMatch(
        /must be a database number/,
      );
      const closed = `redis://127.0.0.1:${redis.port + 1}/0`;
      const nobody = await sweep([TINY, '--queue', closed]);
      expect(nobody.code).toBe(2);
      expect(nobody.err).toMatch(/cannot reach Redis \(connect ECONNREFUSED/);
      expect((await sweep([TINY, '--queue', redis.url, '--shard', '1/2'])).err).toMatch(
        /--shard and --queue do not go together/,
      );
      expect((await sweep([TINY, '--queue', redis.url, '--parallel', '2'])).err).toMatch(
        /with --queue, each worker has --concurrency/,
      );
      const dir = tmp();
      writeFileSync(
        join(dir, 'move.json'),
        '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}',
      );
      const withFile = join(dir, 'with-file.yaml');
      writeFileSync(
        withFile,
        `${readFileSync(TINY, 'utf8').replace('timeline:\n', 'timeline:\n  - at: 500ms\n    reassign: { file: move.json }\n').replace('timeline.0.crashBroker', 'x')}`,
      );
      const files = await sweep([withFile, '--grid', 'timeline.1.crashBroker=1,3', '--queue', redis.url]);
      expect(files.code, files.err).toBe(2);
      expect(files.err).toMatch(/--queue: workers get the scenario's text only.*inline the reassignment/s);

      const worker = bufferIO();
      expect(await main(['worker'], worker)).toBe(2);
      expect(worker.errors()).toMatch(/expected --queue redis:\/\/HOST:6379\/0/);
      const workerBad = bufferIO();
      expect(await main(['worker', '--queue', redis.url, '--concurrency', '0'], workerBad)).toBe(2);
      expect(workerBad.errors()).toMatch(/--concurrency expects a positive integer, got '0'/);
    });
  },
);

describe('the queue without its optional packages', () => {
  it('without bullmq or ioredis installed, --queue says what to install', async () => {
    const missing = Object.assign(new Error("Cannot find package 'bullmq'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const attempt = loadQueueModules('--queue', async (name) => {
      if (name === 'bullmq') throw missing;
      return import(name);
    });
    await expect(attempt).rejects.toBeInstanceOf(QueueNotInstalledError);
    await expect(attempt).rejects.toThrow(
      /--queue needs the optional package bullmq \(a Redis queue, BullMQ\), which is not installed: npm install bullmq@6\.7\.6 ioredis@5\.11\.1/,
    );
    // Another failure while loading is not reported as a missing package.
    await expect(loadQueueModules('--queue', async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
  });
});
