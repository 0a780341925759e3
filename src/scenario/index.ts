// The scenario language: YAML files (validated against schema/scenario.schema.json) that describe a cluster,
// its topics and clients, a timeline of admin actions, workloads and faults, and the expectations that must
// hold; and the runner that plays them in virtual time. Everything a scenario does goes through the cluster's
// public API (src/cluster), so a test can do the same by hand.

export {
  armCondition,
  CONDITION_KINDS,
  CONDITIONS,
  conditionDefinition,
  evaluate,
  METRIC_KINDS,
  METRICS,
  type Outcome,
  SERVER_CONDITION_KINDS,
  type ServerEval,
  TraceWatch,
} from './conditions/index.ts';
export {
  formatIssue,
  formatIssueWithExcerpt,
  formatPath,
  ScenarioError,
  type ScenarioIssue,
} from './errors.ts';
export {
  type LoadedScenario,
  type LoadOptions,
  loadScenarioFile,
  loadScenarioObject,
  loadScenarioText,
} from './load.ts';
export type { ReferenceChecks } from './reference-checks.ts';
export {
  type ExpectationResult,
  needsSql,
  type Progress,
  type RunOptions,
  runScenario,
  runScenarioAsync,
  type ScenarioResult,
  type StepEvent,
} from './runner.ts';
export { buildScenarioSchema, SCENARIO_SCHEMA_ID, scenarioSchema } from './schema.ts';
export { clusterOptionsOf, setUpScenarioCluster } from './setup.ts';
export {
  listShippedScenarios,
  SCENARIOS_DIR,
  type ShippedScenario,
  scenarioFileOf,
  shippedScenarioFile,
} from './shipped.ts';
export type { StepRecord } from './step-record.ts';
export { STEP_ACTIONS, STEPS } from './steps/index.ts';
export type * from './types.ts';
