// leaderless: how many partitions have no leader (kafka-topics --unavailable-partitions counts the same).
import { object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';
import { partitionsOf } from './metadata-reads.ts';

export interface LeaderlessCondition {
  topic?: string;
  count: Comparison;
}

export const leaderless: ConditionDefinition<LeaderlessCondition, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object(
    { topic: withDescription(ref('topicName'), 'Only this topic (default: all).'), count: ref('comparison') },
    ['count'],
  ),
  syntax: '`{topic?, count}`',
  description:
    'Number of partitions (of `topic`, or all) without a leader. A `topic` that does not exist fails the condition (it has no partitions that could have leaders).',
  check: (v, refs, path) => refs.checkTopic([...path, 'topic'], v.topic),
  evaluate(v, ctx) {
    const image = ctx.cluster.image;
    const expected = describeComparison(
      `partitions without a leader${v.topic ? ` in ${v.topic}` : ''}`,
      v.count,
    );
    if (v.topic !== undefined && !image.topics[v.topic])
      return { passed: false, expected, actual: `no topic '${v.topic}'` };
    let n = 0;
    for (const { p } of partitionsOf(image, v.topic)) if (p.leader < 0) n++;
    return { passed: compare(n, v.count), expected, actual: n };
  },
};
