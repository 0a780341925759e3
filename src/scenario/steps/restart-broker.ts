// restartBroker: starts a crashed broker again (named as crashBroker names it).
import { ref } from '../schema-kit.ts';
import type { BrokerSelector } from '../types.ts';
import {
  BROKER_SELECTOR_SYNTAX,
  brokerSelectorText,
  checkBrokerSelector,
  resolveBroker,
} from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const restartBroker: StepDefinition<BrokerSelector> = {
  schema: ref('brokerSelector'),
  syntax: BROKER_SELECTOR_SYNTAX,
  description: 'Starts a crashed broker again.',
  actsOn: 'broker',
  brokerSelector: (sel) => sel,
  check: (sel, at) => checkBrokerSelector(at.path, sel, at),
  describe: (sel, at) => `# restart broker ${brokerSelectorText(sel, at.resolveBroker?.(sel))}`,
  execute(sel, at) {
    const id = resolveBroker(sel, at);
    at.cluster.restartBroker(id);
    return id;
  },
};
