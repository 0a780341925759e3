// leadersPerBroker: how partition leaders spread over the brokers; the metric gives their max, min or skew.
import { object, ref } from '../schema-kit.ts';
import type { MetricDefinition } from './condition.ts';
import { leadersOf, perBroker } from './metadata-reads.ts';
import { perBrokerCondition } from './per-broker.ts';

export const leadersPerBroker = perBrokerCondition(
  'leaders',
  leadersOf,
  'Partition leaders per broker (of `topic`, or of every topic): `equals` maps broker id -> count (brokers not listed must have 0), `maxSkew` bounds max - min over all brokers of the cluster.',
);

export const leadersPerBrokerMetric: MetricDefinition<{ topic?: string; stat: 'max' | 'min' | 'skew' }> = {
  schema: object({ topic: ref('topicName'), stat: { type: 'string', enum: ['max', 'min', 'skew'] } }, [
    'stat',
  ]),
  syntax: '`{topic?, stat: max|min|skew}`',
  description:
    'The most or fewest partition leaders a broker has (of `topic`, or of every topic), or max - min.',
  check: (m, refs, path) => refs.checkTopic([...path, 'topic'], m.topic),
  measure(m, ctx) {
    const counts = Object.values(perBroker(ctx.cluster.image, ctx.brokerIds, m.topic, leadersOf));
    if (m.stat === 'max') return Math.max(...counts);
    if (m.stat === 'min') return Math.min(...counts);
    return Math.max(...counts) - Math.min(...counts);
  },
};
