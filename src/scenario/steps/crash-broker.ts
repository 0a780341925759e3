// crashBroker: crashes a broker named by id, by the partition it leads, or by an earlier step.
import { ref } from '../schema-kit.ts';
import type { BrokerSelector } from '../types.ts';
import {
  BROKER_SELECTOR_SYNTAX,
  brokerSelectorText,
  checkBrokerSelector,
  resolveBroker,
} from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const crashBroker: StepDefinition<BrokerSelector> = {
  schema: ref('brokerSelector'),
  syntax: BROKER_SELECTOR_SYNTAX,
  description: 'Crashes a broker: it loses everything not on disk and receives nothing until restarted.',
  actsOn: 'broker',
  brokerSelector: (sel) => sel,
  check: (sel, at) => checkBrokerSelector(at.path, sel, at),
  describe: (sel, at) => `# crash broker ${brokerSelectorText(sel, at.resolveBroker?.(sel))}`,
  execute(sel, at) {
    const id = resolveBroker(sel, at);
    at.cluster.crashBroker(id);
    return id;
  },
};
