// slowBroker: adds a delay to every message to and from a broker.
import { parseDuration } from '../../../models/sim/index.ts';
import { object, ref } from '../schema-kit.ts';
import type { BrokerSelector } from '../types.ts';
import { brokerSelectorText, checkBrokerSelector, nodeId, resolveBroker } from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const slowBroker: StepDefinition<{ broker: BrokerSelector; delay: string }> = {
  schema: object({ broker: ref('brokerSelector'), delay: ref('duration') }, ['broker', 'delay']),
  syntax: '`{broker: <selector>, delay}`',
  description: 'Adds `delay` to every message to and from the broker; 0ms removes it.',
  actsOn: 'broker',
  brokerSelector: (v) => v.broker,
  check: (v, at) => checkBrokerSelector([...at.path, 'broker'], v.broker, at),
  describe: (v, at) =>
    `# slow broker ${brokerSelectorText(v.broker, at.resolveBroker?.(v.broker))} by ${v.delay}`,
  execute(v, at) {
    const id = resolveBroker(v.broker, at);
    at.cluster.sim.network.setExtraDelay(nodeId(id), parseDuration(v.delay));
    return id;
  },
};
