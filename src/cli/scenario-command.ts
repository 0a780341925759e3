// The start `run`, `sweep` and `validate` share: parse the flags (parseFlags: a misspelt flag gets a did-you-mean),
// print the usage for --help, and ask for exactly one scenario (a file or a shipped name); anything else is a usage
// error (exit 2).
import type { parseArgs } from 'node:util';
import { type FlagOptions as Options, parseFlags } from './flags.ts';
import { type CliIO, UsageError } from './io.ts';

type Values<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>['values'];

/** The flags and the one scenario argument, or undefined when --help (an option `help`) printed the usage. */
export function scenarioCommandArgs<O extends Options>(
  argv: string[],
  options: O,
  usage: string,
  io: CliIO,
): { values: Values<O>; scenario: string } | undefined {
  // The command's name, from its usage's first line (`Usage: kafkasim run <file> ...`).
  const command = /^Usage: kafkasim (\S+)/.exec(usage)?.[1] ?? 'run';
  const { values, positionals } = parseFlags(command, argv, options);
  if ((values as { help?: boolean }).help) {
    io.stdout(usage);
    return undefined;
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      `${positionals.length === 0 ? 'expected a scenario file' : `expected one scenario file, got ${positionals.length}`}\n\n${usage}`,
    );
  }
  return { values, scenario: positionals[0]! };
}
