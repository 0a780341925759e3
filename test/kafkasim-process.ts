// The `kafkasim` command as a real process, run from the TypeScript sources (node with tsx's loader), so tests
// of signals, ports and exit codes need no build. test/package/package.test.ts runs the built, installed command.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../src/cli/bin.ts', import.meta.url));

/** `kafkasim <args>` from the sources. */
export function spawnKafkasim(args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', BIN, ...args], options);
}
