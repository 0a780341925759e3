// The worker threads that runs execute in (piscina), for a local sweep and for a queue worker alike: one run is
// one task, and a run that fails to finish (its wall-clock limit, a thread that died) becomes a run with an error,
// worded the same wherever it ran, so that a sweep's results do not depend on where it ran.
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { RunTask } from './run-cell.ts';
import type { RunOutcome } from './sweep-document.ts';

// From the build, the worker is the compiled worker.js beside this module; from the TypeScript sources (tests,
// development), a small entry that registers tsx's loader in the worker thread first.
const WORKER = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './worker-from-sources.js' : './worker.js', import.meta.url),
);

export type RunPool = Piscina<RunTask, RunOutcome>;

/** A pool of `threads` worker threads. piscina is loaded on first use: importing the sweep API does not pay for it. */
export async function createRunPool(threads: number): Promise<RunPool> {
  const { Piscina } = await import('piscina');
  return new Piscina<RunTask, RunOutcome>({
    filename: WORKER,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 1000,
  });
}

/** A run that did not finish in its thread. */
export function failedRun(task: RunTask, error: string, wallMs: number): RunOutcome {
  return {
    seed: task.seed,
    passed: false,
    error,
    metrics: Object.fromEntries(task.metrics.map((m) => [m, null])),
    virtualMs: 0,
    events: 0,
    traceHash: '',
    wallMs,
  };
}

/**
 * Runs a task in the pool. Resolves with its outcome, or with a failed run when it passed `timeoutMs` of wall time
 * or its thread died; `undefined` when `stop` aborted it (the caller is stopping and keeps no outcome).
 */
export async function runInPool(
  pool: RunPool,
  task: RunTask,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<RunOutcome | undefined> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await pool.run(task, { signal: stop ? AbortSignal.any([stop, timeout]) : timeout });
  } catch (e) {
    if (stop?.aborted) return undefined;
    return failedRun(
      task,
      timeout.aborted
        ? `stopped after ${timeoutMs / 1000} s of wall time (--run-timeout)`
        : `the worker failed: ${e instanceof Error ? e.message : String(e)}`,
      timeoutMs,
    );
  }
}
