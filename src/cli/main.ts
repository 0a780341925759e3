// The `kafkasim` command: dispatches to subcommands, prints help and version, and turns bad input into a clear
// message with exit code 2 instead of a stack trace.
// Each subcommand's module is imported when that command runs, so `kafkasim --help` or `list` does not load the
// HTTP server, the sweep's worker pool or the simulation models (start-up time is the price of every call).
import { ExitCode, KafkasimError } from '../../models/sim/kafkasim-error.ts';
import { didYouMeanSuffix } from '../did-you-mean.ts';
import { packageVersion } from '../package-files.ts';
import { type CliIO, processIO } from './io.ts';

type CommandFn = (argv: string[], io: CliIO) => number | Promise<number>;

export interface Command {
  summary: string;
  /** Imports the command's module and returns its entry point. */
  load(): Promise<CommandFn>;
}

export const commands: Record<string, Command> = {
  demo: {
    summary:
      "a short narrated run: a leader's broker dies, a new leader comes from the ISR, nothing acked is lost",
    load: async () => (await import('./demo.ts')).demoCommand,
  },
  run: {
    summary: 'run a scenario file (or a shipped scenario by name) and check its expectations',
    load: async () => (await import('./run.ts')).runCommand,
  },
  validate: {
    summary: 'check a scenario file without running it',
    load: async () => (await import('./validate.ts')).validateCommand,
  },
  list: { summary: 'list the shipped scenarios', load: async () => (await import('./list.ts')).listCommand },
  sweep: {
    summary: 'run a scenario over a grid of settings and seeds in parallel; compare metrics (what-if)',
    load: async () => (await import('./sweep.ts')).sweepCommand,
  },
  worker: {
    summary:
      'take the runs of sweeps submitted with `sweep --queue` from Redis and run them (an elastic pool)',
    load: async () => (await import('./worker.ts')).workerCommand,
  },
  serve: {
    summary: 'serve a simulated cluster over HTTP (REST v3 admin, simulation control, the web UI at /)',
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  ui: {
    summary: 'serve with the web UI and print its URL: watch, break, rewind and fork a cluster; lessons',
    load: async () => (await import('./serve.ts')).uiCommand,
  },
  topics: {
    summary: 'kafka-topics.sh against a running `kafkasim serve`',
    load: async () => (await import('./topics.ts')).topicsCommand,
  },
  'reassign-partitions': {
    summary: 'kafka-reassign-partitions.sh against a running `kafkasim serve`',
    load: async () => (await import('./reassign-partitions.ts')).reassignPartitionsCommand,
  },
  'consumer-groups': {
    summary: 'kafka-consumer-groups.sh against a running `kafkasim serve`',
    load: async () => (await import('./consumer-groups.ts')).consumerGroupsCommand,
  },
  'producer-perf-test': {
    summary: 'kafka-producer-perf-test.sh against a running `kafkasim serve`',
    load: async () => (await import('./producer-perf-test.ts')).producerPerfTestCommand,
  },
  'consumer-perf-test': {
    summary: 'kafka-consumer-perf-test.sh against a running `kafkasim serve`',
    load: async () => (await import('./consumer-perf-test.ts')).consumerPerfTestCommand,
  },
};

export function version(): string {
  return packageVersion();
}

function help(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'kafkasim: a deterministic simulator of a Kafka-compatible cluster',
    '',
    'Usage: kafkasim <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    "  -h, --help     show this help (`kafkasim <command> --help` or `kafkasim help <command>`: a command's own)",
    '  -V, --version  print the version',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  let [first, ...rest] = argv;
  // `kafkasim help run` is `kafkasim run --help`.
  if (first === 'help' && rest[0] !== undefined && commands[rest[0]]) [first, rest] = [rest[0], ['--help']];
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout(help());
    return 0;
  }
  if (first === '-V' || first === '--version' || first === 'version') {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const command = commands[first];
  if (!command) {
    const what = first.startsWith('-') ? 'option' : 'command';
    const known = first.startsWith('-') ? ['--help', '--version'] : Object.keys(commands);
    io.stderr(
      `kafkasim: unknown ${what} '${first}'${didYouMeanSuffix(first, known)}. Run 'kafkasim --help' for the list of commands.\n`,
    );
    return 2;
  }
  // Errors name the command the user typed: `kafkasim sweep merge: ...` for the subcommand, as its --help pointer does.
  const label = first === 'sweep' && rest[0] === 'merge' ? 'sweep merge' : first;
  try {
    return await (await command.load())(rest, io);
  } catch (e) {
    // kafkasim's own errors end the command with their exit code: invalid input (2) and failed runs (1) print
    // their message; the rest (3, and anything not a KafkasimError) are bugs, printed as internal errors.
    if (e instanceof KafkasimError && e.exitCode !== ExitCode.internal) {
      io.stderr(`kafkasim ${label}: ${e.message}\n`);
      return e.exitCode;
    }
    const msg = e instanceof Error ? e.message : String(e);
    io.stderr(`kafkasim ${label}: internal error: ${msg}\n`);
    if (io.env.KAFKASIM_DEBUG && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
    return ExitCode.internal;
  }
}
