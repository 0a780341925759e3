// heal: removes network partitions, isolation and outbound drops.
import type { StepDefinition } from './step.ts';

export const heal: StepDefinition<true> = {
  schema: { type: 'boolean', enum: [true], title: 'true' },
  syntax: '`true`',
  description: 'Removes partitions, isolation and outbound drops (not slow brokers or random drops).',
  describe: () => '# heal the network',
  execute(_v, { cluster }) {
    cluster.sim.network.heal();
    return undefined;
  },
};
