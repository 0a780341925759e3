// start: starts clients declared under `clients`.
import { checkNames, type Names, names, startCommand, startOrStop } from './client-names.ts';
import type { StepDefinition } from './step.ts';

export const start: StepDefinition<Names> = {
  schema: names,
  syntax: '`<client>` or `[<client>, ...]`',
  description: 'Starts clients declared under `clients` (workloads begin producing).',
  check: (v, at) => checkNames(v, at, true),
  describe: (v, { spec }) => startCommand(v, spec),
  execute: (v, at) => startOrStop(v, at, true),
};
