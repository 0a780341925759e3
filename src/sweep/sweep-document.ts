// The result of a sweep as one JSON document (`--json`): what was swept, every run's metrics and the per-cell
// summaries. It is also the shard format: `kafkasim sweep merge` reads these documents and combines them.
// Everything in it is deterministic except the wall times, so the same sweep gives the same document apart from
// those (and the same table, which shows none).
import { readFileSync } from 'node:fs';
import { type MetricSummary, summarize } from './aggregate.ts';
import { SweepInputError } from './errors.ts';
import type { Cell, GridAxis, Shard } from './grid.ts';

export const SWEEP_FORMAT = 'kafkasim-sweep/1';

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
  /** Cells in the whole grid (all shards). */
  totalCells: number;
  /** True when the sweep was stopped (Ctrl-C) before its cells were done. */
  interrupted: boolean;
  /** Finished cells, by index. */
  cells: CellResult[];
  wallMs: number;
}

/** A cell's summary and pass count from its runs (runs in seed order). */
export function finishCell(cell: Cell, runs: RunOutcome[], metrics: readonly string[]): CellResult {
  const summary: Record<string, MetricSummary> = {};
  for (const m of metrics) summary[m] = summarize(runs.map((r) => r.metrics[m] ?? null));
  return { ...cell, runs, summary, passed: runs.filter((r) => r.passed).length };
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
  if (!d || typeof d !== 'object' || d.format !== SWEEP_FORMAT)
    throw new SweepInputError(
      `${path}: not a sweep document (expected "format": "${SWEEP_FORMAT}", from kafkasim sweep --json)`,
    );
  for (const key of ['scenario', 'grid', 'seeds', 'metrics', 'cells', 'totalCells'] as const) {
    if (d[key] === undefined) throw new SweepInputError(`${path}: the sweep document has no '${key}'`);
  }
  return d as SweepDocument;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Combines shard documents of one sweep: same scenario, overrides, grid, seeds and metrics; a cell present in
 * two documents must have the same runs (a shard given twice is fine, two different sweeps are not).
 */
export function mergeSweepDocuments(docs: readonly { path: string; doc: SweepDocument }[]): SweepDocument {
  if (docs.length === 0) throw new SweepInputError('merge: expected at least one sweep document');
  const [first, ...rest] = docs;
  const base = first!.doc;
  for (const { path, doc } of rest) {
    for (const key of ['scenario', 'set', 'grid', 'seeds', 'metrics', 'totalCells'] as const) {
      if (!same(doc[key], base[key]))
        throw new SweepInputError(
          `merge: ${path} is from another sweep than ${first!.path}: its ${key} is ${JSON.stringify(doc[key])}, not ${JSON.stringify(base[key])}`,
        );
    }
  }
  const cells = new Map<number, { path: string; cell: CellResult }>();
  for (const { path, doc } of docs) {
    for (const cell of doc.cells) {
      const seen = cells.get(cell.index);
      const key = (c: CellResult) => JSON.stringify(c.runs.map(({ wallMs: _, ...r }) => r));
      if (seen && key(seen.cell) !== key(cell))
        throw new SweepInputError(`merge: cell ${cell.index} differs between ${seen.path} and ${path}`);
      if (!seen) cells.set(cell.index, { path, cell });
    }
  }
  return {
    ...base,
    shard: null,
    interrupted: docs.some(({ doc }) => doc.interrupted),
    cells: [...cells.values()].map((c) => c.cell).sort((a, b) => a.index - b.index),
    wallMs: docs.reduce((sum, { doc }) => sum + (doc.wallMs ?? 0), 0),
  };
}

/** The cell indices of the grid missing from a document. */
export function missingCells(doc: SweepDocument): number[] {
  const have = new Set(doc.cells.map((c) => c.index));
  const out: number[] = [];
  for (let i = 0; i < doc.totalCells; i++) if (!have.has(i)) out.push(i);
  return out;
}
