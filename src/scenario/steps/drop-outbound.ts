// dropOutbound: drops messages from one node to others, one direction only.
import { object, ref } from '../schema-kit.ts';
import type { NodeRef } from '../types.ts';
import { nodeId } from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const dropOutbound: StepDefinition<{ from: NodeRef; to: NodeRef | NodeRef[] }> = {
  schema: object(
    {
      from: ref('nodeRef'),
      to: {
        anyOf: [ref('nodeRef'), { type: 'array', items: ref('nodeRef'), minItems: 1 }],
        title: 'a node or a list of nodes',
      },
    },
    ['from', 'to'],
  ),
  syntax: '`{from, to}` (`to`: a node or a list)',
  description: 'Drops messages from `from` to `to` (one direction only), e.g. a leader to its followers.',
  check(v, at) {
    at.checkNode([...at.path, 'from'], v.from);
    if (Array.isArray(v.to)) for (const [j, n] of v.to.entries()) at.checkNode([...at.path, 'to', j], n);
    else at.checkNode([...at.path, 'to'], v.to);
  },
  describe: (v) => `# drop messages from ${v.from} to ${[v.to].flat().join(', ')}`,
  execute(v, { cluster }) {
    cluster.sim.network.dropOutbound(nodeId(v.from), [v.to].flat().map(nodeId));
    return undefined;
  },
};
