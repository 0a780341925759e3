// How a served Lake is set up: its one user's credentials (from --lake-user, else generated and printed at
// start: never Databend's `root` with an empty password), DuckDB's memory and thread limits, and a per-statement
// time limit. The time limit is a wall-clock timer, so it lives here and reaches the model as a watchdog.
import { randomBytes } from 'node:crypto';
import type { LakeOptions } from '../../models/lake/index.ts';

export interface LakeCredentials {
  user: string;
  password: string;
}

export interface ServedLakeLimits {
  memoryLimit: string;
  threads: number;
  /** Wall time one statement may run before it is interrupted. */
  queryTimeoutMs: number;
}

/** What a served Lake may use (docs/security.md). */
export const SERVED_LAKE_LIMITS: Readonly<ServedLakeLimits> = {
  memoryLimit: '1GB',
  threads: 2,
  queryTimeoutMs: 30_000,
};

/** `root` with a fresh random password (18 random bytes, base64url). */
export function generatedLakeCredentials(): LakeCredentials {
  return { user: 'root', password: randomBytes(18).toString('base64url') };
}

/** `user:password` (the password may hold colons). Throws RangeError saying what is wrong. */
export function parseLakeCredentials(text: string): LakeCredentials {
  const colon = text.indexOf(':');
  const user = colon < 0 ? text : text.slice(0, colon);
  const password = colon < 0 ? '' : text.slice(colon + 1);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(user))
    throw new RangeError(`the Lake user must be 1 to 64 letters, digits, '.', '_' or '-', got '${user}'`);
  if (password.length < 1 || password.length > 256)
    throw new RangeError('the Lake password must not be empty (give --lake-user USER:PASSWORD)');
  return { user, password };
}

/** The Lake options of every world a server builds. */
export function servedLakeOptions(
  credentials: LakeCredentials,
  limits: Readonly<ServedLakeLimits> = SERVED_LAKE_LIMITS,
): LakeOptions {
  const users: Record<string, string> = Object.create(null);
  users[credentials.user] = credentials.password;
  return {
    users,
    engine: { memoryLimit: limits.memoryLimit, threads: limits.threads },
    watchdog: (interrupt) => {
      const timer = setTimeout(interrupt, limits.queryTimeoutMs);
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}
