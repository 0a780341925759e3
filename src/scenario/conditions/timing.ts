// timing: virtual time between two steps (and the metric of it).
import { parseDuration } from '../../../models/sim/index.ts';
import type { ReferenceChecks } from '../reference-checks.ts';
import { exactlyOne, object, ref, withDescription } from '../schema-kit.ts';
import type { DocPath } from '../source.ts';
import type { StepPoint } from '../types.ts';
import { type ConditionDefinition, type MetricDefinition, round, type ScenarioEval } from './condition.ts';

export interface TimingCondition {
  from?: string;
  fromPoint?: StepPoint;
  to: string;
  max?: string;
  min?: string;
}

type Span = { from?: string; fromPoint?: StepPoint; to: string };

function timingMs(t: Span, ctx: ScenarioEval): number | undefined {
  const to = ctx.steps.get(t.to)?.end;
  if (to === undefined) return undefined;
  const step = t.from === undefined ? undefined : ctx.steps.get(t.from);
  const from = t.from === undefined ? 0 : t.fromPoint === 'applied' ? step?.applied : step?.start;
  return from === undefined ? undefined : to - from;
}

function checkLabels(t: Span, refs: ReferenceChecks, path: DocPath): void {
  if (t.from !== undefined) refs.checkLabel([...path, 'from'], t.from);
  refs.checkLabel([...path, 'to'], t.to);
}

export const timing: ConditionDefinition<TimingCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    {
      from: withDescription(ref('label'), 'Label of the step the clock starts at (its start).'),
      fromPoint: ref('stepPoint'),
      to: withDescription(ref('label'), 'Label of the step the clock stops at (its end).'),
      max: ref('duration'),
      min: ref('duration'),
    },
    ['to'],
    { anyOf: exactlyOne(['max', 'min']) },
  ),
  syntax: '`{from?, fromPoint?: start|applied, to, min | max}`',
  description:
    'Virtual time from when step `from` started (default: the start of the timeline; `fromPoint: applied`: when its request reached the controller, after the tool started up) to when step `to` finished (for a waitUntil: when its condition held), within `min`..`max`.',
  check: checkLabels,
  evaluate(t, ctx) {
    const ms = timingMs(t, ctx);
    const bounds = [
      t.min !== undefined ? `>= ${t.min}` : undefined,
      t.max !== undefined ? `<= ${t.max}` : undefined,
    ].filter(Boolean);
    const expected = `time from ${t.from ? `step '${t.from}'` : 'the start'} to the end of step '${t.to}' ${bounds.join(' and ')}`;
    if (ms === undefined) return { passed: false, expected, actual: `step '${t.to}' did not finish` };
    const passed =
      (t.min === undefined || ms >= parseDuration(t.min)) &&
      (t.max === undefined || ms <= parseDuration(t.max));
    return { passed, expected, actual: `${round(ms)}ms` };
  },
};

export const timingMetric: MetricDefinition<Span> = {
  schema: object({ from: ref('label'), fromPoint: ref('stepPoint'), to: ref('label') }, ['to']),
  syntax: '`{from?, fromPoint?: start|applied, to}`',
  description: 'Virtual ms from the start of step `from` (default: of the timeline) to the end of step `to`.',
  check: checkLabels,
  measure(m, ctx) {
    const ms = timingMs(m, ctx);
    return ms === undefined ? null : round(ms);
  },
};
