// reassignments: how many partitions have a reassignment in progress.
import { isReassigning } from '../../../models/metadata/index.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';
import { partitionsOf } from './metadata-reads.ts';

export interface ReassignmentsCondition {
  topic?: string;
  count: Comparison;
}

export const reassignments: ConditionDefinition<ReassignmentsCondition, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object(
    { topic: withDescription(ref('topicName'), 'Only this topic (default: all).'), count: ref('comparison') },
    ['count'],
  ),
  syntax: '`{topic?, count}`',
  description: 'Number of partitions (of `topic`, or all) with a reassignment in progress.',
  check: (v, refs, path) => refs.checkTopic([...path, 'topic'], v.topic),
  evaluate(v, ctx) {
    const n = partitionsOf(ctx.cluster.image, v.topic).filter(({ p }) => isReassigning(p)).length;
    return {
      passed: compare(n, v.count),
      expected: describeComparison(`partitions being reassigned${v.topic ? ` in ${v.topic}` : ''}`, v.count),
      actual: n,
    };
  },
};
