// Turning a sweep request into a plan: every grid value and every cell is loaded and validated like `--set` before
// anything runs (a bad value fails in a second, not after an hour), the metrics are resolved (defaults from the
// scenario) and checked against what the scenario can measure, and the shard's runs are picked.
import { resolve } from 'node:path';
import { didYouMean } from '../did-you-mean.ts';
import { WHATIF_METRIC_NAMES } from '../report/index.ts';
import {
  formatIssue,
  formatIssueWithExcerpt,
  type LoadedScenario,
  loadScenarioFile,
  ScenarioError,
  type ScenarioIssue,
  type ScenarioSpec,
} from '../scenario/index.ts';
import { SweepInputError } from './errors.ts';
import { type Cell, cellsOf, type GridAxis, inShard, type Shard, setFlagsOf } from './grid.ts';
import { type SweepIdentity, scenarioHash, sweepIdentity } from './identity.ts';

export interface SweepRequest {
  /** The scenario file. */
  file: string;
  grid: GridAxis[];
  /** Fixed overrides for every cell (as --set). */
  set?: string[];
  /** Seeds to run each cell with; default: the scenario's own seed. */
  seeds?: (number | string)[];
  /** Metric names; default: the scenario's `metrics`, else DEFAULT_METRICS. */
  metrics?: string[];
  shard?: Shard;
}

export interface SweepPlan {
  scenario: string;
  /** As given (for display). */
  file: string;
  /** Absolute (what workers load). */
  path: string;
  set: string[];
  grid: GridAxis[];
  seeds: (number | string)[];
  metrics: string[];
  shard: Shard | undefined;
  identity: SweepIdentity;
  /** Every cell of the grid. */
  cells: Cell[];
  /** The runs this sweep executes (the shard's, or all), cell by cell, seeds in order. */
  runs: PlannedRun[];
  /** The cells with at least one run here. */
  selected: Cell[];
}

/** One run of a plan: a cell with one seed (`s`: the seed's position in the plan's seeds). */
export interface PlannedRun {
  cell: Cell;
  seed: number | string;
  s: number;
}

/** When the scenario names no metrics: what a what-if question asks first. */
export const DEFAULT_METRICS = ['produceLatencyP99Ms', 'produceErrors', 'lost', 'duplicated'];

/** Cells validated one by one up to this many; beyond, each grid value is still checked on its own. */
const VALIDATE_CELLS_UP_TO = 5000;

export function planSweep(request: SweepRequest): SweepPlan {
  const set = request.set ?? [];
  const gridFlags = new Map<string, string>();
  for (const axis of request.grid)
    for (const v of axis.values) gridFlags.set(`${axis.path}=${v}`, `--grid ${axis.path}=${v}`);
  const load = (extra: string[]) => {
    try {
      return loadScenarioFile(request.file, { set: [...set, ...extra] });
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      if (extra.length === 0) {
        const n = e.issues.length;
        throw new SweepInputError(
          `${request.file} is not a valid scenario (${n} problem${n === 1 ? '' : 's'}):\n${e.issues.map(formatIssueWithExcerpt).join('\n')}`,
        );
      }
      throw new SweepInputError(describeIssues(request.file, e.issues, gridFlags));
    }
  };
  const base = load([]);
  // Each value on its own first: the message then names the one bad value, not a combination.
  for (const axis of request.grid) for (const v of axis.values) load([`${axis.path}=${v}`]);
  const cells = cellsOf(request.grid);
  const specs: ScenarioSpec[] = [base.spec];
  if (cells.length <= VALIDATE_CELLS_UP_TO) for (const cell of cells) specs.push(load(setFlagsOf(cell)).spec);
  const seeds = request.seeds ?? [base.spec.seed ?? 1];
  if (seeds.length === 0) throw new SweepInputError('expected at least one seed');
  const metrics = request.metrics ?? defaultMetrics(base);
  if (metrics.length === 0) throw new SweepInputError('--metrics: expected at least one metric name');
  checkMetrics(metrics, specs);
  const runs = cells.flatMap((cell) =>
    seeds.flatMap((seed, s) => (inShard(cell, seed, request.shard) ? [{ cell, seed, s }] : [])),
  );
  const identity = sweepIdentity({
    scenario: base.spec.name,
    scenarioSha256: scenarioHash(request.file, base),
    set,
    grid: request.grid,
    seeds,
    metrics,
  });
  return {
    scenario: base.spec.name,
    file: request.file,
    path: resolve(request.file),
    set,
    grid: request.grid,
    seeds,
    metrics,
    shard: request.shard,
    identity,
    cells,
    runs,
    selected: [...new Set(runs.map((r) => r.cell))],
  };
}

function defaultMetrics(base: LoadedScenario): string[] {
  const own = Object.keys(base.spec.metrics ?? {});
  return own.length > 0 ? own : DEFAULT_METRICS;
}

/** Problems a grid value caused point at its --grid flag instead of the --set the loader saw. */
function describeIssues(
  file: string,
  issues: readonly ScenarioIssue[],
  gridFlags: Map<string, string>,
): string {
  const lines = issues.map((issue) => {
    const flag = issue.source.startsWith('--set ') ? gridFlags.get(issue.source.slice(6)) : undefined;
    return formatIssue(flag ? { ...issue, source: flag } : issue);
  });
  return `${file} does not accept ${issues.length === 1 ? 'this setting' : 'these settings'}:\n${lines.join('\n')}`;
}

/** The built-in metric names of a scenario's clients, as the runner names them (`<client>.<field>`). */
export function builtinMetricNames(spec: ScenarioSpec): string[] {
  const out = ['network.messagesDropped'];
  const producerFields = ['sent', 'acknowledged', 'failed', 'lost', 'duplicated', 'produceErrors'];
  for (const p of spec.clients?.producers ?? []) for (const f of producerFields) out.push(`${p.name}.${f}`);
  for (const p of spec.clients?.perfProducers ?? [])
    for (const f of [...producerFields, 'recordsPerSec', 'avgLatencyMs', 'maxLatencyMs', 'minRecordsPerSec'])
      out.push(`${p.name}.${f}`);
  for (const c of spec.clients?.consumers ?? [])
    for (const f of ['consumed', 'lag']) out.push(`${c.name}.${f}`);
  return out;
}

function checkMetrics(metrics: readonly string[], specs: readonly ScenarioSpec[]): void {
  const known = new Set<string>(WHATIF_METRIC_NAMES);
  for (const spec of specs) {
    for (const name of Object.keys(spec.metrics ?? {})) known.add(name);
    for (const name of builtinMetricNames(spec)) known.add(name);
  }
  const seen = new Set<string>();
  for (const m of metrics) {
    if (seen.has(m)) throw new SweepInputError(`--metrics: '${m}' is given twice`);
    seen.add(m);
    if (known.has(m)) continue;
    const hint = didYouMean(m, known, Math.max(2, Math.floor(m.length / 4)));
    throw new SweepInputError(
      `--metrics: unknown metric '${m}'${hint ? ` (did you mean '${hint}'?)` : ''}. Known: the scenario's metrics, its clients' (${[
        ...known,
      ]
        .filter((k) => k.includes('.'))
        .slice(0, 4)
        .join(', ')}, ...) and the what-if metrics (${WHATIF_METRIC_NAMES.join(', ')})`,
    );
  }
}
