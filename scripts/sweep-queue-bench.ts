// The queue's cost (issue 21): the same sweep locally with --parallel 2 and on the queue with 2 `kafkasim worker`
// processes (--concurrency 1 each), interleaved A/B/B/A on the same machine in the same time window, from the build
// (dist/; run `npm run build` first). Each round uses seeds of its own, so the queue never collects a run an earlier
// round finished. Needs redis-server (Debian's package).
//
//   node --import tsx scripts/sweep-queue-bench.ts [--rounds 3] [--runs 16] [--records 8000] [--seconds 16]
//
// --records and --seconds size each run (the tiny test fixture's producer records and last step): the defaults give
// runs of about a second; --records 1500 --seconds 3 gives the fixture's own short runs, where the queue's fixed
// cost per job shows most. Prints one JSON line per sweep and then the medians: the sweep's own wall time (from its
// JSON) and the process's, the CPU time it cost (user + system: the sweep process and its threads; on the queue also
// the workers' and redis-server's, read from /proc before and after), and the queue's extra CPU per run. On a loaded
// machine wall times follow how many threads compete for the cores more than the work done (two worker processes
// get a larger share than one process with two threads), so the CPU figures are the ones to compare there.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startRedisServer } from '../test/redis-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist/src/cli/bin.js');
const TINY = join(ROOT, 'test/sweep/fixtures/tiny.yaml');

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string', default: '16' },
    records: { type: 'string', default: '8000' },
    seconds: { type: 'string', default: '16' },
  },
});
const rounds = Number(values.rounds);
const runs = Number(values.runs);
const cells = 4;
const seedsPerRound = Math.max(1, Math.round(runs / cells));

function sweepArgs(round: number): string[] {
  const seeds = Array.from({ length: seedsPerRound }, (_, i) => 1000 * round + i + 1);
  return [
    'sweep',
    TINY,
    '--grid',
    'topics.0.partitions=2,4,8,16',
    '--seed-list',
    seeds.join(','),
    '--set',
    `clients.producers.0.records=${values.records}`,
    '--set',
    `timeline.1.run=${values.seconds}s`,
    '--metrics',
    'acked,produceLatencyP99Ms',
    '--json',
  ];
}

interface Sample {
  mode: 'local' | 'queue';
  round: number;
  runs: number;
  sweepWallMs: number;
  processWallMs: number;
  cpuMs: number;
  /** On the queue: the CPU time of redis-server, of the workers' main threads (BullMQ: taking jobs, renewing locks,
   * storing results; the runs are in worker threads) and of the submitting process, during the sweep. */
  redisCpuMs?: number;
  workersMainThreadCpuMs?: number;
  submitterCpuMs?: number;
}

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
/** User + system CPU time of a running process, all its threads (/proc/PID/stat utime and stime), or of one thread. */
function cpuMsOf(pid: number, thread?: number): number {
  const stat = readFileSync(thread ? `/proc/${pid}/task/${thread}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
/** bash's `times` line for its children: "0m1.250s 0m0.100s" (user, system). */
function childCpuMs(line: string): number {
  const ms = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => (Number(m[1]) * 60 + Number(m[2])) * 1000);
  if (ms.length !== 2) throw new Error(`cannot read bash's times: ${line}`);
  return ms[0]! + ms[1]!;
}

const OUT = join(mkdtempSync(join(tmpdir(), 'kafkasim-queue-bench-')), 'sweep.json');
let others: () => number = () => 0;
let queueParts: () => { redis: number; workersMain: number } = () => ({ redis: 0, workersMain: 0 });

function sweep(mode: Sample['mode'], round: number, extra: string[]): Sample {
  const othersBefore = others();
  const queueBefore = mode === 'queue' ? queueParts() : undefined;
  const started = performance.now();
  // bash runs the sweep and then prints its children's CPU time (the builtin `times`, last line of stderr).
  const r = spawnSync(
    'bash',
    [
      '-c',
      '"$@" >"$OUT"; code=$?; times >&2; exit $code',
      'bash',
      process.execPath,
      BIN,
      ...sweepArgs(round),
      ...extra,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, OUT } },
  );
  const processWallMs = performance.now() - started;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${mode} sweep exited ${r.status}:\n${r.stderr}`);
  const doc = JSON.parse(readFileSync(OUT, 'utf8')) as { wallMs: number; cells: { runs: unknown[] }[] };
  const sample: Sample = {
    mode,
    round,
    runs: doc.cells.reduce((a, c) => a + c.runs.length, 0),
    sweepWallMs: Math.round(doc.wallMs),
    processWallMs: Math.round(processWallMs),
    cpuMs: Math.round(childCpuMs(r.stderr.trim().split('\n').at(-1)!) + others() - othersBefore),
  };
  if (queueBefore) {
    const after = queueParts();
    sample.redisCpuMs = Math.round(after.redis - queueBefore.redis);
    sample.workersMainThreadCpuMs = Math.round(after.workersMain - queueBefore.workersMain);
    sample.submitterCpuMs = Math.round(childCpuMs(r.stderr.trim().split('\n').at(-1)!));
  }
  console.log(JSON.stringify(sample));
  return sample;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const redis = await startRedisServer();
const workers: ChildProcess[] = [];
try {
  for (const name of ['bench-w1', 'bench-w2']) {
    const w = spawn(
      process.execPath,
      [BIN, 'worker', '--queue', redis.url, '--name', name, '--concurrency', '1'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    workers.push(w);
    await new Promise<void>((resolve, reject) => {
      let err = '';
      w.stderr!.on('data', (d) => {
        err += d;
        if (/taking runs from/.test(err)) resolve();
      });
      w.once('exit', (code) => reject(new Error(`worker ${name} exited ${code}: ${err}`)));
    });
  }
  const queueSide = [redis.pid, ...workers.map((w) => w.pid!)];
  queueParts = () => ({
    redis: cpuMsOf(redis.pid),
    workersMain: workers.reduce((a, w) => a + cpuMsOf(w.pid!, w.pid!), 0),
  });
  const samples: Sample[] = [];
  for (let round = 1; round <= rounds; round++) {
    const local = () => {
      others = () => 0;
      samples.push(sweep('local', round, ['--parallel', '2']));
    };
    const queue = () => {
      others = () => queueSide.reduce((a, pid) => a + cpuMsOf(pid), 0);
      samples.push(sweep('queue', round, ['--queue', redis.url]));
    };
    if (round % 2) {
      local();
      queue();
    } else {
      queue();
      local();
    }
  }
  const of = (mode: Sample['mode'], key: 'sweepWallMs' | 'processWallMs' | 'cpuMs') =>
    median(samples.filter((s) => s.mode === mode).map((s) => s[key]));
  const n = samples[0]!.runs;
  const summary = {
    runsPerSweep: n,
    rounds,
    records: Number(values.records),
    seconds: Number(values.seconds),
    localSweepWallMs: of('local', 'sweepWallMs'),
    queueSweepWallMs: of('queue', 'sweepWallMs'),
    localProcessWallMs: of('local', 'processWallMs'),
    queueProcessWallMs: of('queue', 'processWallMs'),
    queueOverLocalWall: Number((of('queue', 'sweepWallMs') / of('local', 'sweepWallMs')).toFixed(3)),
    localCpuMs: of('local', 'cpuMs'),
    queueCpuMs: of('queue', 'cpuMs'),
    queueOverLocalCpu: Number((of('queue', 'cpuMs') / of('local', 'cpuMs')).toFixed(3)),
    /** The queue's extra CPU time per run (submitter, workers and Redis against the local sweep). */
    extraCpuMsPerJob: Math.round((of('queue', 'cpuMs') - of('local', 'cpuMs')) / n),
    /** The queue's own work per job: redis-server and the workers' main threads. */
    queueCpuMsPerJob: Number(
      (
        median(
          samples.filter((s) => s.mode === 'queue').map((s) => s.redisCpuMs! + s.workersMainThreadCpuMs!),
        ) / n
      ).toFixed(1),
    ),
    submitterCpuMs: median(samples.filter((s) => s.mode === 'queue').map((s) => s.submitterCpuMs!)),
  };
  console.log(JSON.stringify({ summary }));
} finally {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(
    workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once('exit', r)))),
  );
  await redis.stop();
}
