// `kafkasim sweep ... --queue URL`: the sweep's runs as jobs on a BullMQ queue in Redis, one job per (cell, seed)
// with an id that is a hash of the run (run-job.ts), taken by `kafkasim worker` processes anywhere. The submitter
// listens for finished jobs (BullMQ's queue events) and builds the same document as a local sweep from their
// results, so the table, CSV, JSON and report are the same. Runs finished before (by an earlier submission of this
// sweep, or of another sweep sharing runs) are collected, not run again; runs the queue gave up on (a job that
// failed every attempt) are put back once. Stopping the submitter leaves its jobs on the queue: workers go on with
// them, and submitting the sweep again collects what they finished.
import { basename } from 'node:path';
import type { PlannedRun, SweepPlan } from '../plan.ts';
import { failedRun } from '../run-pool.ts';
import type { SweepProgress } from '../run-sweep.ts';
import {
  type CellResult,
  finishCell,
  type RunOutcome,
  type SweepDocument,
  sweepDocument,
} from '../sweep-document.ts';
import { closeRedis, connectRedis } from './connect.ts';
import { JOB_ATTEMPTS, KEEP_FINISHED_S, queueName, redactedUrl } from './queue-config.ts';
import { loadQueueModules, type QueueModules } from './queue-modules.ts';
import { type RunJobData, runJobData, runJobId } from './run-job.ts';
import { scenarioForQueue, storeScenario } from './scenario-store.ts';

export interface QueueProgress extends SweepProgress {
  /** Workers connected to the queue (all machines). */
  workers: number;
}

export interface QueueSweepOptions {
  url: string;
  signal?: AbortSignal;
  onProgress?: (progress: QueueProgress) => void;
  /** Lines for the person waiting (what was submitted, what is already done). */
  log?: (line: string) => void;
  modules?: QueueModules;
}

/** How often the submitter checks on the jobs it has not heard of (events are the main way) and on the workers. */
const RECHECK_MS = 10_000;
const WORKERS_MS = 2_000;
const BATCH = 500;

/** A job's result as stored by a worker; anything else is reported as a failed run. */
function outcomeOf(value: unknown, run: PlannedRun, metrics: string[]): RunOutcome {
  const v = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  const o = v as Partial<RunOutcome> | null;
  if (!o || typeof o !== 'object' || typeof o.metrics !== 'object' || typeof o.passed !== 'boolean')
    return failedRun({ path: '', set: [], seed: run.seed, metrics }, 'the worker stored no result', 0);
  return o as RunOutcome;
}

async function inBatches<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(each));
}

export async function runSweepOnQueue(plan: SweepPlan, options: QueueSweepOptions): Promise<SweepDocument> {
  const started = performance.now();
  const scenario = scenarioForQueue(plan.path, plan.set);
  const modules = options.modules ?? (await loadQueueModules('--queue'));
  const log = options.log ?? (() => {});
  const client = await connectRedis(modules, options.url, '--queue');
  const eventsClient = await connectRedis(modules, options.url, '--queue').catch(async (e) => {
    await closeRedis(client);
    throw e;
  });
  const name = queueName();
  const queue = new modules.bullmq.Queue<RunJobData, RunOutcome>(name, {
    connection: client,
    defaultJobOptions: {
      attempts: JOB_ATTEMPTS,
      backoff: { type: 'fixed', delay: 1000 },
      removeOnComplete: { age: KEEP_FINISHED_S },
      removeOnFail: { age: KEEP_FINISHED_S },
    },
  });
  const events = new modules.bullmq.QueueEvents(name, { connection: eventsClient });
  const timers: NodeJS.Timeout[] = [];
  try {
    await storeScenario(client, scenario.sha256, scenario.text);
    const file = { sha256: scenario.sha256, file: basename(plan.path) };
    const jobs = plan.runs.map((run, i) => {
      const data = runJobData(plan, run, file);
      return { i, run, id: runJobId(data), data };
    });
    const byId = new Map(jobs.map((j) => [j.id, j]));
    const outcomes: (RunOutcome | undefined)[] = new Array(jobs.length).fill(undefined);
    const runsOfCell = new Map<number, number>();
    for (const { cell } of plan.runs) runsOfCell.set(cell.index, (runsOfCell.get(cell.index) ?? 0) + 1);
    const doneOfCell = new Map<number, number>();
    const progress: QueueProgress = {
      cellsDone: 0,
      cells: plan.selected.length,
      runsDone: 0,
      runs: jobs.length,
      workers: 0,
    };
    let allDone: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const record = (id: string, outcome: RunOutcome) => {
      const job = byId.get(id);
      if (!job || outcomes[job.i] !== undefined) return;
      outcomes[job.i] = outcome;
      progress.runsDone++;
      const cell = job.run.cell.index;
      const done = (doneOfCell.get(cell) ?? 0) + 1;
      doneOfCell.set(cell, done);
      if (done === runsOfCell.get(cell)) progress.cellsDone++;
      options.onProgress?.({ ...progress });
      if (progress.runsDone === jobs.length) allDone();
    };
    /** Looks at a job: records it when finished; `retry`: a job the queue gave up on is queued again. */
    const check = async (id: string, retry: boolean) => {
      const job = await queue.getJob(id);
      if (!job) return;
      const state = await job.getState();
      const run = byId.get(id)!.run;
      if (state === 'completed') record(id, outcomeOf(job.returnvalue, run, plan.metrics));
      else if (state === 'failed' && retry) await job.retry('failed');
      else if (state === 'failed')
        record(
          id,
          failedRun(
            { path: '', set: [], seed: run.seed, metrics: plan.metrics },
            `the queue gave up on this run: ${job.failedReason}`,
            0,
          ),
        );
    };
    events.on('completed', ({ jobId, returnvalue }) => {
      const job = byId.get(jobId);
      if (job) record(jobId, outcomeOf(returnvalue, job.run, plan.metrics));
    });
    events.on('failed', ({ jobId }) => {
      if (byId.has(jobId)) void check(jobId, false).catch(() => undefined);
    });
    await events.waitUntilReady();
    // Listening before adding: no job can finish unheard.
    for (let i = 0; i < jobs.length; i += BATCH)
      await queue.addBulk(
        jobs.slice(i, i + BATCH).map((j) => ({ name: 'run', data: j.data, opts: { jobId: j.id } })),
      );
    await inBatches(jobs, (j) => check(j.id, true));
    progress.workers = await queue.getWorkersCount();
    log(
      `Submitted ${jobs.length} runs to ${redactedUrl(options.url)} (queue ${name}, sweep ${plan.identity.id}): ${progress.runsDone} already done, ${jobs.length - progress.runsDone} to run; ${progress.workers} worker${progress.workers === 1 ? '' : 's'} connected${progress.workers === 0 ? ` (start \`kafkasim worker --queue ${redactedUrl(options.url)}\` on any machine)` : ''}`,
    );
    options.onProgress?.({ ...progress });
    if (progress.runsDone === jobs.length) allDone();
    timers.push(
      setInterval(() => {
        void queue
          .getWorkersCount()
          .then((n) => {
            if (n !== progress.workers) {
              progress.workers = n;
              options.onProgress?.({ ...progress });
            }
          })
          .catch(() => undefined);
      }, WORKERS_MS),
      setInterval(() => {
        const open = jobs.filter((j) => outcomes[j.i] === undefined);
        void inBatches(open, (j) => check(j.id, false)).catch(() => undefined);
      }, RECHECK_MS),
    );
    const stopped = new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([finished, stopped]);
    const interrupted = progress.runsDone < jobs.length;
    if (interrupted)
      log(
        `${jobs.length - progress.runsDone} runs stay on the queue: workers go on with them, and submitting this sweep again collects them`,
      );
    const jobsOfCell = new Map<number, typeof jobs>();
    for (const j of jobs) jobsOfCell.set(j.run.cell.index, [...(jobsOfCell.get(j.run.cell.index) ?? []), j]);
    const cells: CellResult[] = [];
    for (const cell of plan.selected) {
      const mine = jobsOfCell.get(cell.index) ?? [];
      if (mine.every((j) => outcomes[j.i] !== undefined))
        cells.push(
          finishCell(
            cell,
            mine.map((j) => outcomes[j.i]!),
            plan.metrics,
          ),
        );
    }
    return sweepDocument(plan, cells, { interrupted, wallMs: performance.now() - started });
  } finally {
    for (const t of timers) clearInterval(t);
    await events.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    await closeRedis(eventsClient);
    await closeRedis(client);
  }
}
