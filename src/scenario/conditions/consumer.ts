// consumer: what an assign-mode consumer consumed, and its lag (and the metric of each).
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields, type MetricDefinition } from './condition.ts';

export interface ConsumerCondition {
  name: string;
  consumed?: Comparison;
  lag?: Comparison;
}

export const consumer: ConditionDefinition<ConsumerCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object({ name: ref('clientName'), consumed: ref('comparison'), lag: ref('comparison') }, ['name'], {
    anyOf: exactlyOne(['consumed', 'lag']),
  }),
  syntax: '`{name, consumed | lag}`',
  description: 'Records a consumer has consumed, and its lag (high watermark - position, summed).',
  check: (v, refs, path) => refs.checkClient([...path, 'name'], v.name, ['consumer'], 'consumer'),
  evaluate: (s, ctx) =>
    fields(`consumer ${s.name}`, ctx.clients.consumerStats(s.name), { consumed: s.consumed, lag: s.lag }),
};

export const consumerMetric: MetricDefinition<{ name: string; field: 'consumed' | 'lag' }> = {
  schema: object({ name: ref('clientName'), field: { type: 'string', enum: ['consumed', 'lag'] } }, [
    'name',
    'field',
  ]),
  syntax: '`{name, field: consumed|lag}`',
  description: 'Records a consumer has consumed, or its lag.',
  check: (m, refs, path) => refs.checkClient([...path, 'name'], m.name, ['consumer'], 'consumer'),
  measure: (m, ctx) => ctx.clients.consumerStats(m.name)[m.field]!,
};
