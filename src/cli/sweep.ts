// `kafkasim sweep <file>`: runs a scenario over a grid of settings and seeds in worker threads and prints a table
// per cell (median and min–max over seeds of each metric); `kafkasim sweep merge` combines shard outputs. Ctrl-C
// stops cleanly: running runs are terminated, the finished cells are printed and written. Exit 0 when every run
// passed its expectations, 1 when one did not, 2 for invalid input, 130 when interrupted.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatDuration } from '../../models/sim/index.ts';
import { sweepReportHtml, WHATIF_METRICS } from '../report/index.ts';
import { loadScenarioFile } from '../scenario/index.ts';
import {
  builtinMetricNames,
  defaultParallelism,
  formatSweepTable,
  mergeSweepDocuments,
  missingCells,
  parseGrid,
  parseShard,
  planSweep,
  readSweepDocument,
  runSweep,
  type SweepDocument,
  sweepCsv,
} from '../sweep/index.ts';
import { type CliIO, UsageError } from './io.ts';
import { resolveScenarioPath } from './run.ts';
import { scenarioCommandArgs } from './scenario-command.ts';

export const SWEEP_USAGE = `Usage: kafkasim sweep <file|shipped-name> --grid path=v1,v2,... [options]
       kafkasim sweep merge <sweep.json>... [--csv FILE] [--json] [--report FILE.html]

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
  --shard K/N            run only the K-th of N deterministic slices of the grid (combine with sweep merge)
  --csv FILE             write the table as CSV (median, min, max, n per metric)
  --json                 print the sweep as JSON (the shard format) instead of the table
  --report FILE          write a self-contained HTML report: each metric against the grid
  --run-timeout SECONDS  stop a run after this much wall time (default 600)
  -h, --help             show this help

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
      csv: { type: 'string' },
      json: { type: 'boolean' },
      report: { type: 'string' },
      'run-timeout': { type: 'string' },
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
  const plan = planSweep({
    file,
    grid: parseGrid(values.grid ?? []),
    ...(values.set ? { set: values.set } : {}),
    ...(seeds ? { seeds } : {}),
    ...(metrics ? { metrics } : {}),
    ...(values.shard !== undefined ? { shard: parseShard(values.shard) } : {}),
  });
  const csv = values.csv !== undefined ? new OutputFile(values.csv, '--csv') : undefined;
  const report = values.report !== undefined ? new OutputFile(values.report, '--report') : undefined;
  const json = values.json ?? false;
  const runs = plan.selected.length * plan.seeds.length;
  const threads = Math.max(1, Math.min(parallel ?? defaultParallelism(), runs));
  io.stderr(
    `Sweeping ${plan.scenario}: ${plan.selected.length} cell${plan.selected.length === 1 ? '' : 's'}${plan.shard ? ` (shard ${plan.shard.k}/${plan.shard.n} of ${plan.cells.length})` : ''} × ${plan.seeds.length} seed${plan.seeds.length === 1 ? '' : 's'} = ${runs} runs on ${threads} thread${threads === 1 ? '' : 's'}\n`,
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
  let doc: SweepDocument;
  try {
    doc = await runSweep(plan, {
      ...(parallel !== undefined ? { parallel } : {}),
      signal: stop.signal,
      runTimeoutMs: runTimeout * 1000,
      ...(io.isTTY
        ? {
            onProgress: (p) => {
              const width = 24;
              const filled = Math.round((width * p.runsDone) / Math.max(1, p.runs));
              io.stderr(
                `\r\x1b[2K${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${p.cellsDone}/${p.cells} cells (${p.runsDone}/${p.runs} runs)  ${formatDuration(performance.now() - started)}`,
              );
              progressShown = true;
            },
          }
        : {}),
    });
  } catch (e) {
    csv?.discard();
    report?.discard();
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
    clearProgress();
  }
  return finish(doc, io, { json, csv, report, command: `kafkasim sweep ${argv.join(' ')}`, threads });
}

function finish(
  doc: SweepDocument,
  io: CliIO,
  out: {
    json: boolean;
    csv?: OutputFile | undefined;
    report?: OutputFile | undefined;
    command: string;
    threads?: number;
  },
): number {
  out.csv?.write(sweepCsv(doc));
  out.report?.write(sweepReportHtml(doc, { command: out.command }));
  if (out.json) io.stdout(`${JSON.stringify(doc)}\n`);
  else {
    io.stdout(formatSweepTable(doc));
    const runs = doc.cells.reduce((a, c) => a + c.runs.length, 0);
    const written = [
      out.csv ? `CSV written to ${out.csv.path}` : '',
      out.report ? `report written to ${out.report.path}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    io.stdout(
      `${doc.cells.length} cells, ${runs} runs in ${formatDuration(doc.wallMs)} wall${out.threads ? ` on ${out.threads} thread${out.threads === 1 ? '' : 's'}` : ''}${written ? `; ${written}` : ''}\n`,
    );
  }
  if (doc.interrupted) return 130;
  const allPassed = doc.cells.every((c) => c.passed === c.runs.length);
  const complete = doc.shard !== null || missingCells(doc).length === 0;
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

async function mergeCommand(argv: string[], io: CliIO): Promise<number> {
  let values: { csv?: string; json?: boolean; report?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        csv: { type: 'string' },
        json: { type: 'boolean' },
        report: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${SWEEP_USAGE}`);
  }
  if (values.help) {
    io.stdout(SWEEP_USAGE);
    return 0;
  }
  if (positionals.length === 0)
    throw new UsageError(`merge: expected sweep JSON files (from --json)\n\n${SWEEP_USAGE}`);
  const doc = mergeSweepDocuments(positionals.map((path) => ({ path, doc: readSweepDocument(path) })));
  const missing = missingCells(doc);
  if (missing.length > 0)
    io.stderr(
      `kafkasim sweep merge: ${missing.length} of ${doc.totalCells} cells are in none of the files\n`,
    );
  return finish(doc, io, {
    json: values.json ?? false,
    csv: values.csv !== undefined ? new OutputFile(values.csv, '--csv') : undefined,
    report: values.report !== undefined ? new OutputFile(values.report, '--report') : undefined,
    command: `kafkasim sweep merge ${argv.join(' ')}`,
  });
}
