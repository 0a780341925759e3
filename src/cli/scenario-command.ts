// The start `run`, `sweep` and `validate` share: parse the flags (node's parseArgs, strict), print the usage for
// --help, and ask for exactly one scenario (a file or a shipped name); anything else is a usage error (exit 2).
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type CliIO, UsageError } from './io.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
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
  let parsed: { values: Values<O>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${usage}`);
  }
  const { values, positionals } = parsed;
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
