// delivery: a producer's records, counted exactly: sent, acknowledged, failed, lost (acknowledged but in no
// log) and duplicated (extra copies in the logs); and the metric of each count.
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields, type MetricDefinition } from './condition.ts';

export interface DeliveryCondition {
  producer: string;
  sent?: Comparison;
  acknowledged?: Comparison;
  failed?: Comparison;
  lost?: Comparison;
  duplicated?: Comparison;
}

const cmp = ref('comparison');

export const delivery: ConditionDefinition<DeliveryCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    { producer: ref('clientName'), sent: cmp, acknowledged: cmp, failed: cmp, lost: cmp, duplicated: cmp },
    ['producer'],
    { anyOf: exactlyOne(['sent', 'acknowledged', 'failed', 'lost', 'duplicated']) },
  ),
  syntax: '`{producer, sent | acknowledged | failed | lost | duplicated}`',
  description:
    "Exact delivery accounting of a producer's records: sent, acknowledged, failed, lost (acknowledged but in no log) and duplicated (extra copies in the logs).",
  check: (v, refs, path) =>
    refs.checkClient([...path, 'producer'], v.producer, ['producer', 'perfProducer'], 'producer'),
  evaluate(d, ctx) {
    // Lost and duplicated need the logs read; the counters alone are cheap (a waitUntil asks every millisecond).
    const cheap = d.lost === undefined && d.duplicated === undefined;
    const measured = cheap ? ctx.clients.counters(d.producer) : ctx.clients.delivery(d.producer);
    return fields(`producer ${d.producer}`, measured, {
      sent: d.sent,
      acknowledged: d.acknowledged,
      failed: d.failed,
      lost: d.lost,
      duplicated: d.duplicated,
    });
  },
};

export const deliveryMetric: MetricDefinition<{
  producer: string;
  field: 'sent' | 'acknowledged' | 'failed' | 'lost' | 'duplicated';
}> = {
  schema: object(
    {
      producer: ref('clientName'),
      field: { type: 'string', enum: ['sent', 'acknowledged', 'failed', 'lost', 'duplicated'] },
    },
    ['producer', 'field'],
  ),
  syntax: '`{producer, field: sent|acknowledged|failed|lost|duplicated}`',
  description: "One of a producer's exact delivery counts.",
  check: (m, refs, path) =>
    refs.checkClient([...path, 'producer'], m.producer, ['producer', 'perfProducer'], 'producer'),
  measure(m, ctx) {
    const f = m.field;
    if (f === 'lost' || f === 'duplicated') return ctx.clients.delivery(m.producer)[f];
    return ctx.clients.counters(m.producer)[f];
  },
};
