// What every kind of scenario run (a cluster's, runner.ts; a quorum of Raft test servers', raft-test-server-run.ts)
// does the same way: the step records before the timeline, a step's start time and title, an expectation's outcome, the failed-timeline entry,
// the network latency setting and the result's shape.
import { type Distribution, parseDuration, type Simulation } from '../../models/sim/index.ts';
import type { Outcome } from './conditions/index.ts';
import type { ExpectationResult, ScenarioResult } from './runner.ts';
import type { StepRecord } from './step-record.ts';
import { actionOf } from './steps/index.ts';
import type { DurationText, ScenarioSpec, StepTiming } from './types.ts';

/** Every step as not run yet. */
export function stepRecords(spec: ScenarioSpec): StepRecord[] {
  return spec.timeline.map((s, index) => ({
    index,
    label: s.label,
    action: actionOf(s),
    start: undefined,
    end: undefined,
    status: 'skipped',
  }));
}

/** What a step's failure is reported as: its index, its label and its action. */
export function stepTitle(index: number, step: StepTiming, action: string): string {
  return `step ${index}${step.label ? ` '${step.label}'` : ''} (${action})`;
}

/** The virtual time a step starts at: `at` from the timeline's start `t0`, or `after` (default 0) from now. */
export function stepStartTime(step: StepTiming, t0: number, now: number): number {
  return step.at !== undefined ? t0 + parseDuration(step.at) : now + parseDuration(step.after ?? '0ms');
}

/** The expectation `name`'s outcome as `measure` finds it; one that cannot be measured fails, saying why. */
export function expectationResult(name: string, measure: () => Outcome): ExpectationResult {
  try {
    const o = measure();
    return { name, passed: o.passed, expected: o.expected, actual: o.actual };
  } catch (err) {
    return {
      name,
      passed: false,
      expected: 'a measurable condition',
      actual: `error: ${(err as Error).message}`,
    };
  }
}

/** The entry a run that stopped early adds to its expectations. */
export function timelineFailure(error: string): ExpectationResult {
  return {
    name: 'timeline completed',
    passed: false,
    expected: 'every step runs without error',
    actual: error,
  };
}

/** A latency setting (a constant duration or a distribution in ms) as a distribution. */
export function latencyOf(value: DurationText | Distribution | undefined): Distribution | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? { kind: 'constant', ms: parseDuration(value) } : value;
}

/** The result of a run that has ended. */
export function scenarioResult(run: {
  spec: ScenarioSpec;
  seed: number | string;
  sim: Simulation;
  wallStart: number;
  expectations: ExpectationResult[];
  metrics: Record<string, number | null>;
  output: string[];
  steps: StepRecord[];
  error: string | undefined;
}): ScenarioResult {
  const { sim } = run;
  return {
    scenario: run.spec.name,
    seed: run.seed,
    passed: run.expectations.every((e) => e.passed),
    expectations: run.expectations,
    metrics: run.metrics,
    virtualMs: sim.now,
    wallMs: performance.now() - run.wallStart,
    events: sim.eventCount,
    traceHash: sim.trace.hash,
    output: run.output,
    steps: run.steps,
    ...(run.error !== undefined ? { error: run.error } : {}),
  };
}
