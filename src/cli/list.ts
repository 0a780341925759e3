// `kafkasim list`: the scenarios shipped in scenarios/, each with the first line of its description.
import { relative } from 'node:path';
import { listShippedScenarios } from '../scenario/shipped.ts';
import { parseFlags } from './flags.ts';
import type { CliIO } from './io.ts';

export function listCommand(argv: string[], io: CliIO): number {
  const { values } = parseFlags(
    'list',
    argv,
    { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    false,
  );
  if (values.help) {
    io.stdout('Usage: kafkasim list [--json]\n\nLists the scenarios that ship with kafkasim.\n');
    return 0;
  }
  const scenarios = listShippedScenarios();
  if (values.json) {
    io.stdout(
      `${JSON.stringify(scenarios.map((s) => ({ id: s.id, name: s.name, summary: s.summary, file: relative(process.cwd(), s.file) })))}\n`,
    );
    return 0;
  }
  if (scenarios.length === 0) {
    io.stdout('No scenarios are shipped.\n');
    return 0;
  }
  const width = Math.max(...scenarios.map((s) => s.id.length));
  for (const s of scenarios) io.stdout(`${s.id.padEnd(width)}  ${s.summary}\n`);
  io.stdout(`\nRun one with: kafkasim run <name>   (or a path to your own .yaml)\n`);
  return 0;
}
