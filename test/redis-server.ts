// A real redis-server for tests (Debian's package; .ci/run installs it): started on a free loopback port with no
// persistence, in a folder of its own, and stopped by the test. Tests skip with a message on a machine without it,
// except under CI (the CI environment variable, set by GitHub Actions and GitLab), where its absence fails them.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  url: string;
  port: number;
  /** The server's process id (the queue benchmark reads its CPU time). */
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const MISSING = 'redis-server is not installed: apt-get install redis-server (as .ci/run does)';

/** Whether Debian's redis-server is on the PATH. */
export const haveRedisServer = (): boolean => spawnSync('redis-server', ['--version']).status === 0;

/**
 * For `describe.skipIf(!redisServerOrSkip(what))`: true when redis-server is there; otherwise warns that `what` is
 * skipped and why, or, under CI, throws (CI installs it, so there its absence is a failure, not a skip).
 */
export function redisServerOrSkip(what: string): boolean {
  if (haveRedisServer()) return true;
  if (process.env.CI) throw new Error(`${MISSING}; CI=${process.env.CI} so ${what} may not be skipped`);
  console.warn(`SKIPPED ${what}: ${MISSING}.`);
  return false;
}

export async function startRedisServer(): Promise<RedisServer> {
  if (!haveRedisServer()) throw new Error(MISSING);
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 30_000);
    child.stdout!.on('data', (d) => {
      output += d;
      if (/Ready to accept connections/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
