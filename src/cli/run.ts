// `kafkasim run <file>`: runs a scenario and prints the tool output its steps ask for, then a summary (each
// expectation with its actual values, key metrics, virtual and wall time). Exit 0 when every expectation holds,
// 1 when one fails, 2 when the input is invalid (bad file, bad flag), always without a stack trace.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { formatDuration, jsonlSink } from '../../models/sim/index.ts';
import type { RunRecorder, runReportHtml } from '../report/index.ts';
import {
  formatIssueWithExcerpt,
  loadScenarioFile,
  runScenarioAsync,
  ScenarioError,
  type ScenarioResult,
  type StepEvent,
  scenarioFileOf,
} from '../scenario/index.ts';
import { unknownScenarioNameHint } from '../scenario/shipped.ts';
import { type CliIO, UsageError } from './io.ts';
import { scenarioCommandArgs } from './scenario-command.ts';

export const RUN_USAGE = `Usage: kafkasim run <file|shipped-name> [options]

Runs a scenario in virtual time: prints what its steps show, then each expectation and the key metrics.

Options:
  --seed N          override the scenario's seed (an integer)
  --set path=value  override a value of the file, e.g. --set topics.0.partitions=16 (repeatable)
  --json            print one JSON object (scenario, seed, passed, expectations, metrics, virtualMs,
                    wallMs, events, traceHash) and nothing else on stdout
  --trace FILE      write every trace event to FILE as JSON lines
  --report FILE     write a self-contained HTML report with charts of the run to FILE
  --quiet           print only the verdict, the failing expectations and the files written
  -h, --help        show this help

Exit code: 0 all expectations hold, 1 one failed, 2 invalid input.
`;

/**
 * A path to a scenario file: as given if it exists, else a shipped scenario of that name. A bare name (no folder, no
 * .yaml) that is neither is a usage error that suggests the nearest shipped scenario; a path that does not exist
 * is left to the loader, which says "no such file" where the file was expected.
 */
export function resolveScenarioPath(arg: string): string {
  const hint = unknownScenarioNameHint(arg);
  if (hint !== undefined)
    throw new UsageError(
      `no scenario file or shipped scenario named '${arg}'${hint}. Run 'kafkasim list' for the shipped scenarios.`,
    );
  return scenarioFileOf(arg);
}

/** Prints a ScenarioError as a list of located problems; returns exit code 2. */
export function reportScenarioError(e: ScenarioError, command: string, io: CliIO, file: string): number {
  const n = e.issues.length;
  io.stderr(`kafkasim ${command}: ${file} is not a valid scenario (${n} problem${n === 1 ? '' : 's'}):\n`);
  for (const issue of e.issues) io.stderr(`${formatIssueWithExcerpt(issue)}\n`);
  return e.exitCode;
}

interface Style {
  dim: (s: string) => string;
  green: (s: string) => string;
  red: (s: string) => string;
  bold: (s: string) => string;
}

function style(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (s: string) =>
    enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s;
  return { dim: wrap(2, 22), green: wrap(32, 39), red: wrap(31, 39), bold: wrap(1, 22) };
}

/** `[  12.345s]` */
function stamp(ms: number): string {
  return `[${(ms / 1000).toFixed(3).padStart(8)}s]`;
}

function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`--seed expects an integer, got '${text}'`);
  return Number(text);
}

/** A trace file written in large chunks (a run can emit millions of events). */
class TraceFile {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'w');
    } catch (e) {
      throw new UsageError(
        `--trace: cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }

  write = (line: string): void => {
    this.chunks.push(line);
    this.size += line.length;
    if (this.size >= 1 << 20) this.flush();
  };

  flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * The --report file, opened before the run so that an unwritable path fails at once, not after it. The report's
 * modules (recorder, charts) are imported only then: a run without --report does not load them.
 */
async function openReport(path: string): Promise<{
  path: string;
  recorder: RunRecorder;
  html: typeof runReportHtml;
  write(html: string): void;
  discard(): void;
}> {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (e) {
    throw new UsageError(
      `--report: cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  const modules = await import('../report/index.ts');
  return {
    path,
    recorder: new modules.RunRecorder(),
    html: modules.runReportHtml,
    write(html) {
      writeSync(fd, html);
      closeSync(fd);
    },
    discard() {
      closeSync(fd);
      rmSync(path, { force: true });
    },
  };
}

/** The command line as the report shows it: the run's own flags, not where its report went. */
function withoutReportFlag(argv: readonly string[]): string[] {
  return argv.filter((a, i) => a !== '--report' && !a.startsWith('--report=') && argv[i - 1] !== '--report');
}

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const parsed = scenarioCommandArgs(
    argv,
    {
      seed: { type: 'string' },
      set: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      trace: { type: 'string' },
      report: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    RUN_USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  const seed = parseSeed(values.seed);
  const json = values.json ?? false;
  const quiet = values.quiet ?? false;
  const color = io.isTTY && !json && !io.env.NO_COLOR;
  const s = style(color);
  const showProgress = io.isTTY && !json && !quiet;
  const trace = values.trace !== undefined ? new TraceFile(values.trace) : undefined;
  const report = values.report !== undefined ? await openReport(values.report) : undefined;

  let progressShown = false;
  let lastProgressWall = 0;
  const clearProgress = () => {
    if (progressShown) {
      io.stderr('\r\x1b[2K');
      progressShown = false;
    }
  };
  const show = (text: string) => {
    if (json || quiet) return;
    clearProgress();
    io.stdout(text);
  };
  const onStep = (e: StepEvent) => {
    if (e.note) show(`${s.dim(`${stamp(e.time)} # ${e.note}`)}\n`);
    show(`${s.dim(`${stamp(e.time)} ${e.command}${e.quiet ? '   (quiet)' : ''}`)}\n`);
  };

  const file = resolveScenarioPath(parsed.scenario);
  let result: ScenarioResult;
  let description: string | undefined;
  try {
    // With --report, load first: the report shows the scenario's description, which the result does not carry.
    const input = report ? loadScenarioFile(file, values.set ? { set: values.set } : {}) : file;
    if (typeof input !== 'string') description = input.spec.description;
    result = await runScenarioAsync(input, {
      ...(seed !== undefined ? { seed } : {}),
      ...(values.set ? { set: values.set } : {}),
      out: (line) => show(`${line}\n`),
      onStep,
      ...(trace ? { trace: jsonlSink(trace.write) } : {}),
      ...(report ? { onCluster: report.recorder.attach } : {}),
      ...(showProgress
        ? {
            onProgress: (p) => {
              const now = performance.now();
              if (now - lastProgressWall < 100) return;
              lastProgressWall = now;
              const width = 20;
              const filled = Math.round((width * p.step) / Math.max(1, p.steps));
              const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
              io.stderr(
                `\r\x1b[2K${bar} step ${p.step + 1}/${p.steps}  t=${formatDuration(p.virtualMs)}  ${p.events.toLocaleString('en-US')} events`,
              );
              progressShown = true;
            },
          }
        : {}),
    });
  } catch (e) {
    clearProgress();
    report?.discard();
    if (e instanceof ScenarioError) return reportScenarioError(e, 'run', io, file);
    throw e;
  } finally {
    trace?.close();
  }
  clearProgress();
  report?.write(
    report.html({
      result,
      recording: report.recorder.finish(result),
      ...(description !== undefined ? { description } : {}),
      command: ['kafkasim run', ...withoutReportFlag(argv)].join(' '),
    }),
  );

  if (json) {
    const {
      scenario,
      seed: usedSeed,
      passed,
      expectations,
      metrics,
      virtualMs,
      wallMs,
      events,
      traceHash,
    } = result;
    io.stdout(
      `${JSON.stringify({ scenario, seed: usedSeed, passed, expectations, metrics, virtualMs, wallMs, events, traceHash })}\n`,
    );
  } else
    io.stdout(
      quiet ? verdict(result, s, trace?.path, report?.path) : summary(result, s, trace?.path, report?.path),
    );
  return result.passed ? 0 : 1;
}

function compact(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The human summary: expectations, metrics, time. */
export function summary(r: ScenarioResult, s: Style, traceFile?: string, reportFile?: string): string {
  const lines: string[] = [''];
  const passedCount = r.expectations.filter((e) => e.passed).length;
  lines.push(s.bold(`Expectations (${passedCount}/${r.expectations.length} passed)`));
  for (const e of r.expectations) lines.push(...expectationLines(e, s));
  const metrics = Object.entries(r.metrics);
  if (metrics.length > 0) {
    lines.push(s.bold('Metrics'));
    const width = Math.max(...metrics.map(([k]) => k.length));
    for (const [k, v] of metrics) lines.push(`  ${k.padEnd(width)}  ${v === null ? '-' : v}`);
  }
  const speedUp = r.wallMs > 0 ? r.virtualMs / r.wallMs : Number.POSITIVE_INFINITY;
  lines.push(
    `Simulated ${formatDuration(r.virtualMs)} of virtual time in ${formatDuration(r.wallMs)} wall (${speedUp >= 10 ? Math.round(speedUp) : speedUp.toFixed(1)}x real time), ${r.events.toLocaleString('en-US')} events; seed ${r.seed}, trace hash ${r.traceHash}`,
  );
  if (traceFile) lines.push(`Trace written to ${traceFile}`);
  if (reportFile) lines.push(`Report written to ${reportFile}`);
  lines.push(verdictLine(r, s));
  return `${lines.join('\n')}\n`;
}

/** What --quiet prints: each failing expectation (expected and actual), the files written, the verdict line. */
export function verdict(r: ScenarioResult, s: Style, traceFile?: string, reportFile?: string): string {
  const lines = r.expectations.filter((e) => !e.passed).flatMap((e) => expectationLines(e, s));
  if (traceFile) lines.push(`Trace written to ${traceFile}`);
  if (reportFile) lines.push(`Report written to ${reportFile}`);
  lines.push(verdictLine(r, s));
  return `${lines.join('\n')}\n`;
}

function expectationLines(e: ScenarioResult['expectations'][number], s: Style): string[] {
  return [
    `  ${e.passed ? s.green('PASS') : s.red('FAIL')}  ${e.name}`,
    `        expected ${e.expected}`,
    `        actual   ${compact(e.actual)}`,
  ];
}

/** `PASSED: name` or `FAILED: name (k of n expectations failed)`. */
function verdictLine(r: ScenarioResult, s: Style): string {
  const failed = r.expectations.filter((e) => !e.passed).length;
  return r.passed
    ? s.green(s.bold(`PASSED: ${r.scenario}`))
    : s.red(
        s.bold(
          `FAILED: ${r.scenario} (${failed} of ${r.expectations.length} expectation${r.expectations.length === 1 ? '' : 's'} failed)`,
        ),
      );
}
