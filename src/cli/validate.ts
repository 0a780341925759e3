// `kafkasim validate <file>`: checks a scenario (YAML, schema, references, --set overrides) without running it.
// Exit 0 when valid, 2 with every problem located (file:line:column, path, what was expected) when not.
import { loadScenarioFile, ScenarioError } from '../scenario/index.ts';
import type { CliIO } from './io.ts';
import { reportScenarioError, resolveScenarioPath } from './run.ts';
import { scenarioCommandArgs } from './scenario-command.ts';

const USAGE = `Usage: kafkasim validate <file|shipped-name> [--set path=value]...

Checks a scenario without running it. Exit code: 0 valid, 2 invalid.
`;

export function validateCommand(argv: string[], io: CliIO): number {
  const parsed = scenarioCommandArgs(
    argv,
    { set: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  const file = resolveScenarioPath(parsed.scenario);
  try {
    const loaded = loadScenarioFile(file, values.set ? { set: values.set } : {});
    const { spec } = loaded;
    const n = (list: unknown[] | undefined, what: string) =>
      `${list?.length ?? 0} ${what}${list?.length === 1 ? '' : 's'}`;
    io.stdout(
      `${file}: valid scenario '${spec.name}' (${spec.raftTestServer ? `${Object.keys(spec.raftTestServer.properties).length} Raft test servers` : `${loaded.brokerIds.length} brokers`}, ${n(spec.timeline, 'step')}, ${n(spec.expectations, 'expectation')})\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof ScenarioError) return reportScenarioError(e, 'validate', io, file);
    throw e;
  }
}
