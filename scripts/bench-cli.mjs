#!/usr/bin/env node
// Whole-process benchmark of the CLI: each command timed as a user starts it (a new `node` process running the
// built bin, dist/src/cli/bin.js, exactly what `npx kafkasim` or node_modules/.bin/kafkasim starts, minus npm's own
// start-up), several runs, min and median of the wall time, of the CPU time (user + system, all threads) and of the
// time the command reports for its own work (a run's "in X wall", a sweep's "runs in X wall"), which is the
// in-process figure of the same process. The vitest benches (test/bench) time the simulation alone.
//
//   node scripts/bench-cli.mjs [--runs N] [--only help,list,run-a2,run-bend,sweep-partitions] [--set path=v]...
//                              [--baseline DIR] [--no-warmup] [--markdown]
//
// --baseline DIR  also time another checkout of kafkasim (a clone at an older commit, `npm ci` done there), run for
//                 run interleaved with this one (A, B, A, B, ...) so both see the same load; its CLI is
//                 DIR/dist/src/cli/bin.js when built, else DIR/bin/kafkasim.js (before the package build, when the
//                 CLI ran the TypeScript sources through tsx).
// --set path=v    passed to this checkout's runs and sweeps, not to the baseline's (which runs as it was), e.g.
//                 --set cluster.checkInvariantsEvery=1000000000 to leave the kernel's invariants out.
// Each command runs once unmeasured first (page cache; tsx's transform cache for a baseline that uses it).
// Wall times need an idle machine; on a shared, loaded one compare CPU times, and A/B only interleaved.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The commands, as docs/benchmarks.md shows them. `self` reads the command's own timing from its output. */
const COMMANDS = [
  { name: 'help', args: ['--help'], runs: 10 },
  { name: 'list', args: ['list'], runs: 10 },
  {
    name: 'run-a2',
    args: ['run', 'automq-self-balancing-5-brokers'],
    runs: 5,
    scenario: true,
    self: /virtual time in (\S+) wall/,
  },
  {
    name: 'run-bend',
    args: ['run', 'bend-ingest-partition-expansion'],
    runs: 5,
    scenario: true,
    self: /virtual time in (\S+) wall/,
  },
  {
    name: 'sweep-partitions',
    args: [
      'sweep',
      'whatif-partitions',
      '--grid',
      'topics.0.partitions=8,16,32,64',
      '--grid',
      'cluster.brokers=3,5,9',
      '--seeds',
      '3',
      '--metrics',
      'timeToBalanceMs,balancerMoves,maxLoadDeviation,finalLoadDeviation,leaderSkew,produceErrors,produceLatencyP99Ms',
      '--report',
      'partitions.html',
    ],
    runs: 3,
    scenario: true,
    self: /runs in (\S+) wall/,
  },
];

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string' },
    only: { type: 'string' },
    set: { type: 'string', multiple: true, default: [] },
    baseline: { type: 'string' },
    'no-warmup': { type: 'boolean', default: false },
    markdown: { type: 'boolean', default: false },
  },
});

function cliOf(dir) {
  const built = join(dir, 'dist/src/cli/bin.js');
  if (existsSync(built)) return built;
  const tsx = join(dir, 'bin/kafkasim.js');
  if (existsSync(tsx)) return tsx;
  throw new Error(`${dir}: neither dist/src/cli/bin.js nor bin/kafkasim.js (run npm ci there)`);
}

// This checkout's CLI as it ships: build it first (a no-op when dist/ is up to date).
const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const targets = [{ label: 'this', dir: ROOT, bin: cliOf(ROOT) }];
if (opts.baseline) {
  const dir = resolve(opts.baseline);
  const head = spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], {
    encoding: 'utf8',
  }).stdout.trim();
  targets.push({ label: `baseline ${head}`, dir, bin: cliOf(dir) });
}
const only = opts.only?.split(',');
const commands = COMMANDS.filter((c) => !only || only.includes(c.name));
if (only && commands.length !== only.length)
  throw new Error(`--only: known commands are ${COMMANDS.map((c) => c.name)}`);
const extra = opts.set.flatMap((s) => ['--set', s]);

/** One timed process: bash's `time` gives the wall and CPU times of the command alone (not of bash). */
function timeOnce(target, command, cwd) {
  const args = [target.bin, ...command.args, ...(command.scenario && target.label === 'this' ? extra : [])];
  const r = spawnSync(
    'bash',
    [
      '-c',
      'TIMEFORMAT="%R %U %S"; { time "$@" >out.txt 2>err.txt; } 2>time.txt; echo $? >status.txt',
      'bench',
      process.execPath,
      ...args,
    ],
    { cwd, env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' }, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`bash failed: ${r.stderr}`);
  const [real, user, sys] = readFileSync(join(cwd, 'time.txt'), 'utf8').trim().split(/\s+/).map(Number);
  const out = readFileSync(join(cwd, 'out.txt'), 'utf8');
  const status = Number(readFileSync(join(cwd, 'status.txt'), 'utf8'));
  if (status !== 0 && status !== 1)
    throw new Error(
      `${target.label}: kafkasim ${command.args.join(' ')} exited ${status}:\n${readFileSync(join(cwd, 'err.txt'), 'utf8')}`,
    );
  const self = command.self ? seconds(command.self.exec(out)?.[1]) : undefined;
  return { wall: real, cpu: user + sys, self, status };
}

/** Seconds from formatDuration's text (models/sim/duration.ts): 850ms, 2.788s, 1m12s, 1h2m. */
function seconds(text) {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:([\d.]+)s)?$|^([\d.]+)ms$/.exec(text ?? '');
  if (!m) return Number.NaN;
  if (m[4] !== undefined) return Number(m[4]) / 1000;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} ms` : `${x.toFixed(2)} s`);
const stat = (xs) => `${fmt(Math.min(...xs))} / ${fmt(median(xs))}`;

const cwd = mkdtempSync(join(tmpdir(), 'kafkasim-bench-cli-'));
const results = [];
const started = Date.now();
const load = [];
try {
  for (const command of commands) {
    const runs = Number(opts.runs ?? command.runs);
    if (!opts['no-warmup']) for (const t of targets) timeOnce(t, command, cwd);
    const samples = new Map(targets.map((t) => [t, []]));
    for (let i = 0; i < runs; i++) {
      for (const t of targets) {
        load.push(loadavg()[0]);
        samples.get(t).push(timeOnce(t, command, cwd));
      }
    }
    for (const t of targets) {
      const s = samples.get(t);
      const row = {
        command: `kafkasim ${command.args.join(' ')}${command.scenario && t.label === 'this' && extra.length ? ` ${extra.join(' ')}` : ''}`,
        name: command.name,
        target: t.label,
        runs,
        wall: s.map((x) => x.wall),
        cpu: s.map((x) => x.cpu),
        self: command.self ? s.map((x) => x.self) : undefined,
        status: [...new Set(s.map((x) => x.status))],
      };
      results.push(row);
      const self = row.self ? `  in-process ${stat(row.self)}` : '';
      console.log(
        `${command.name.padEnd(17)} ${t.label.padEnd(17)} wall ${stat(row.wall)}  cpu ${stat(row.cpu)}${self}  (min / median of ${runs}${row.status.some((x) => x) ? `, exit ${row.status}` : ''})`,
      );
    }
    if (targets.length === 2) {
      const [a, b] = results.slice(-2);
      const ratio = (k) => `${(100 * (1 - median(a[k]) / median(b[k]))).toFixed(0)}%`;
      console.log(
        `${''.padEnd(17)} this vs baseline: median wall ${ratio('wall')} less, median cpu ${ratio('cpu')} less`,
      );
    }
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
console.log(
  `\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, load average during the runs ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
if (opts.markdown) {
  console.log(
    '\n| command | target | whole process: wall min / median | CPU min / median | in-process min / median |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of results)
    console.log(
      `| \`${r.command}\` | ${r.target} | ${stat(r.wall)} | ${stat(r.cpu)} | ${r.self ? stat(r.self) : ''} |`,
    );
}
