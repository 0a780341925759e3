// ledBy: every partition of a topic (or the listed ones) is led by one broker.
import { object, ref } from '../schema-kit.ts';
import type { ConditionDefinition } from './condition.ts';
import { selected } from './metadata-reads.ts';

export interface LedBy {
  topic: string;
  broker: number;
  partitions?: number[];
}

export const ledBy: ConditionDefinition<LedBy, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object({ topic: ref('topicName'), broker: ref('brokerId'), partitions: ref('partitionList') }, [
    'topic',
    'broker',
  ]),
  syntax: '`{topic, broker, partitions?}`',
  description: 'Every partition of `topic` (or the listed `partitions`) is led by `broker`.',
  check(v, refs, path) {
    refs.checkTopic([...path, 'topic'], v.topic);
    refs.checkBroker([...path, 'broker'], v.broker);
  },
  evaluate(v, ctx) {
    const ps = selected(ctx.cluster.image, v.topic, v.partitions);
    const leaders = ps.map((p) => p.leader);
    return {
      passed: ps.length > 0 && leaders.every((l) => l === v.broker),
      expected: `every partition of ${v.topic}${v.partitions ? ` ${JSON.stringify(v.partitions)}` : ''} led by broker ${v.broker}`,
      actual: { leaders },
    };
  },
};
