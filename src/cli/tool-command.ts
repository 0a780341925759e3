// The start every Kafka-tool command shares: parse the flags the tool knows, print the usage for --help, and
// refuse anything else (a bad flag or a stray argument) with the usage, as exit code 2.
import { type OptionKind, type ParsedToolArgs, parseToolArgs, ToolArgsError } from '../api/tool-args.ts';
import { type CliIO, UsageError } from './io.ts';

/** The parsed flags, or undefined when --help printed the usage (the command then exits 0). */
export function toolCommandArgs(
  argv: readonly string[],
  spec: Readonly<Record<string, OptionKind>>,
  usage: string,
  io: CliIO,
): ParsedToolArgs | undefined {
  // -h as well as Kafka's --help, as every kafkasim command takes it.
  if (argv.includes('-h')) {
    io.stdout(usage);
    return undefined;
  }
  let args: ParsedToolArgs;
  try {
    args = parseToolArgs(argv, spec);
  } catch (e) {
    if (e instanceof ToolArgsError) throw new UsageError(`${e.message}\n\n${usage}`);
    throw e;
  }
  if (args.has('help')) {
    io.stdout(usage);
    return undefined;
  }
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${args.positionals[0]}'\n\n${usage}`);
  return args;
}
