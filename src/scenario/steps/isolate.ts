// isolate: drops all traffic to and from a node until `heal`.
import { ref } from '../schema-kit.ts';
import type { NodeRef } from '../types.ts';
import { nodeId } from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const isolate: StepDefinition<NodeRef> = {
  schema: ref('nodeRef'),
  syntax: 'a node: broker id, `controller`, `controller-<id>` or a client name',
  description: 'Drops all traffic to and from a node until `heal`.',
  check: (node, at) => at.checkNode(at.path, node),
  describe: (node) => `# isolate ${node}`,
  execute(node, { cluster }) {
    cluster.sim.network.isolate(nodeId(node));
    return undefined;
  },
};
