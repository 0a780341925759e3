// run: runs the simulation for a while.
import { parseDuration } from '../../../models/sim/index.ts';
import { ref } from '../schema-kit.ts';
import type { StepDefinition } from './step.ts';

export const run: StepDefinition<string> = {
  schema: ref('duration'),
  syntax: "`'30s'`",
  description: 'Runs the simulation for this long.',
  describe: (d) => `# run ${d}`,
  execute(d, at) {
    at.runFor(parseDuration(d));
    return undefined;
  },
};
