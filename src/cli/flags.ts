// Every command's flags go through parseFlags: node's parseArgs (strict), with its errors said the way a user
// needs them: `unknown option '--sed' (did you mean '--seed'?)`, `option '--seed' needs a value`, and a pointer to
// the command's --help instead of Node's parser text.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { didYouMeanSuffix } from '../did-you-mean.ts';
import { UsageError } from './io.ts';

export type FlagOptions = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends FlagOptions, P extends boolean> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: P; strict: true }>
>;

/**
 * Parses `argv` for `kafkasim <command>`; a flag it does not know, a missing value or a stray argument is a
 * UsageError that names the flag, suggests the nearest known one and points at `kafkasim <command> --help`.
 */
export function parseFlags<O extends FlagOptions, P extends boolean = true>(
  command: string,
  argv: string[],
  options: O,
  allowPositionals: P = true as P,
): Parsed<O, P> {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true }) as Parsed<O, P>;
  } catch (e) {
    throw new UsageError(`${flagProblem(e as Error & { code?: string }, options)}\n${helpPointer(command)}`);
  }
}

/** `Run 'kafkasim run --help' for its options.` */
export function helpPointer(command: string): string {
  return `Run 'kafkasim ${command} --help' for its options.`;
}

function flagProblem(e: Error & { code?: string }, options: FlagOptions): string {
  const flags = Object.entries(options).flatMap(([name, o]) => [
    `--${name}`,
    ...(o.short ? [`-${o.short}`] : []),
  ]);
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const flag = /'([^']+)'/.exec(e.message)?.[1];
      if (flag === undefined) break;
      const name = flag.split('=')[0]!;
      return `unknown option '${name}'${didYouMeanSuffix(name, flags)}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      // "Option '--seed <value>' argument missing" or "Option '--json' does not take an argument".
      const flag = /'(-[^' ]+)/.exec(e.message)?.[1];
      if (flag === undefined) break;
      return /missing/.test(e.message) ? `option '${flag}' needs a value` : `option '${flag}' takes no value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const arg = /'([^']*)'/.exec(e.message)?.[1];
      if (arg === undefined) break;
      return `unexpected argument '${arg}'`;
    }
  }
  return e.message;
}
