// offsets: the sum of the listed partitions' high watermarks or log end offsets (and the metric of the same).
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields, type MetricDefinition } from './condition.ts';
import { offsetSum } from './metadata-reads.ts';

export interface OffsetsCondition {
  topic: string;
  partitions?: number[];
  highWatermark?: Comparison;
  logEndOffset?: Comparison;
}

export const offsets: ConditionDefinition<OffsetsCondition, 'cluster'> = {
  scope: 'cluster',
  schema: object(
    {
      topic: ref('topicName'),
      partitions: ref('partitionList'),
      highWatermark: ref('comparison'),
      logEndOffset: ref('comparison'),
    },
    ['topic'],
    { anyOf: exactlyOne(['highWatermark', 'logEndOffset']) },
  ),
  syntax: '`{topic, partitions?, highWatermark | logEndOffset}`',
  description:
    "Sum over the listed partitions (default all) of the authoritative log's high watermark / log end offset.",
  check: (v, refs, path) => refs.checkTopic([...path, 'topic'], v.topic),
  evaluate(o, ctx) {
    return fields(
      `${o.topic}${o.partitions ? ` ${JSON.stringify(o.partitions)}` : ''} (sum over partitions)`,
      {
        highWatermark: offsetSum(ctx.cluster, o.topic, o.partitions, 'highWatermark'),
        logEndOffset: offsetSum(ctx.cluster, o.topic, o.partitions, 'logEndOffset'),
      },
      { highWatermark: o.highWatermark, logEndOffset: o.logEndOffset },
    );
  },
};

export const offsetsMetric: MetricDefinition<{
  topic: string;
  partitions?: number[];
  field: 'highWatermark' | 'logEndOffset';
}> = {
  schema: object(
    {
      topic: ref('topicName'),
      partitions: ref('partitionList'),
      field: { type: 'string', enum: ['highWatermark', 'logEndOffset'] },
    },
    ['topic', 'field'],
  ),
  syntax: '`{topic, partitions?, field: highWatermark|logEndOffset}`',
  description:
    "The sum over the listed partitions (default all) of the log's high watermark or log end offset.",
  check: (m, refs, path) => refs.checkTopic([...path, 'topic'], m.topic),
  measure: (m, ctx) => offsetSum(ctx.cluster, m.topic, m.partitions, m.field),
};
