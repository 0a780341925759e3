// `kafkasim worker --queue URL`: takes run jobs from the sweep queue of its kafkasim version and runs them in worker
// threads, as many at once as it has threads, and stores each run's outcome as the job's result. Workers can be
// started and stopped at any time on any number of machines; one that dies loses nothing, since its jobs go back to
// the queue once their locks expire (queue-config.ts). Closing waits for the running jobs to finish; closing with
// force leaves them to be taken again elsewhere.

import type { RunTask } from '../run-cell.ts';
import { createRunPool, failedRun, runInPool } from '../run-pool.ts';
import type { RunOutcome } from '../sweep-document.ts';
import { closeRedis, connectRedis } from './connect.ts';
import {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  MAX_STALLED_COUNT,
  queueName,
} from './queue-config.ts';
import { loadQueueModules, type QueueModules } from './queue-modules.ts';
import type { RunJobData } from './run-job.ts';
import { ScenarioCache } from './scenario-store.ts';

export interface QueueWorkerOptions {
  url: string;
  /** Runs at once (worker threads). */
  concurrency: number;
  /** The worker's name (on each job it takes: BullMQ's processedBy). */
  name?: string;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Wall-clock limit per run (default 10 minutes, as a local sweep's). */
  runTimeoutMs?: number;
  /** A line per job started and finished, and problems. */
  log?: (line: string) => void;
  modules?: QueueModules;
}

export interface QueueWorkerHandle {
  queue: string;
  /** Stops taking jobs; waits for running ones (force: abandons them to be retried elsewhere). */
  close(force?: boolean): Promise<void>;
}

export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const modules = options.modules ?? (await loadQueueModules('kafkasim worker'));
  const log = options.log ?? (() => {});
  const connection = await connectRedis(modules, options.url, '--queue');
  const scenarios = new ScenarioCache(connection);
  const pool = await createRunPool(options.concurrency);
  const runTimeoutMs = options.runTimeoutMs ?? 600_000;
  const name = queueName();
  const worker = new modules.bullmq.Worker<RunJobData, RunOutcome>(
    name,
    async (job) => {
      const data = job.data;
      const what = `${job.id} (sweep ${data.sweep} cell ${data.cell} seed ${data.seed})`;
      log(`run ${what} started`);
      const started = performance.now();
      const path = await scenarios.path(data.scenarioSha256, data.scenarioFile);
      const task: RunTask = { path, set: data.set, seed: data.seed, metrics: data.metrics };
      const outcome = (await runInPool(pool, task, runTimeoutMs)) ?? failedRun(task, 'the worker stopped', 0);
      log(
        `run ${what} ${outcome.error ? `stopped early: ${outcome.error}` : outcome.passed ? 'passed' : 'failed its expectations'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      return outcome;
    },
    {
      connection,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
      stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
      maxStalledCount: MAX_STALLED_COUNT,
      ...(options.name ? { name: options.name } : {}),
    },
  );
  worker.on('failed', (job, e) => log(`run ${job?.id ?? '?'} could not run: ${e.message}`));
  worker.on('error', (e) => log(`queue error: ${e.message}`));
  await worker.waitUntilReady();
  let closing: Promise<void> | undefined;
  return {
    queue: name,
    close: (force = false) =>
      (closing ??= (async () => {
        await worker.close(force);
        await pool.destroy();
        await closeRedis(connection);
        scenarios.dispose();
      })()),
  };
}
