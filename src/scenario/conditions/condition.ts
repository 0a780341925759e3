// What a condition of the scenario language is: its JSON Schema, its reference checks, its evaluation and its
// documentation, in one definition per file of this folder (index.ts is the registry). A condition measures
// something and reports what it expected next to what it found, so that a failed expectation explains itself.
// A metric (a named number in the result) is defined next to the condition that measures the same thing.
//
// Where a condition can be evaluated is its scope: `cluster` conditions read only the cluster (waitUntil,
// expectations and the HTTP API's /sim/advance until); `scenario` conditions also read a scenario's clients and
// steps; `server` conditions read what only a served cluster has (its workloads).
import type { Cluster } from '../../cluster/index.ts';
import type { ScenarioClients } from '../clients.ts';
import type { ErrorWindows } from '../error-windows.ts';
import type { ReferenceChecks } from '../reference-checks.ts';
import type { Schema } from '../schema-kit.ts';
import type { DocPath } from '../source.ts';
import type { StepRecord } from '../step-record.ts';
import type { Comparison, Condition } from '../types.ts';
import type { TraceWatch } from './trace-watch.ts';

export interface Outcome {
  passed: boolean;
  expected: string;
  actual: unknown;
}

export type ConditionScope = 'cluster' | 'scenario' | 'server';

/** What every condition can read. */
export interface ClusterEval {
  cluster: Cluster;
  brokerIds: readonly number[];
  /** The trace events seen since the condition was armed (for `traced`). */
  traces?: TraceWatch;
}

/** What a scenario's conditions read besides the cluster. */
export interface ScenarioEval extends ClusterEval {
  clients: ScenarioClients;
  steps: ReadonlyMap<string, StepRecord>;
  /** Set when the run stopped on an invariant violation. */
  invariantViolation: string | undefined;
  /** Producers' error windows (for the errorWindow metric), and the timeline's time 0 in virtual time. */
  errorWindows?: ErrorWindows;
  t0?: number;
  /** Every tool output line printed so far (for `output`). */
  output?: readonly string[];
}

/** What the HTTP API's conditions read besides the cluster. */
export interface ServerEval extends ClusterEval {
  /** Whether the served workload `name` has finished. */
  workloadDone(name: string): boolean;
}

export type EvalFor<S extends ConditionScope> = S extends 'scenario'
  ? ScenarioEval
  : S extends 'server'
    ? ServerEval
    : ClusterEval;

export interface ConditionDefinition<V, S extends ConditionScope = ConditionScope> {
  readonly scope: S;
  /** The value's JSON Schema (the registry adds `description`). */
  readonly schema: Schema;
  /** What it checks: the schema's description and the language reference's text. */
  readonly description: string;
  /** How it is written, for the language reference (e.g. `{topic, broker, partitions?}`). */
  readonly syntax: string;
  /** `image`: the outcome depends only on the metadata image (a waiter may cache it per image). */
  readonly reads?: 'image';
  /** Reference checks the schema cannot express. */
  check?(value: V, refs: ReferenceChecks, path: DocPath): void;
  /** Measures and decides; `sub` evaluates a sub-condition (all, any, not). */
  evaluate(value: V, ctx: EvalFor<S>, sub: (c: Condition) => Outcome): Outcome;
  /** The sub-conditions (all, any, not), for walking a condition tree. */
  children?(value: V): readonly Condition[];
  /** Starts watching the run, where the condition's time starts (traced: events from then on count). */
  arm?(value: V, ctx: ClusterEval): void;
}

export interface MetricDefinition<V> {
  /** The value's JSON Schema (the registry adds `description`). */
  readonly schema: Schema;
  readonly description: string;
  readonly syntax: string;
  check?(value: V, refs: ReferenceChecks, path: DocPath): void;
  /** The number (null: not measurable in this run). */
  measure(value: V, ctx: ScenarioEval): number | null;
}

// ---- outcomes ---------------------------------------------------------------------------------------------------

export function compare(value: number, cmp: Comparison): boolean {
  if (typeof cmp === 'number') return value === cmp;
  return (
    (cmp.eq === undefined || value === cmp.eq) &&
    (cmp.ne === undefined || value !== cmp.ne) &&
    (cmp.gt === undefined || value > cmp.gt) &&
    (cmp.gte === undefined || value >= cmp.gte) &&
    (cmp.lt === undefined || value < cmp.lt) &&
    (cmp.lte === undefined || value <= cmp.lte)
  );
}

const OPS = { eq: '=', ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export function describeComparison(subject: string, cmp: Comparison): string {
  if (typeof cmp === 'number') return `${subject} = ${cmp}`;
  return (Object.keys(OPS) as (keyof typeof OPS)[])
    .filter((k) => cmp[k] !== undefined)
    .map((k) => `${subject} ${OPS[k]} ${cmp[k]}`)
    .join(' and ');
}

/**
 * An outcome whose texts are built only when read: a waitUntil evaluates its condition after every millisecond
 * of virtual time, and only the last evaluation's texts are ever shown.
 */
export function lazyOutcome(passed: boolean, expected: () => string, actual: () => unknown): Outcome {
  return new LazyOutcome(passed, expected, actual);
}

/** Getters on the prototype: cheap to create, once per evaluation. */
class LazyOutcome implements Outcome {
  #expected: string | undefined;
  #actual: { value: unknown } | undefined;
  constructor(
    readonly passed: boolean,
    private readonly makeExpected: () => string,
    private readonly makeActual: () => unknown,
  ) {}

  get expected(): string {
    this.#expected ??= this.makeExpected();
    return this.#expected;
  }

  get actual(): unknown {
    this.#actual ??= { value: this.makeActual() };
    return this.#actual.value;
  }

  toJSON(): { passed: boolean; expected: string; actual: unknown } {
    return { passed: this.passed, expected: this.expected, actual: this.actual };
  }
}

/** Checks a list of named comparisons; the outcome shows every measured field that was compared. */
export function fields(
  subject: string,
  measured: Record<string, number>,
  cmps: Record<string, Comparison | undefined>,
): Outcome {
  let passed = true;
  for (const k in cmps) {
    const cmp = cmps[k];
    if (cmp !== undefined && !compare(measured[k]!, cmp)) passed = false;
  }
  const given = () => Object.entries(cmps).filter((e): e is [string, Comparison] => e[1] !== undefined);
  return lazyOutcome(
    passed,
    () =>
      `${subject}: ${given()
        .map(([k, cmp]) => describeComparison(k, cmp))
        .join(', ')}`,
    () => Object.fromEntries(given().map(([k]) => [k, measured[k]!])),
  );
}

/** Rounds to a microsecond of virtual time (what results show). */
export const round = (n: number): number => Math.round(n * 1000) / 1000;
