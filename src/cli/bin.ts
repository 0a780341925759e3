#!/usr/bin/env node
// The `kafkasim` command's entry point (package.json's bin runs the build of this file, dist/src/cli/bin.js).
import module from 'node:module';

// Node 22.1+ can keep V8's compiled code of the modules between runs (a cold start then skips parsing and
// compiling them again); older Node has no such switch and starts as before.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// A closed pipe (`kafkasim ... | head`) ends the command quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
try {
  const { main } = await import('./main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  // main() turns every user-facing problem into a message; what reaches here is a broken installation.
  process.stderr.write(`kafkasim: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.KAFKASIM_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 3;
}
