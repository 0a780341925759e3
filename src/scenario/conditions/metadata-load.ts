// metadataLoad: the numbered append load on the metadata log, checked exactly (and the metric of its counts).

import type { ReferenceChecks } from '../reference-checks.ts';
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { DocPath } from '../source.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields, type MetricDefinition } from './condition.ts';

export interface MetadataLoadCondition {
  exact?: true;
  committed?: Comparison;
  acknowledged?: Comparison;
}

function needsLoad(_v: unknown, refs: ReferenceChecks, path: DocPath): void {
  if (refs.spec && !refs.spec.cluster?.metadataLoad)
    refs.report(path, 'needs a metadata append load: set cluster.metadataLoad: {rate: <records/s>}');
}

export const metadataLoad: ConditionDefinition<MetadataLoadCondition, 'cluster'> = {
  scope: 'cluster',
  schema: object(
    {
      exact: { type: 'boolean', enum: [true], title: 'true' },
      committed: ref('comparison'),
      acknowledged: ref('comparison'),
    },
    [],
    { anyOf: exactlyOne(['exact', 'committed', 'acknowledged']) },
  ),
  syntax: '`{exact: true | committed | acknowledged}`',
  description:
    "The metadata append load (cluster.metadataLoad): `exact` means every controller read the committed counter as exactly 1, 2, 3, ... and no acknowledged value is missing from the active controller's committed log; `committed` is the committed counter value, `acknowledged` the appends acknowledged as committed.",
  check: needsLoad,
  evaluate(m, ctx) {
    const status = ctx.cluster.metadataLoadStatus();
    if (!status)
      return { passed: false, expected: 'a metadata append load', actual: 'cluster.metadataLoad is not set' };
    if (m.exact) {
      // Every controller read 1, 2, 3, ...; and whatever was acknowledged as committed is still committed.
      const lost = Math.max(0, status.maxAcknowledged - status.committed);
      return {
        passed: status.violation === undefined && lost === 0,
        expected:
          'the committed counter runs exactly 1, 2, 3, ... on every controller and holds every acknowledged value',
        actual: {
          committed: status.committed,
          maxAcknowledged: status.maxAcknowledged,
          ...(status.violation !== undefined ? { violation: status.violation } : {}),
        },
      };
    }
    const counts = { committed: status.committed, acknowledged: status.acknowledged };
    return fields('metadata append load', counts, { committed: m.committed, acknowledged: m.acknowledged });
  },
};

export const metadataLoadMetric: MetricDefinition<{
  field: 'committed' | 'acknowledged' | 'appended' | 'abandoned';
}> = {
  schema: object(
    { field: { type: 'string', enum: ['committed', 'acknowledged', 'appended', 'abandoned'] } },
    ['field'],
  ),
  syntax: '`{field: committed|acknowledged|appended|abandoned}`',
  description:
    'The metadata append load: the committed counter value, appends acknowledged, made, abandoned by a failover.',
  check: needsLoad,
  measure: (m, ctx) => ctx.cluster.metadataLoadStatus()?.[m.field] ?? null,
};
