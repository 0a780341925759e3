// The conditions of the scenario language (waitUntil, expectations, the HTTP API's /sim/advance until) and its
// metrics, each defined in one file of this folder; this registry is the only list of them. The JSON Schema,
// the language reference (docs/scenario-language.md), `validate`'s checks and the evaluation all come from here:
// adding a condition is adding its file and its line below.
import type { ReferenceChecks } from '../reference-checks.ts';
import type { Schema } from '../schema-kit.ts';
import { withDescription } from '../schema-kit.ts';
import type { DocPath } from '../source.ts';
import type { Condition, MetricSpec } from '../types.ts';
import { all } from './all.ts';
import { any } from './any.ts';
import type {
  ClusterEval,
  ConditionDefinition,
  ConditionScope,
  MetricDefinition,
  Outcome,
  ScenarioEval,
  ServerEval,
} from './condition.ts';
import { consumer, consumerMetric } from './consumer.ts';
import { delivery, deliveryMetric } from './delivery.ts';
import { errorWindowMetric } from './error-window.ts';
import { fencedBrokers } from './fenced-brokers.ts';
import { group } from './group.ts';
import { groupLag } from './group-lag.ts';
import { ingest } from './ingest.ts';
import { invariants } from './invariants.ts';
import { isr } from './isr.ts';
import { lakeRows } from './lake-rows.ts';
import { leaderFromIsr } from './leader-from-isr.ts';
import { leaderless } from './leaderless.ts';
import { leadersPerBroker, leadersPerBrokerMetric } from './leaders-per-broker.ts';
import { ledBy } from './led-by.ts';
import { metadataConsistent } from './metadata-consistent.ts';
import { metadataLoad, metadataLoadMetric } from './metadata-load.ts';
import { not } from './not.ts';
import { offsets, offsetsMetric } from './offsets.ts';
import { output, outputMetric } from './output.ts';
import { partitionCount } from './partition-count.ts';
import { perf, perfMetric } from './perf.ts';
import { producerErrors, producerErrorsMetric } from './producer-errors.ts';
import { quorum, quorumMetric } from './quorum.ts';
import { reassignments } from './reassignments.ts';
import { replicasPerBroker } from './replicas-per-broker.ts';
import { timing, timingMetric } from './timing.ts';
import { traced } from './traced.ts';
import { underReplicated } from './under-replicated.ts';
import { workloadDone } from './workload-done.ts';

export const CONDITIONS = {
  leadersPerBroker,
  replicasPerBroker,
  ledBy,
  leaderFromIsr,
  isr,
  offsets,
  reassignments,
  partitionCount,
  delivery,
  producerErrors,
  consumer,
  group,
  perf,
  timing,
  lakeRows,
  groupLag,
  ingest,
  invariants,
  quorum,
  metadataLoad,
  metadataConsistent,
  underReplicated,
  leaderless,
  fencedBrokers,
  traced,
  output,
  workloadDone,
  all,
  any,
  not,
} as const;

export const METRICS = {
  delivery: deliveryMetric,
  producerErrors: producerErrorsMetric,
  leadersPerBroker: leadersPerBrokerMetric,
  consumer: consumerMetric,
  perf: perfMetric,
  offsets: offsetsMetric,
  timing: timingMetric,
  quorum: quorumMetric,
  metadataLoad: metadataLoadMetric,
  errorWindow: errorWindowMetric,
  output: outputMetric,
} as const;

type ValueOf<D> = D extends ConditionDefinition<infer V, infer _S> ? V : never;
type MetricValueOf<D> = D extends MetricDefinition<infer V> ? V : never;

export type ConditionKind = keyof typeof CONDITIONS;
/** Each condition's value, by kind (the registry's definitions say what it is). */
export type ConditionValues = { [K in ConditionKind]: ValueOf<(typeof CONDITIONS)[K]> };
export type MetricKind = keyof typeof METRICS;
export type MetricValues = { [K in MetricKind]: MetricValueOf<(typeof METRICS)[K]> };

type AnyDefinition = ConditionDefinition<unknown, ConditionScope>;
const definitionOf = (kind: ConditionKind): AnyDefinition => CONDITIONS[kind] as unknown as AnyDefinition;

const kindsIn = (scopes: readonly ConditionScope[]): ConditionKind[] =>
  (Object.keys(CONDITIONS) as ConditionKind[]).filter((k) => scopes.includes(definitionOf(k).scope));

/** The conditions a scenario can use (waitUntil, expectations). */
export const CONDITION_KINDS: readonly ConditionKind[] = kindsIn(['cluster', 'scenario']);
/** The conditions the HTTP API's `until` can use. */
export const SERVER_CONDITION_KINDS: readonly ConditionKind[] = kindsIn(['cluster', 'server']);
export const METRIC_KINDS = Object.keys(METRICS) as MetricKind[];

/** A condition's kind: its one key that names a condition (an expectation also has `name`, ...). */
export function conditionKind(c: Condition): ConditionKind {
  for (const k in c) if (Object.hasOwn(CONDITIONS, k)) return k as ConditionKind;
  throw new Error(`no condition in ${JSON.stringify(c)}`);
}

export function conditionDefinition(kind: ConditionKind): AnyDefinition {
  return definitionOf(kind);
}

/** Evaluates a condition where `ctx` has what its scope reads (a scenario's, or a served cluster's). */
export function evaluate(c: Condition, ctx: ScenarioEval | ServerEval): Outcome {
  const kind = conditionKind(c);
  const def = definitionOf(kind);
  if (def.scope === 'scenario' && !('clients' in ctx))
    throw new Error(`${kind} needs a scenario's clients and steps`);
  if (def.scope === 'server' && !('workloadDone' in ctx)) throw new Error(`${kind} needs a served cluster`);
  return def.evaluate((c as Record<string, unknown>)[kind], ctx as never, (x) => evaluate(x, ctx));
}

/**
 * `evaluate(c, ctx)` with the condition's kind and scope resolved once: a waitUntil asks after every millisecond
 * of virtual time (hundreds of thousands of times in a long run).
 */
export function evaluator(c: Condition, ctx: ScenarioEval | ServerEval): () => Outcome {
  const kind = conditionKind(c);
  const def = definitionOf(kind);
  if (def.scope === 'scenario' && !('clients' in ctx))
    throw new Error(`${kind} needs a scenario's clients and steps`);
  if (def.scope === 'server' && !('workloadDone' in ctx)) throw new Error(`${kind} needs a served cluster`);
  const value = (c as Record<string, unknown>)[kind];
  const sub = (x: Condition) => evaluate(x, ctx);
  return () => def.evaluate(value, ctx as never, sub);
}

/** Starts what the condition (and its sub-conditions) watch: from now on, events count. */
export function armCondition(c: Condition, ctx: ClusterEval): void {
  const kind = conditionKind(c);
  const def = definitionOf(kind);
  const value = (c as Record<string, unknown>)[kind];
  def.arm?.(value, ctx);
  for (const child of def.children?.(value) ?? []) armCondition(child, ctx);
}

/** Runs the reference checks of a condition at `path` (its value's at `path` + kind). */
export function checkCondition(c: Condition, refs: ReferenceChecks, path: DocPath): void {
  const kind = conditionKind(c);
  definitionOf(kind).check?.((c as Record<string, unknown>)[kind], refs, [...path, kind]);
}

type AnyMetric = MetricDefinition<unknown>;
const metricOf = (kind: MetricKind): AnyMetric => METRICS[kind] as unknown as AnyMetric;

function metricKind(m: MetricSpec): MetricKind {
  for (const k in m) if (Object.hasOwn(METRICS, k)) return k as MetricKind;
  throw new Error(`no metric in ${JSON.stringify(m)}`);
}

export function measure(m: MetricSpec, ctx: ScenarioEval): number | null {
  const kind = metricKind(m);
  return metricOf(kind).measure((m as Record<string, unknown>)[kind], ctx);
}

export function checkMetric(m: MetricSpec, refs: ReferenceChecks, path: DocPath): void {
  const kind = metricKind(m);
  metricOf(kind).check?.((m as Record<string, unknown>)[kind], refs, [...path, kind]);
}

/** The schema of each condition of these kinds, with its description (the `condition` definition's properties). */
export function conditionSchemas(kinds: readonly ConditionKind[]): Record<string, Schema> {
  return Object.fromEntries(
    kinds.map((k) => [k, withDescription(definitionOf(k).schema, definitionOf(k).description)]),
  );
}

export function metricSchemas(): Record<string, Schema> {
  return Object.fromEntries(
    METRIC_KINDS.map((k) => [k, withDescription(metricOf(k).schema, metricOf(k).description)]),
  );
}

export type {
  ClusterEval,
  ConditionDefinition,
  ConditionScope,
  MetricDefinition,
  Outcome,
  ScenarioEval,
  ServerEval,
} from './condition.ts';
export { compare, describeComparison } from './condition.ts';
export { partitionLog } from './metadata-reads.ts';
export { TraceWatch } from './trace-watch.ts';
