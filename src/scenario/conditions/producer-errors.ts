// producerErrors: the produce errors a producer saw, by Kafka error name or all of them (and the metric).
import { object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison, type MetricDefinition } from './condition.ts';

export interface ProducerErrorsCondition {
  producer: string;
  error?: string;
  count: Comparison;
}

export const producerErrors: ConditionDefinition<ProducerErrorsCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object({ producer: ref('clientName'), error: ref('errorName'), count: ref('comparison') }, [
    'producer',
    'count',
  ]),
  syntax: '`{producer, error?, count}`',
  description:
    'Produce errors a producer saw (each retried or failed batch counts), by Kafka error name (`error`) or all of them.',
  check: (v, refs, path) =>
    refs.checkClient([...path, 'producer'], v.producer, ['producer', 'perfProducer'], 'producer'),
  evaluate(e, ctx) {
    const n = ctx.clients.errorCount(e.producer, e.error);
    return {
      passed: compare(n, e.count),
      expected: describeComparison(`${e.error ?? 'produce errors'} seen by ${e.producer}`, e.count),
      actual: e.error ? n : { total: n, byError: ctx.clients.errorCounts(e.producer) },
    };
  },
};

export const producerErrorsMetric: MetricDefinition<{ producer: string; error?: string }> = {
  schema: object({ producer: ref('clientName'), error: ref('errorName') }, ['producer']),
  syntax: '`{producer, error?}`',
  description: 'The produce errors a producer saw, of one Kafka error name or all.',
  check: (m, refs, path) =>
    refs.checkClient([...path, 'producer'], m.producer, ['producer', 'perfProducer'], 'producer'),
  measure: (m, ctx) => ctx.clients.errorCount(m.producer, m.error),
};
