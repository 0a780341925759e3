// restartController: starts a controller again (crashing it first if it is up), now or after a delay.
import { ref } from '../schema-kit.ts';
import type { ControllerAction } from '../types.ts';
import { actOnController, CONTROLLER_ACTION_SYNTAX } from './controller-step.ts';
import { checkControllerAction, controllerActionText } from './selectors.ts';
import type { StepDefinition } from './step.ts';

export const restartController: StepDefinition<ControllerAction> = {
  schema: ref('controllerAction'),
  syntax: CONTROLLER_ACTION_SYNTAX,
  description:
    'Starts a controller again (crashing it first if it is up); it rejoins the quorum as a follower (a former leader restarts Resigned).',
  actsOn: 'controller',
  controllerAction: (a) => a,
  check: (a, at) => checkControllerAction(at.path, a, at),
  describe: (a, at) => `# restart controller ${controllerActionText(a, at.resolveController?.(a))}`,
  execute: (a, at) => actOnController(a, at, false),
};
