// stop: stops clients declared under `clients`.
import { checkNames, type Names, names, startOrStop } from './client-names.ts';
import type { StepDefinition } from './step.ts';

export const stop: StepDefinition<Names> = {
  schema: names,
  syntax: '`<client>` or `[<client>, ...]`',
  description:
    'Stops clients: workloads stop generating (records already handed over still complete); consumers stop.',
  check: (v, at) => checkNames(v, at, false),
  describe: (v) => `# stop ${[v].flat().join(', ')}`,
  execute: (v, at) => startOrStop(v, at, false),
};
