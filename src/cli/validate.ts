// `kafkasim validate <file>`: checks a scenario (YAML, schema, references, --set overrides) without running it.
// Exit 0 when valid, 2 with every problem located (file:line:column, path, what was expected) when not.
import { parseArgs } from 'node:util';
import { loadScenarioFile, ScenarioError } from '../scenario/index.ts';
import { type CliIO, UsageError } from './io.ts';
import { reportScenarioError, resolveScenarioPath } from './run.ts';

const USAGE = `Usage: kafkasim validate <file|shipped-name> [--set path=value]...

Checks a scenario without running it. Exit code: 0 valid, 2 invalid.
`;

export function validateCommand(argv: string[], io: CliIO): number {
  let values: { set?: string[]; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { set: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one scenario file\n\n${USAGE}`);
  const file = resolveScenarioPath(positionals[0]!);
  try {
    const loaded = loadScenarioFile(file, values.set ? { set: values.set } : {});
    const { spec } = loaded;
    const n = (list: unknown[] | undefined, what: string) =>
      `${list?.length ?? 0} ${what}${list?.length === 1 ? '' : 's'}`;
    io.stdout(
      `${file}: valid scenario '${spec.name}' (${loaded.brokerIds.length} brokers, ${n(spec.timeline, 'step')}, ${n(spec.expectations, 'expectation')})\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof ScenarioError) return reportScenarioError(e, 'validate', io, file);
    throw e;
  }
}
