#!/usr/bin/env node
// The kafkasim command. The sources are TypeScript run through tsx's loader, so a fresh clone needs
// no build step: `npm ci && npx kafkasim ...` works as is.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (`kafkasim ... | head`) ends the command quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
try {
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  // main() turns every user-facing problem into a message; what reaches here is a broken installation.
  process.stderr.write(`kafkasim: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.KAFKASIM_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 3;
}
