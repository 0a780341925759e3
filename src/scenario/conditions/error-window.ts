// errorWindow (a metric): how long a producer saw produce errors, and the longest a partition of it went
// without an acknowledgement.
import { object, ref } from '../schema-kit.ts';
import { type MetricDefinition, round } from './condition.ts';

export interface ErrorWindowMetric {
  producer: string;
  field?: 'windowMs' | 'firstMs' | 'lastMs' | 'maxAckGapMs';
}

export const errorWindowMetric: MetricDefinition<ErrorWindowMetric> = {
  schema: object(
    {
      producer: ref('clientName'),
      field: { type: 'string', enum: ['windowMs', 'firstMs', 'lastMs', 'maxAckGapMs'] },
    },
    ['producer'],
  ),
  syntax: '`{producer, field?: windowMs|firstMs|lastMs|maxAckGapMs}`',
  description:
    'How long a producer saw produce errors: windowMs (default) from its first error to its last, or the timeline time of the first / last error (null when it saw none); maxAckGapMs, the longest time one of its partitions went between two acknowledgements, errors or not (a request parked on a fenced leader shows no error until its timeout).',
  check: (m, refs, path) =>
    refs.checkClient([...path, 'producer'], m.producer, ['producer', 'perfProducer'], 'producer'),
  measure(m, ctx) {
    const field = m.field ?? 'windowMs';
    if (field === 'maxAckGapMs') {
      const gap = ctx.errorWindows?.maxAckGap(m.producer);
      return gap === undefined ? null : round(gap);
    }
    const w = ctx.errorWindows?.of(m.producer);
    if (!w) return null;
    if (field === 'windowMs') return round(w.last - w.first);
    return round((field === 'firstMs' ? w.first : w.last) - (ctx.t0 ?? 0));
  },
};
