// partition: splits the network into groups of nodes that talk only among themselves.
import { ref } from '../schema-kit.ts';
import type { NodeRef } from '../types.ts';
import { nodeId } from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const partition: StepDefinition<NodeRef[][]> = {
  schema: {
    type: 'array',
    items: { type: 'array', items: ref('nodeRef'), minItems: 1 },
    minItems: 1,
    title: 'a list of groups of nodes',
  },
  syntax: '`[[1], [2, 3]]` (nodes: broker id, `controller`, `controller-<id>`, client name)',
  description:
    'Splits the network: nodes talk only within their group; nodes not listed form one more group together.',
  check(groups, at) {
    for (const [gi, g] of groups.entries())
      for (const [ni, n] of g.entries()) at.checkNode([...at.path, gi, ni], n);
  },
  describe: (groups) => `# network partition: ${groups.map((g) => `[${g.join(', ')}]`).join(' | ')}`,
  execute(groups, { cluster }) {
    cluster.sim.network.partition(groups.map((g) => g.map(nodeId)));
    return undefined;
  },
};
