// The steps of the scenario language's timeline, each defined in one file of this folder; this registry is the
// only list of them. The JSON Schema, the language reference (docs/scenario-language.md), `validate`'s checks,
// the command lines the CLI shows and what each step does all come from here: adding a step is adding its file
// and its line below.
import type { StepChecks } from '../reference-checks.ts';
import { type Schema, withDescription } from '../schema-kit.ts';
import type { StepSpec } from '../types.ts';
import { alterTopic } from './alter-topic.ts';
import { crashBroker } from './crash-broker.ts';
import { crashController } from './crash-controller.ts';
import { crashIngest } from './crash-ingest.ts';
import { createTopic } from './create-topic.ts';
import { deleteTopic } from './delete-topic.ts';
import { dropOutbound } from './drop-outbound.ts';
import { heal } from './heal.ts';
import { isolate } from './isolate.ts';
import { lakeOutage } from './lake-outage.ts';
import { partition } from './partition.ts';
import { print } from './print.ts';
import { produce } from './produce.ts';
import { producerPerfTest, verifiableProducer } from './raft-tools.ts';
import { reassign } from './reassign.ts';
import { requestFault } from './request-fault.ts';
import { restartBroker } from './restart-broker.ts';
import { restartController } from './restart-controller.ts';
import { run } from './run.ts';
import { slowBroker } from './slow-broker.ts';
import { start } from './start.ts';
import type { StepDefinition, StepDescribe, StepExecute } from './step.ts';
import { stop } from './stop.ts';
import { waitUntil } from './wait-until.ts';

export const STEPS = {
  createTopic,
  alterTopic,
  deleteTopic,
  reassign,
  start,
  stop,
  crashBroker,
  restartBroker,
  crashController,
  restartController,
  partition,
  isolate,
  dropOutbound,
  heal,
  slowBroker,
  requestFault,
  waitUntil,
  print,
  produce,
  lakeOutage,
  crashIngest,
  verifiableProducer,
  producerPerfTest,
  run,
} as const;

type ValueOf<D> = D extends StepDefinition<infer V> ? V : never;

export type StepAction = keyof typeof STEPS;
/** Each action's value, by action (the registry's definitions say what it is). */
export type StepValues = { [K in StepAction]: ValueOf<(typeof STEPS)[K]> };

export const STEP_ACTIONS = Object.keys(STEPS) as StepAction[];

type AnyStep = StepDefinition<unknown>;
export const stepDefinition = (action: StepAction): AnyStep => STEPS[action] as unknown as AnyStep;

/** The one action of a step. */
export function actionOf(step: StepSpec): StepAction {
  for (const k in step) if (Object.hasOwn(STEPS, k)) return k as StepAction;
  throw new Error('a step without an action passed validation');
}

const actionValue = (step: StepSpec, action: StepAction): unknown =>
  (step as Record<string, unknown>)[action];

/** The step's reference checks (its action's value is at `at.path`). */
export function checkStep(step: StepSpec, at: StepChecks): void {
  const action = actionOf(step);
  stepDefinition(action).check?.(actionValue(step, action), at);
}

/** The command line the step stands for (shown by the CLI before its output), or a short description. */
export function describeStep(at: StepDescribe): string {
  const action = actionOf(at.step);
  return stepDefinition(action).describe(actionValue(at.step, action), at);
}

/** Runs one step's action (the clock is at the step's time). Returns the broker it acted on, if any. */
export function executeStep(at: StepExecute): number | undefined {
  const action = actionOf(at.step);
  return stepDefinition(action).execute(actionValue(at.step, action), at);
}

/** What a step acts on, for `brokerOf` / `controllerOf` references. */
export function actsOn(step: StepSpec): 'broker' | 'controller' | undefined {
  return stepDefinition(actionOf(step)).actsOn;
}

/** The actions that act on a broker (or a controller), in registry order. */
export function actionsActingOn(kind: 'broker' | 'controller'): StepAction[] {
  return STEP_ACTIONS.filter((a) => stepDefinition(a).actsOn === kind);
}

/** Each action's schema with its description (the `step` definition's properties). */
export function stepSchemas(): Record<string, Schema> {
  return Object.fromEntries(
    STEP_ACTIONS.map((a) => [a, withDescription(stepDefinition(a).schema, stepDefinition(a).description)]),
  );
}

export { BOOTSTRAP, type StepDescribe, type StepExecute, StepFailure } from './step.ts';
