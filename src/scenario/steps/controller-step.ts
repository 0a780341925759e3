// What crashController and restartController share: a controller by id, the active one, or an earlier step's,
// now or after a delay (landing inside whatever the next steps do).
import type { ControllerAction } from '../types.ts';
import { controllerAction, resolveController } from './selectors.ts';
import type { StepExecute } from './step.ts';

export const CONTROLLER_ACTION_SYNTAX =
  'a controller id (3000, ...), `active` (the Raft leader now) or `{controllerOf: <label>}`; `{controller: ..., delay: 10ms}` lands inside the next admin call';

export function actOnController(action: ControllerAction, at: StepExecute, crash: boolean): undefined {
  const { sel, delay } = controllerAction(action);
  const run = () => {
    const id = resolveController(sel, at);
    if (crash) at.cluster.crashController(id);
    else at.cluster.restartController(id);
    at.actedOnController(id);
  };
  // A delayed fault lands in the middle of whatever the next steps do (an admin request in flight).
  if (delay > 0)
    at.cluster.sim.schedule(delay, run, `scenario.${crash ? 'crashController' : 'restartController'}`);
  else run();
  return undefined;
}
