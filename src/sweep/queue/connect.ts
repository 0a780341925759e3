// A Redis connection for the queue that fails fast and clearly when Redis cannot be reached at start, and then
// reconnects on its own (BullMQ needs maxRetriesPerRequest: null, so that a blocked worker waits out a restart of
// Redis instead of failing its commands).
import { SweepInputError } from '../errors.ts';
import { redactedUrl } from './queue-config.ts';
import type { QueueModules, RedisClient } from './queue-modules.ts';

const CONNECT_TIMEOUT_MS = 10_000;

export async function connectRedis(modules: QueueModules, url: string, flag: string): Promise<RedisClient> {
  const client = new modules.Redis(url, { maxRetriesPerRequest: null, lazyConnect: true });
  let lastError: Error | undefined;
  const onError = (e: Error) => {
    lastError = e;
  };
  client.on('error', onError);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(lastError ?? new Error('no answer')), CONNECT_TIMEOUT_MS);
      }),
    ]);
  } catch (e) {
    client.disconnect();
    throw new SweepInputError(
      `${flag} ${redactedUrl(url)}: cannot reach Redis (${(lastError ?? (e as Error)).message})`,
    );
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** Closes a connection, waiting at most a second for its pending replies. */
export async function closeRedis(client: RedisClient): Promise<void> {
  await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  client.disconnect();
}
