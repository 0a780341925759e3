// `kafkasim sweep <file>`: runs a scenario over a grid of settings and seeds in worker threads and prints a table
// per cell (median and min–max over seeds of each metric); `kafkasim sweep merge` combines shard outputs. Ctrl-C
// stops cleanly: running runs are terminated, the finished cells are printed and written. Exit 0 when every run
// passed its expectations, 1 when one did not, 2 for invalid input, 130 when interrupted.
import { closeSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration } from '../../models/sim/index.ts';
import { sweepReportHtml, WHATIF_METRICS } from '../report/index.ts';
import { loadScenarioFile } from '../scenario/index.ts';
import {
  builtinMetricNames,
  defaultParallelism,
  formatSweepTable,
  mergeSweepDocuments,
  missingCells,
  missingRuns,
  parseGrid,
  parseShard,
  planSweep,
  readSweepDocument,
  runSweep,
  type Shard,
  type SweepDocument,
  type SweepPlan,
  type SweepProgress,
  shardFromEnvironment,
  sweepCsv,
} from '../sweep/index.ts';
import { parseQueueUrl, redactedUrl } from '../sweep/queue/queue-config.ts';
import { runSweepOnQueue } from '../sweep/queue/submit.ts';
import { parseFlags } from './flags.ts';
import { type CliIO, UsageError } from './io.ts';
import { resolveScenarioPath } from './run.ts';
import { scenarioCommandArgs } from './scenario-command.ts';

export const SWEEP_USAGE = `Usage: kafkasim sweep <file|shipped-name> --grid path=v1,v2,... [options]
       kafkasim sweep merge <sweep.json|folder>... [--partial] [--csv FILE] [--json] [--out FILE] [--report FILE.html]

Runs a scenario once per cell of a grid of settings (every combination of the --grid values) and seed, in
parallel worker threads, and prints per cell the median and min–max over seeds of each metric.

Options:
  --grid path=v1,v2,...  a grid axis; paths as for --set, e.g. topics.0.partitions=8,16,32 (repeatable)
  --set path=value       a fixed override for every cell (repeatable)
  --seeds N              run each cell with seeds 1..N (default: the scenario's seed)
  --seed-list a,b,c      run each cell with these seeds
  --metrics a,b,c        what to compare (default: the scenario's metrics); see --list-metrics
  --list-metrics         list the metrics this scenario can report, then exit
  --parallel N           worker threads (default: the number of cores, ${defaultParallelism()} here)
  --shard K/N            run only the K-th of N slices of the runs (a stable hash of cell and seed picks the
                         shard of each run); combine the parts with sweep merge
  --shard auto           K/N from the job runner: a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (with
                         --shard-count), GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, or KAFKASIM_SHARD_INDEX (0-based)
                         and KAFKASIM_SHARD_COUNT (GitHub Actions: strategy.job-index, strategy.job-total)
  --shard-count N        the number of shards for --shard auto (a Kubernetes Job's spec.completions)
  --csv FILE             write the table as CSV (median, min, max, n per metric)
  --json                 print the sweep as JSON (the shard format) instead of the table
  --out FILE             write the sweep as JSON (the shard format) to FILE; the table still prints
  --report FILE          write a self-contained HTML report: each metric against the grid
  --run-timeout SECONDS  stop a run after this much wall time (default 600)
  --dry-run              check everything and print what would run (cells, runs, the shard), then exit
  --queue redis://HOST:6379/0
                         run on a queue instead of here: one BullMQ job per run in Redis, taken by
                         \`kafkasim worker --queue ...\` processes on any machines; prints and writes the same
                         table, CSV, JSON and report (needs the optional packages bullmq and ioredis)
  -h, --help             show this help

Merge: every argument is a part (JSON from --json or --out) or a folder whose *.json files are parts. The
parts must be of one sweep (same scenario content, overrides, grid, seeds, metrics, kafkasim version) and
every shard must be there; a shard given twice with the same runs counts once. --partial merges what is
there (interrupted parts and missing shards; the table names what is missing).

Exit code: 0 every run passed its expectations, 1 some did not (or stopped early), 2 invalid input,
130 interrupted (Ctrl-C: the finished cells are printed and written).
`;

export interface SweepCommandOptions {
  /** Stops the sweep like Ctrl-C (tests); the command also listens for SIGINT itself. */
  signal?: AbortSignal;
}

/** An output file opened before the sweep, so that an unwritable path fails at once, not after the sweep. */
class OutputFile {
  private fd: number;
  constructor(
    readonly path: string,
    flag: string,
  ) {
    try {
      this.fd = openSync(path, 'w');
    } catch (e) {
      throw new UsageError(
        `${flag}: cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }
  write(text: string): void {
    writeSync(this.fd, text);
    closeSync(this.fd);
  }
  discard(): void {
    closeSync(this.fd);
    rmSync(this.path, { force: true });
  }
}

function positiveInt(flag: string, text: string): number {
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`${flag} expects a positive integer, got '${text}'`);
  return Number(text);
}

function parseSeedList(text: string): (number | string)[] {
  const seeds = text.split(',').map((s) => s.trim());
  if (seeds.some((s) => s === '')) throw new UsageError(`--seed-list: a seed is empty in '${text}'`);
  const out = seeds.map((s) => (/^-?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s));
  if (new Set(out.map(String)).size !== out.length)
    throw new UsageError(`--seed-list: a seed is given twice in '${text}'`);
  return out;
}

function listSplit(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export async function sweepCommand(
  argv: string[],
  io: CliIO,
  options: SweepCommandOptions = {},
): Promise<number> {
  if (argv[0] === 'merge') return mergeCommand(argv.slice(1), io);
  const parsed = scenarioCommandArgs(
    argv,
    {
      grid: { type: 'string', multiple: true },
      set: { type: 'string', multiple: true },
      seeds: { type: 'string' },
      'seed-list': { type: 'string' },
      metrics: { type: 'string' },
      'list-metrics': { type: 'boolean' },
      parallel: { type: 'string' },
      shard: { type: 'string' },
      'shard-count': { type: 'string' },
      csv: { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      report: { type: 'string' },
      'run-timeout': { type: 'string' },
      'dry-run': { type: 'boolean' },
      queue: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    SWEEP_USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  const file = resolveScenarioPath(parsed.scenario);
  if (values['list-metrics']) return listMetrics(file, values.set ?? [], io);
  if (values.seeds !== undefined && values['seed-list'] !== undefined)
    throw new UsageError('give either --seeds N or --seed-list a,b,c, not both');
  const seeds =
    values.seeds !== undefined
      ? Array.from({ length: positiveInt('--seeds', values.seeds) }, (_, i) => i + 1)
      : values['seed-list'] !== undefined
        ? parseSeedList(values['seed-list'])
        : undefined;
  const parallel = values.parallel !== undefined ? positiveInt('--parallel', values.parallel) : undefined;
  const runTimeout =
    values['run-timeout'] !== undefined ? positiveInt('--run-timeout', values['run-timeout']) : 600;
  const metrics = values.metrics !== undefined ? listSplit(values.metrics) : undefined;
  if (metrics && metrics.length === 0)
    throw new UsageError('--metrics: expected metric names, e.g. --metrics lost,moves');
  const shard = shardOf(values.shard, values['shard-count'], io);
  const plan = planSweep({
    file,
    grid: parseGrid(values.grid ?? []),
    ...(values.set ? { set: values.set } : {}),
    ...(seeds ? { seeds } : {}),
    ...(metrics ? { metrics } : {}),
    ...(shard ? { shard } : {}),
  });
  if (values['dry-run']) return dryRun(plan, io);
  const csv = values.csv !== undefined ? new OutputFile(values.csv, '--csv') : undefined;
  const report = values.report !== undefined ? new OutputFile(values.report, '--report') : undefined;
  const outFile = values.out !== undefined ? new OutputFile(values.out, '--out') : undefined;
  const json = values.json ?? false;
  const queueUrl = values.queue !== undefined ? parseQueueUrl('--queue', values.queue) : undefined;
  if (queueUrl && parallel !== undefined)
    throw new UsageError('--parallel is for a local sweep; with --queue, each worker has --concurrency');
  if (queueUrl && plan.shard)
    throw new UsageError(
      '--shard and --queue do not go together: the queue spreads every run over its workers',
    );
  const runs = plan.runs.length;
  const threads = Math.max(1, Math.min(parallel ?? defaultParallelism(), runs));
  io.stderr(
    `Sweeping ${describePlan(plan)} ${queueUrl ? `on the queue at ${redactedUrl(queueUrl)}` : `on ${threads} thread${threads === 1 ? '' : 's'}`}\n`,
  );

  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort());
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    clearProgress();
    io.stderr('Stopping: keeping the finished cells (Ctrl-C again to quit at once)\n');
    stop.abort();
  };
  process.on('SIGINT', onSigint);
  const started = performance.now();
  let progressShown = false;
  const clearProgress = () => {
    if (progressShown) io.stderr('\r\x1b[2K');
    progressShown = false;
  };
  // A terminal gets a bar that redraws; a log (a job runner's) a line per tenth of the runs.
  let tenths = -1;
  const onProgress = (p: SweepProgress & { workers?: number }) => {
    const workers = p.workers !== undefined ? `, ${p.workers} worker${p.workers === 1 ? '' : 's'}` : '';
    const counts = `${p.cellsDone}/${p.cells} cells (${p.runsDone}/${p.runs} runs${workers})  ${formatDuration(performance.now() - started)}`;
    if (io.isTTY) {
      const width = 24;
      const filled = Math.round((width * p.runsDone) / Math.max(1, p.runs));
      io.stderr(`\r\x1b[2K${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${counts}`);
      progressShown = true;
    } else if (queueUrl && Math.floor((10 * p.runsDone) / Math.max(1, p.runs)) > tenths) {
      tenths = Math.floor((10 * p.runsDone) / Math.max(1, p.runs));
      io.stderr(`${counts}\n`);
    }
  };
  let doc: SweepDocument;
  try {
    doc = queueUrl
      ? await runSweepOnQueue(plan, {
          url: queueUrl,
          signal: stop.signal,
          onProgress,
          log: (line) => {
            clearProgress();
            io.stderr(`${line}\n`);
          },
        })
      : await runSweep(plan, {
          ...(parallel !== undefined ? { parallel } : {}),
          signal: stop.signal,
          runTimeoutMs: runTimeout * 1000,
          ...(io.isTTY ? { onProgress } : {}),
        });
  } catch (e) {
    csv?.discard();
    report?.discard();
    outFile?.discard();
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
    clearProgress();
  }
  return finish(doc, io, {
    json,
    csv,
    report,
    out: outFile,
    command: `kafkasim sweep ${argv.join(' ')}`,
    threads,
    ...(queueUrl ? { where: 'on the queue' } : {}),
  });
}

/** --shard K/N, or auto (from the job runner's environment, see shard-environment.ts); --shard-count only with auto. */
function shardOf(shard: string | undefined, count: string | undefined, io: CliIO): Shard | undefined {
  const n = count !== undefined ? positiveInt('--shard-count', count) : undefined;
  if (shard?.trim() !== 'auto') {
    if (n !== undefined)
      throw new UsageError('--shard-count goes with --shard auto (with --shard K/N, N is the count)');
    return shard !== undefined ? parseShard(shard) : undefined;
  }
  const found = shardFromEnvironment(io.env, n);
  io.stderr(`Shard ${found.shard.k}/${found.shard.n} (from ${found.source})\n`);
  return found.shard;
}

/** "tiny: 4 cells × 2 seeds = 8 runs", with the shard's part when there is one. */
function describePlan(plan: SweepPlan): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const whole = `${plural(plan.cells.length, 'cell')} × ${plural(plan.seeds.length, 'seed')} = ${plural(plan.cells.length * plan.seeds.length, 'run')}`;
  return plan.shard
    ? `${plan.scenario}: shard ${plan.shard.k}/${plan.shard.n}, ${plural(plan.runs.length, 'run')} in ${plural(plan.selected.length, 'cell')} (of ${whole})`
    : `${plan.scenario}: ${whole}`;
}

function dryRun(plan: SweepPlan, io: CliIO): number {
  const lines = [
    `Would sweep ${describePlan(plan)}`,
    `Sweep id ${plan.identity.id} (scenario SHA-256 ${plan.identity.scenarioSha256.slice(0, 12)}…, kafkasim ${plan.identity.kafkasimVersion})`,
    `Metrics: ${plan.metrics.join(', ')}`,
    ...plan.selected.slice(0, 20).map((cell) => {
      const seeds = plan.runs.filter((r) => r.cell === cell).map((r) => r.seed);
      const params = Object.entries(cell.params)
        .map(([p, v]) => `${p}=${v}`)
        .join(' ');
      return `  cell ${cell.index}${params ? ` ${params}` : ''}: seed${seeds.length === 1 ? '' : 's'} ${seeds.join(', ')}`;
    }),
    ...(plan.selected.length > 20 ? [`  ... and ${plan.selected.length - 20} more cells`] : []),
  ];
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

function finish(
  doc: SweepDocument,
  io: CliIO,
  out: {
    json: boolean;
    csv?: OutputFile | undefined;
    report?: OutputFile | undefined;
    /** --out: the JSON document to a file. */
    out?: OutputFile | undefined;
    command: string;
    threads?: number;
    /** What ran the runs, for the last line ("on 2 threads" by default). */
    where?: string;
  },
): number {
  out.csv?.write(sweepCsv(doc));
  out.out?.write(`${JSON.stringify(doc)}\n`);
  out.report?.write(sweepReportHtml(doc, { command: out.command }));
  if (out.json) io.stdout(`${JSON.stringify(doc)}\n`);
  else {
    io.stdout(formatSweepTable(doc));
    const runs = doc.cells.reduce((a, c) => a + c.runs.length, 0);
    const written = [
      out.csv ? `CSV written to ${out.csv.path}` : '',
      out.report ? `report written to ${out.report.path}` : '',
      out.out ? `JSON written to ${out.out.path}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    io.stdout(
      `${doc.cells.length} cells, ${runs} runs in ${formatDuration(doc.wallMs)} wall${out.where ? ` ${out.where}` : out.threads ? ` on ${out.threads} thread${out.threads === 1 ? '' : 's'}` : ''}${written ? `; ${written}` : ''}\n`,
    );
  }
  if (doc.interrupted) return 130;
  const allPassed = doc.cells.every((c) => c.passed === c.runs.length);
  const complete = doc.shard !== null || missingRuns(doc) === 0;
  return allPassed && complete ? 0 : 1;
}

function listMetrics(file: string, set: string[], io: CliIO): number {
  let spec: ReturnType<typeof loadScenarioFile>['spec'];
  try {
    spec = loadScenarioFile(file, { set }).spec;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const lines = ['Scenario metrics (its `metrics:` section):'];
  const own = Object.keys(spec.metrics ?? {});
  lines.push(...(own.length ? own.map((m) => `  ${m}`) : ['  (none)']));
  lines.push('Client metrics:', ...builtinMetricNames(spec).map((m) => `  ${m}`));
  lines.push('What-if metrics:');
  const width = Math.max(...WHATIF_METRICS.map((m) => m.name.length));
  for (const m of WHATIF_METRICS) lines.push(`  ${m.name.padEnd(width)}  ${m.description}`);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/** The part files an argument names: the file, or a folder's *.json files in name order. */
function partFiles(arg: string): string[] {
  let isDir = false;
  try {
    isDir = statSync(arg).isDirectory();
  } catch {
    return [arg]; // readSweepDocument says it cannot be read
  }
  if (!isDir) return [arg];
  const files = readdirSync(arg)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(arg, f));
  if (files.length === 0) throw new UsageError(`${arg} is a folder without .json files`);
  return files;
}

async function mergeCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags('sweep merge', argv, {
    csv: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    report: { type: 'string' },
    partial: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(SWEEP_USAGE);
    return 0;
  }
  if (positionals.length === 0)
    throw new UsageError(
      `expected sweep JSON files (from --json or --out) or folders of them\n\n${SWEEP_USAGE}`,
    );
  const files = positionals.flatMap(partFiles);
  const { doc, notes } = mergeSweepDocuments(
    files.map((path) => ({ path, doc: readSweepDocument(path) })),
    { partial: values.partial ?? false },
  );
  for (const note of notes) io.stderr(`kafkasim sweep merge: ${note}\n`);
  const missing = missingCells(doc);
  if (missing.length > 0)
    io.stderr(
      `kafkasim sweep merge: ${missing.length} of ${doc.totalCells} cells are in none of the files\n`,
    );
  else if (missingRuns(doc) > 0)
    io.stderr(
      `kafkasim sweep merge: ${missingRuns(doc)} of ${doc.totalRuns} runs are in none of the files\n`,
    );
  return finish(doc, io, {
    json: values.json ?? false,
    csv: values.csv !== undefined ? new OutputFile(values.csv, '--csv') : undefined,
    report: values.report !== undefined ? new OutputFile(values.report, '--report') : undefined,
    out: values.out !== undefined ? new OutputFile(values.out, '--out') : undefined,
    command: `kafkasim sweep merge ${argv.join(' ')}`,
  });
}
