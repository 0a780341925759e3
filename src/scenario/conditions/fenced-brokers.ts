// fencedBrokers: how many registered brokers the controller has fenced.
import { object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';

export const fencedBrokers: ConditionDefinition<{ count: Comparison }, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object({ count: ref('comparison') }, ['count']),
  syntax: '`{count}`',
  description:
    'Number of registered brokers that are fenced in the metadata (heartbeats lost past broker.session.timeout.ms, or not yet caught up).',
  evaluate(v, ctx) {
    const fenced = Object.values(ctx.cluster.image.brokers)
      .filter((b) => b.fenced)
      .map((b) => b.brokerId);
    return {
      passed: compare(fenced.length, v.count),
      expected: describeComparison('fenced brokers', v.count),
      actual: { count: fenced.length, fenced },
    };
  },
};
