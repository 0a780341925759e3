// crashController: crashes a controller (by id, the active one, or an earlier step's), now or after a delay.
import { ref } from '../schema-kit.ts';
import type { ControllerAction } from '../types.ts';
import { actOnController, CONTROLLER_ACTION_SYNTAX } from './controller-step.ts';
import { checkControllerAction, controllerActionText } from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const crashController: StepDefinition<ControllerAction> = {
  schema: ref('controllerAction'),
  syntax: CONTROLLER_ACTION_SYNTAX,
  description:
    'Crashes a controller: it keeps only what its Raft log flushed (and its quorum state); with a quorum the others elect a new leader, which becomes the active controller.',
  actsOn: 'controller',
  controllerAction: (a) => a,
  check: (a, at) => checkControllerAction(at.path, a, at),
  describe: (a, at) => `# crash controller ${controllerActionText(a, at.resolveController?.(a))}`,
  execute: (a, at) => actOnController(a, at, true),
};
