// Where a sweep's queue lives and how its workers hold jobs.
// - The URL: redis://[user:password@]host:port/db (or rediss:// for TLS), as ioredis reads it.
// - The queue's name carries kafkasim's version: a run is deterministic for one version only, so workers of another
//   version never take a sweep's jobs (they listen on their own version's queue).
// - Locks: a worker holds a job under a lock it renews every lockDuration/2 from its main thread, which stays idle
//   while runs go on in worker threads, so a long run keeps its lock however long it takes. A worker that dies
//   stops renewing: after lockDuration its jobs count as stalled, and the next stalled check by any other worker
//   (every stalledInterval) puts them back in the queue, so another worker runs them. BullMQ's defaults are 30 s
//   and 30 s; kafkasim checks twice as often (15 s), so a killed worker's runs restart within 45 s. A job that
//   stalls more than maxStalledCount times (3: a run that kills its worker, e.g. out of memory) fails, and the
//   sweep reports it as a failed run instead of looping. See BullMQ's guide, "Stalled Jobs"
//   (https://docs.bullmq.io/guide/workers/stalled-jobs).
import { packageVersion } from '../../package-files.ts';
import { SweepInputError } from '../errors.ts';

export const DEFAULT_LOCK_DURATION_MS = 30_000;
export const DEFAULT_STALLED_INTERVAL_MS = 15_000;
export const MAX_STALLED_COUNT = 3;
/** Attempts of a job whose run threw in the worker (not a failed run: runs report their own errors). */
export const JOB_ATTEMPTS = 3;
/** Finished jobs are kept this long, so that submitting the same sweep again collects them instead of rerunning. */
export const KEEP_FINISHED_S = 7 * 24 * 3600;

export function queueName(version: string = packageVersion()): string {
  return `kafkasim-sweep-${version}`;
}

/** Checks a --queue URL; returns it as given. Throws SweepInputError. */
export function parseQueueUrl(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SweepInputError(`${flag} ${text}: not a URL; expected redis://host:6379/0`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new SweepInputError(
      `${flag} ${text}: expected a redis:// (or rediss://) URL, e.g. redis://host:6379/0, not ${url.protocol}//`,
    );
  if (!url.hostname) throw new SweepInputError(`${flag} ${text}: the URL names no host`);
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    throw new SweepInputError(`${flag} ${text}: the path must be a database number (/0), not /${db}`);
  return text;
}

/** The URL without its password, for messages. */
export function redactedUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return text;
  }
}
