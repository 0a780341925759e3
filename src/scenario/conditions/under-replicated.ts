// underReplicated: how many partitions have an ISR smaller than their replica set (kafka-topics
// --under-replicated-partitions counts the same).
import { object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';
import { partitionsOf } from './metadata-reads.ts';

export interface UnderReplicatedCondition {
  topic?: string;
  count: Comparison;
}

export const underReplicated: ConditionDefinition<UnderReplicatedCondition, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object(
    { topic: withDescription(ref('topicName'), 'Only this topic (default: all).'), count: ref('comparison') },
    ['count'],
  ),
  syntax: '`{topic?, count}`',
  description:
    'Number of partitions (of `topic`, or all) whose ISR is smaller than their replica set (under-replicated).',
  check: (v, refs, path) => refs.checkTopic([...path, 'topic'], v.topic),
  evaluate(v, ctx) {
    let n = 0;
    for (const { p } of partitionsOf(ctx.cluster.image, v.topic)) if (p.isr.length < p.replicas.length) n++;
    return {
      passed: compare(n, v.count),
      expected: describeComparison(`under-replicated partitions${v.topic ? ` in ${v.topic}` : ''}`, v.count),
      actual: n,
    };
  },
};
