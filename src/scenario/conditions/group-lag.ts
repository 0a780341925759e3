// groupLag: kafka-consumer-groups --describe's LAG of a group, read from the coordinator without requests.
import { groupOffsetsNow } from '../../cluster/index.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison } from './condition.ts';

export interface GroupLagCondition {
  group: string;
  topic?: string;
  partitions?: number[];
  lag: Comparison;
}

export const groupLag: ConditionDefinition<GroupLagCondition, 'cluster'> = {
  scope: 'cluster',
  schema: object(
    {
      group: { type: 'string', minLength: 1, description: 'The group.id.' },
      topic: withDescription(
        ref('topicName'),
        'Only this topic (default: every topic the group has offsets for).',
      ),
      partitions: ref('partitionList'),
      lag: ref('comparison'),
    },
    ['group', 'lag'],
  ),
  syntax: '`{group, topic?, partitions?, lag}`',
  description:
    'kafka-consumer-groups --describe LAG of a group, summed over the listed partitions (default all) of `topic` (default every topic); a partition without a committed offset counts its log end offset.',
  check: (v, refs, path) => refs.checkTopic([...path, 'topic'], v.topic),
  evaluate(g, ctx) {
    // Read without requests: this is also checked while the simulation runs (waitUntil).
    const offsets = groupOffsetsNow(ctx.cluster, g.group);
    const byPartition: Record<string, number> = {};
    let lag = 0;
    for (const o of offsets) {
      if (g.topic !== undefined && o.topic !== g.topic) continue;
      if (g.partitions && !g.partitions.includes(o.partition)) continue;
      // kafka-consumer-groups prints LAG = LOG-END-OFFSET - CURRENT-OFFSET; without a commit, all of it.
      const l = (o.logEndOffset ?? 0) - (o.committedOffset ?? 0);
      byPartition[`${o.topic}-${o.partition}`] = l;
      lag += l;
    }
    const missing = (g.partitions ?? []).filter(
      (p) => !offsets.some((o) => o.partition === p && (g.topic === undefined || o.topic === g.topic)),
    );
    const scope = `${g.topic ?? 'every topic'}${g.partitions ? ` ${JSON.stringify(g.partitions)}` : ''}`;
    return {
      passed: missing.length === 0 && compare(lag, g.lag),
      expected: `${describeComparison(`lag of group ${g.group}`, g.lag)} (${scope})`,
      actual: missing.length ? { lag, byPartition, noOffsetsFor: missing } : { lag, byPartition },
    };
  },
};
