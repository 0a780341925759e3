// The result of a sweep as one JSON document (`--json`, `--out`): what was swept (with the sweep's identity),
// every run's metrics and the per-cell summaries. It is also the shard format: `kafkasim sweep merge` reads these
// documents and combines them (merge.ts). Everything in it is deterministic except the wall times, so the same
// sweep gives the same document apart from those (and the same table and CSV, which show none), whether it ran
// locally, in shards or on a queue.
import { readFileSync } from 'node:fs';
import { type MetricSummary, summarize } from './aggregate.ts';
import { SweepInputError } from './errors.ts';
import type { Cell, GridAxis, Shard } from './grid.ts';
import type { SweepIdentity } from './identity.ts';
import type { SweepPlan } from './plan.ts';

export const SWEEP_FORMAT = 'kafkasim-sweep/2';

export interface RunOutcome {
  seed: number | string;
  passed: boolean;
  /** Why the run stopped early or failed to run (a failed step, a livelock, a timeout, a crash). */
  error?: string;
  /** The selected metrics (null: no data in this run). */
  metrics: Record<string, number | null>;
  virtualMs: number;
  events: number;
  traceHash: string;
  wallMs: number;
}

export interface CellResult extends Cell {
  runs: RunOutcome[];
  summary: Record<string, MetricSummary>;
  /** Runs whose expectations all held. */
  passed: number;
}

export interface SweepDocument {
  format: typeof SWEEP_FORMAT;
  /** The scenario's name and the file as given. */
  scenario: string;
  file: string;
  /** Fixed --set overrides applied to every cell. */
  set: string[];
  grid: GridAxis[];
  seeds: (number | string)[];
  metrics: string[];
  /** The shard this document holds, if it is one; merged documents have none. */
  shard: Shard | null;
  /** Which sweep this is a part of (merge refuses parts of different sweeps). */
  identity: SweepIdentity;
  /**
   * The shards whose runs this document holds: `{n: 1, have: [1]}` for a whole sweep (local or queue), `{n, have:
   * [k]}` for shard k/n, and the union for a merge of shards.
   */
  shards: { n: number; have: number[] };
  /** Cells in the whole grid (all shards). */
  totalCells: number;
  /** Runs in the whole sweep (cells × seeds). */
  totalRuns: number;
  /** True when the sweep was stopped (Ctrl-C) before its cells were done. */
  interrupted: boolean;
  /** Finished cells, by index. In a shard, a cell holds only the shard's runs of it. */
  cells: CellResult[];
  wallMs: number;
}

/** A cell's summary and pass count from its runs (runs in seed order). */
export function finishCell(cell: Cell, runs: RunOutcome[], metrics: readonly string[]): CellResult {
  const summary: Record<string, MetricSummary> = {};
  for (const m of metrics) summary[m] = summarize(runs.map((r) => r.metrics[m] ?? null));
  return { ...cell, runs, summary, passed: runs.filter((r) => r.passed).length };
}

/** The document of a plan's finished cells. */
export function sweepDocument(
  plan: SweepPlan,
  cells: CellResult[],
  how: { interrupted: boolean; wallMs: number },
): SweepDocument {
  return {
    format: SWEEP_FORMAT,
    scenario: plan.scenario,
    file: plan.file,
    set: plan.set,
    grid: plan.grid,
    seeds: plan.seeds,
    metrics: plan.metrics,
    shard: plan.shard ?? null,
    identity: plan.identity,
    shards: plan.shard ? { n: plan.shard.n, have: [plan.shard.k] } : { n: 1, have: [1] },
    totalCells: plan.cells.length,
    totalRuns: plan.cells.length * plan.seeds.length,
    interrupted: how.interrupted,
    cells: [...cells].sort((a, b) => a.index - b.index),
    wallMs: how.wallMs,
  };
}

/** Reads a document written by `kafkasim sweep --json`. Throws SweepInputError. */
export function readSweepDocument(path: string): SweepDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new SweepInputError(
      `${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SweepInputError(
      `${path}: not JSON (${(e as Error).message}); expected the output of kafkasim sweep --json`,
    );
  }
  const d = doc as Partial<SweepDocument> | null;
  if (d && typeof d === 'object' && (d.format as string) === 'kafkasim-sweep/1')
    throw new SweepInputError(
      `${path}: written by an older kafkasim (format kafkasim-sweep/1, without the sweep's identity); run that sweep or shard again with this version`,
    );
  if (!d || typeof d !== 'object' || d.format !== SWEEP_FORMAT)
    throw new SweepInputError(
      `${path}: not a sweep document (expected "format": "${SWEEP_FORMAT}", from kafkasim sweep --json)`,
    );
  for (const key of [
    'scenario',
    'set',
    'grid',
    'seeds',
    'metrics',
    'identity',
    'shards',
    'cells',
    'totalCells',
    'totalRuns',
  ] as const) {
    if (d[key] === undefined) throw new SweepInputError(`${path}: the sweep document has no '${key}'`);
  }
  return d as SweepDocument;
}

/** The cell indices of the grid missing from a document. */
export function missingCells(doc: SweepDocument): number[] {
  const have = new Set(doc.cells.map((c) => c.index));
  const out: number[] = [];
  for (let i = 0; i < doc.totalCells; i++) if (!have.has(i)) out.push(i);
  return out;
}

/** Runs of the whole sweep that a document does not hold. */
export function missingRuns(doc: SweepDocument): number {
  return doc.totalRuns - doc.cells.reduce((sum, c) => sum + c.runs.length, 0);
}
