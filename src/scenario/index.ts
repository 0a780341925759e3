// The scenario language: YAML files (validated against schema/scenario.schema.json) that describe a cluster,
// its topics and clients, a timeline of admin actions, workloads and faults, and the expectations that must
// hold; and the runner that plays them in virtual time. Everything a scenario does goes through the cluster's
// public API (src/cluster), so a test can do the same by hand.

export type { StepRecord } from './conditions.ts';
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
export {
  clusterOptionsOf,
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
export { listShippedScenarios, SCENARIOS_DIR, type ShippedScenario, shippedScenarioFile } from './shipped.ts';
export type * from './types.ts';
export { CONDITION_KINDS, METRIC_KINDS, STEP_ACTIONS } from './types.ts';
