// partitionCount: how many partitions a topic has.
import { object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';

export const partitionCount: ConditionDefinition<{ topic: string; count: Comparison }, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object({ topic: ref('topicName'), count: ref('comparison') }, ['topic', 'count']),
  syntax: '`{topic, count}`',
  description: 'Number of partitions of `topic`.',
  check: (v, refs, path) => refs.checkTopic([...path, 'topic'], v.topic),
  evaluate(v, ctx) {
    const n = ctx.cluster.image.topics[v.topic]?.partitions.length ?? 0;
    return {
      passed: compare(n, v.count),
      expected: describeComparison(`partitions of ${v.topic}`, v.count),
      actual: n,
    };
  },
};
