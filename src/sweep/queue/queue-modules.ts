// The queue's two packages, bullmq and ioredis, are optional dependencies: a local sweep needs neither, so they
// are imported only when --queue or `kafkasim worker` is used, and their absence is an error that says what to
// install (the versions kafkasim is tested with, from its own package.json).
import { readFileSync } from 'node:fs';
import { ExitCode, KafkasimError } from '../../../models/sim/index.ts';
import { packageFile } from '../../package-files.ts';

export type BullMQ = typeof import('bullmq');
export type IORedisModule = typeof import('ioredis');
export type RedisClient = import('ioredis').Redis;

export interface QueueModules {
  bullmq: BullMQ;
  Redis: IORedisModule['Redis'];
}

export class QueueNotInstalledError extends KafkasimError {
  readonly code = 'QUEUE_NOT_INSTALLED';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'QueueNotInstalledError';
}

/** `bullmq@6.7.6 ioredis@5.11.1`: what kafkasim's package.json pins. */
export function queuePackagesToInstall(): string {
  const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
    optionalDependencies?: Record<string, string>;
  };
  return ['bullmq', 'ioredis']
    .map((name) => {
      const version = pkg.optionalDependencies?.[name];
      return version ? `${name}@${version}` : name;
    })
    .join(' ');
}

const isMissingModule = (e: unknown) =>
  e instanceof Error &&
  ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' ||
    (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND');

/**
 * Imports bullmq and ioredis. `importer` is for tests (a package that is not there); the default is import().
 * Throws QueueNotInstalledError naming the packages to install.
 */
export async function loadQueueModules(
  what: string,
  importer: (name: string) => Promise<unknown> = (name) => import(name),
): Promise<QueueModules> {
  const missing: string[] = [];
  const load = async <T>(name: string): Promise<T | undefined> => {
    try {
      return (await importer(name)) as T;
    } catch (e) {
      if (!isMissingModule(e)) throw e;
      missing.push(name);
      return undefined;
    }
  };
  const bullmq = await load<BullMQ>('bullmq');
  const ioredis = await load<IORedisModule>('ioredis');
  if (!bullmq || !ioredis)
    throw new QueueNotInstalledError(
      `${what} needs the optional package${missing.length === 1 ? '' : 's'} ${missing.join(' and ')} (a Redis queue, BullMQ), which ${missing.length === 1 ? 'is' : 'are'} not installed: npm install ${queuePackagesToInstall()}`,
    );
  return { bullmq, Redis: ioredis.Redis };
}
