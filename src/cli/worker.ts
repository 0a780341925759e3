// `kafkasim worker --queue redis://host:6379/0`: a worker of the sweep queue (src/sweep/queue): takes runs that
// `kafkasim sweep ... --queue` submitted, runs them in worker threads and stores the results, until stopped.
// SIGINT/SIGTERM: finish the running runs, then exit 0 (a second signal: exit at once; the running runs go back to
// the queue when their locks expire and another worker takes them).
import { hostname } from 'node:os';
import { defaultParallelism } from '../sweep/index.ts';
import {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  parseQueueUrl,
  redactedUrl,
} from '../sweep/queue/queue-config.ts';
import { startQueueWorker } from '../sweep/queue/queue-worker.ts';
import { parseFlags } from './flags.ts';
import { type CliIO, UsageError } from './io.ts';

export const WORKER_USAGE = `Usage: kafkasim worker --queue redis://HOST:6379/0 [options]

Takes the runs of sweeps submitted with \`kafkasim sweep ... --queue\` (same kafkasim version) and runs them in
worker threads until stopped. Start any number, on any machines that reach the Redis server; one that dies loses
nothing (its runs go back to the queue and another worker takes them).

Options:
  --queue URL              the Redis server of the queue (redis:// or rediss://, /N picks the database)
  --concurrency N          runs at once, each in its own thread (default: the number of cores, ${defaultParallelism()} here)
  --name NAME              this worker's name in the queue (default: host name and process id)
  --lock-duration MS       how long a job's lock lasts without renewal (default ${DEFAULT_LOCK_DURATION_MS}); a dead
                           worker's runs are taken again after this plus the stalled interval
  --stalled-interval MS    how often this worker looks for runs whose worker died (default ${DEFAULT_STALLED_INTERVAL_MS})
  --run-timeout SECONDS    stop a run after this much wall time (default 600)
  -h, --help               show this help

Needs the optional packages bullmq and ioredis. SIGINT/SIGTERM: finish the running runs, then exit.
`;

function positiveInt(flag: string, text: string): number {
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`${flag} expects a positive integer, got '${text}'`);
  return Number(text);
}

export interface WorkerCommandOptions {
  /** Stops the worker like SIGTERM (tests). */
  signal?: AbortSignal;
}

export async function workerCommand(
  argv: string[],
  io: CliIO,
  options: WorkerCommandOptions = {},
): Promise<number> {
  const values: Record<string, string | boolean | undefined> = parseFlags(
    'worker',
    argv,
    {
      queue: { type: 'string' },
      concurrency: { type: 'string' },
      name: { type: 'string' },
      'lock-duration': { type: 'string' },
      'stalled-interval': { type: 'string' },
      'run-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    false,
  ).values;
  if (values.help) {
    io.stdout(WORKER_USAGE);
    return 0;
  }
  const str = (k: string) => values[k] as string | undefined;
  if (str('queue') === undefined)
    throw new UsageError(`expected --queue redis://HOST:6379/0\n\n${WORKER_USAGE}`);
  const url = parseQueueUrl('--queue', str('queue')!);
  const concurrency =
    str('concurrency') !== undefined
      ? positiveInt('--concurrency', str('concurrency')!)
      : defaultParallelism();
  const lockDurationMs =
    str('lock-duration') !== undefined ? positiveInt('--lock-duration', str('lock-duration')!) : undefined;
  const stalledIntervalMs =
    str('stalled-interval') !== undefined
      ? positiveInt('--stalled-interval', str('stalled-interval')!)
      : undefined;
  const runTimeout =
    str('run-timeout') !== undefined ? positiveInt('--run-timeout', str('run-timeout')!) : 600;
  const name = str('name') ?? `${hostname()}-${process.pid}`;
  const worker = await startQueueWorker({
    url,
    concurrency,
    name,
    runTimeoutMs: runTimeout * 1000,
    ...(lockDurationMs !== undefined ? { lockDurationMs } : {}),
    ...(stalledIntervalMs !== undefined ? { stalledIntervalMs } : {}),
    log: (line) => io.stderr(`${line}\n`),
  });
  io.stderr(
    `kafkasim worker ${name}: taking runs from ${redactedUrl(url)} (queue ${worker.queue}) on ${concurrency} thread${concurrency === 1 ? '' : 's'}\n`,
  );
  let signals = 0;
  let stopNow: () => void = () => {};
  const onSignal = () => {
    signals++;
    if (signals > 1) process.exit(130);
    io.stderr('Stopping: finishing the running runs (again to quit at once)\n');
    stopNow();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await new Promise<void>((resolve) => {
      stopNow = resolve;
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await worker.close();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  io.stderr('kafkasim worker: stopped\n');
  return 0;
}
