// perf: a kafka-producer-perf-test run's progress (and the metric of its summary figures).
import type { PerfStats } from '../clients.ts';
import { exactlyOne, object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import {
  type ConditionDefinition,
  compare,
  describeComparison,
  lazyOutcome,
  type MetricDefinition,
} from './condition.ts';

export interface PerfCondition {
  name: string;
  done?: boolean;
  completed?: Comparison;
  minRecordsPerSec?: Comparison;
  maxLatencyMs?: Comparison;
}

const cmp = ref('comparison');
const NO_FIGURES: readonly ('completed' | 'minRecordsPerSec' | 'maxLatencyMs')[] = [];

export const perf: ConditionDefinition<PerfCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    {
      name: ref('clientName'),
      done: { type: 'boolean', description: 'True once every record is acknowledged or failed.' },
      completed: withDescription(cmp, 'Records acknowledged or failed so far.'),
      minRecordsPerSec: withDescription(cmp, 'The lowest records/sec of a progress line (5 s window).'),
      maxLatencyMs: withDescription(
        cmp,
        'The highest latency of a record (the summary line once done, else the progress lines).',
      ),
    },
    ['name'],
    { anyOf: exactlyOne(['done', 'completed', 'minRecordsPerSec', 'maxLatencyMs']) },
  ),
  syntax: '`{name, done | completed | minRecordsPerSec | maxLatencyMs}`',
  description:
    "A perf producer's state: `done` (all records completed), `completed` records, the lowest progress-window rate and the highest window max latency.",
  check: (v, refs, path) => refs.checkClient([...path, 'name'], v.name, ['perfProducer'], 'perf producer'),
  evaluate(s, ctx) {
    const keys =
      s.completed === undefined && s.minRecordsPerSec === undefined && s.maxLatencyMs === undefined
        ? NO_FIGURES
        : (['completed', 'minRecordsPerSec', 'maxLatencyMs'] as const).filter((k) => s[k] !== undefined);
    // `done` alone (what a waitUntil on a perf run asks every millisecond) needs none of the statistics.
    const stats = keys.length === 0 ? { done: ctx.clients.perfDone(s.name) } : ctx.clients.perfStats(s.name);
    let passed = s.done === undefined || stats.done === s.done;
    for (const k of keys) {
      const value = (stats as PerfStats)[k];
      if (value === undefined || !compare(value, s[k]!)) passed = false;
    }
    return lazyOutcome(
      passed,
      () =>
        `perf producer ${s.name}: ${[
          ...(s.done !== undefined ? [`done = ${s.done}`] : []),
          ...keys.map((k) => describeComparison(k, s[k]!)),
        ].join(', ')}`,
      () => ({
        ...(s.done !== undefined ? { done: stats.done } : {}),
        ...Object.fromEntries(keys.map((k) => [k, (stats as PerfStats)[k] ?? null])),
      }),
    );
  },
};

export const perfMetric: MetricDefinition<{
  name: string;
  field: 'completed' | 'recordsPerSec' | 'avgLatencyMs' | 'maxLatencyMs' | 'minRecordsPerSec';
}> = {
  schema: object(
    {
      name: ref('clientName'),
      field: {
        type: 'string',
        enum: ['completed', 'recordsPerSec', 'avgLatencyMs', 'maxLatencyMs', 'minRecordsPerSec'],
      },
    },
    ['name', 'field'],
  ),
  syntax: '`{name, field: completed|recordsPerSec|avgLatencyMs|maxLatencyMs|minRecordsPerSec}`',
  description: "A perf producer's completed records or a figure of its summary (null until it finished).",
  check: (m, refs, path) => refs.checkClient([...path, 'name'], m.name, ['perfProducer'], 'perf producer'),
  measure: (m, ctx) => ctx.clients.perfStats(m.name)[m.field] ?? null,
};
