// Running a sweep plan: every (cell, seed) run is a task in a piscina worker pool, one thread per core by default.
// Each run is deterministic and independent, so the document depends only on the plan, never on the number of
// threads or the order tasks finish in. Stopping (an AbortSignal, Ctrl-C in the CLI) cancels queued runs and
// terminates running ones; the cells whose runs all finished are kept.
import { availableParallelism } from 'node:os';
import { setFlagsOf } from './grid.ts';
import type { SweepPlan } from './plan.ts';
import type { RunTask } from './run-cell.ts';
import { createRunPool, runInPool } from './run-pool.ts';
import {
  type CellResult,
  finishCell,
  type RunOutcome,
  type SweepDocument,
  sweepDocument,
} from './sweep-document.ts';

export interface SweepProgress {
  cellsDone: number;
  cells: number;
  runsDone: number;
  runs: number;
}

export interface RunSweepOptions {
  /** Worker threads (default: the number of cores, at most one per run). */
  parallel?: number;
  /** Stops the sweep: queued runs are cancelled, running ones terminated, finished cells kept. */
  signal?: AbortSignal;
  /** Called when a run finishes. */
  onProgress?: (progress: SweepProgress) => void;
  /** Wall-clock limit per run, in ms (a run past it is recorded with an error). Default 10 minutes. */
  runTimeoutMs?: number;
  /** See RunTask.livelockEvents. */
  livelockEvents?: number;
}

export function defaultParallelism(): number {
  return availableParallelism();
}

export async function runSweep(plan: SweepPlan, options: RunSweepOptions = {}): Promise<SweepDocument> {
  const started = performance.now();
  const tasks = plan.runs.map(({ cell, seed }) => ({
    cell,
    task: {
      path: plan.path,
      set: [...plan.set, ...setFlagsOf(cell)],
      seed,
      metrics: plan.metrics,
      ...(options.livelockEvents !== undefined ? { livelockEvents: options.livelockEvents } : {}),
    } satisfies RunTask,
  }));
  // A cell is done when the runs of it that this plan holds are (in a shard, some of its seeds).
  const runsOfCell = new Map<number, number>();
  for (const { cell } of plan.runs) runsOfCell.set(cell.index, (runsOfCell.get(cell.index) ?? 0) + 1);
  const threads = Math.max(1, Math.min(options.parallel ?? defaultParallelism(), tasks.length || 1));
  const pool = await createRunPool(threads);
  const runs = new Map<number, { s: number; outcome: RunOutcome }[]>();
  const done: CellResult[] = [];
  const progress: SweepProgress = {
    cellsDone: 0,
    cells: plan.selected.length,
    runsDone: 0,
    runs: tasks.length,
  };
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort);
  if (options.signal?.aborted) stop.abort();
  const timeoutMs = options.runTimeoutMs ?? 600_000;
  try {
    await Promise.all(
      tasks.map(async ({ cell, task }, i) => {
        const outcome = await runInPool(pool, task, timeoutMs, stop.signal);
        if (outcome === undefined) return;
        if (stop.signal.aborted) return;
        let slots = runs.get(cell.index);
        if (!slots) runs.set(cell.index, (slots = []));
        slots.push({ s: plan.runs[i]!.s, outcome });
        progress.runsDone++;
        if (slots.length === runsOfCell.get(cell.index)) {
          slots.sort((a, b) => a.s - b.s);
          done.push(
            finishCell(
              cell,
              slots.map((x) => x.outcome),
              plan.metrics,
            ),
          );
          progress.cellsDone++;
        }
        options.onProgress?.({ ...progress });
      }),
    );
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await pool.destroy();
  }
  return sweepDocument(plan, done, { interrupted: stop.signal.aborted, wallMs: performance.now() - started });
}
