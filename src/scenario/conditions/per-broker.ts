// What leadersPerBroker and replicasPerBroker share: how partitions (their leaders, or all their replicas)
// spread over the brokers.

import type { PartitionRegistration } from '../../../models/metadata/index.ts';
import type { ReferenceChecks } from '../reference-checks.ts';
import { exactlyOne, object, ref, withDescription } from '../schema-kit.ts';
import type { DocPath } from '../source.ts';
import type { ConditionDefinition } from './condition.ts';
import { perBroker, skew } from './metadata-reads.ts';

export interface PerBrokerCondition {
  topic?: string;
  equals?: Record<string, number>;
  maxSkew?: number;
}

const schema = object(
  {
    topic: withDescription(ref('topicName'), 'Only this topic (default: every topic).'),
    equals: ref('brokerCounts'),
    maxSkew: { type: 'integer', minimum: 0, description: 'Largest allowed max - min over all brokers.' },
  },
  [],
  { anyOf: exactlyOne(['equals', 'maxSkew']) },
);

function check(v: PerBrokerCondition, refs: ReferenceChecks, path: DocPath): void {
  refs.checkTopic([...path, 'topic'], v.topic);
  for (const id of Object.keys(v.equals ?? {})) refs.checkBroker([...path, 'equals', id], Number(id), true);
}

export function perBrokerCondition(
  what: 'leaders' | 'replicas',
  count: (p: PartitionRegistration) => readonly number[],
  description: string,
): ConditionDefinition<PerBrokerCondition, 'cluster'> {
  return {
    scope: 'cluster',
    reads: 'image',
    schema,
    syntax: '`{topic?, equals: {1: 0, 2: 8}}` or `{topic?, maxSkew}`',
    description,
    check,
    evaluate(spec, ctx) {
      const counts = perBroker(ctx.cluster.image, ctx.brokerIds, spec.topic, count);
      const parts: string[] = [];
      let passed = true;
      if (spec.equals) {
        const want: Record<string, number> = {};
        for (const id of ctx.brokerIds) want[id] = spec.equals[id] ?? 0;
        parts.push(`${what} per broker = ${JSON.stringify(want)}`);
        if (Object.keys(want).some((id) => want[id] !== counts[id])) passed = false;
      }
      if (spec.maxSkew !== undefined) {
        parts.push(`max - min ${what} per broker <= ${spec.maxSkew}`);
        if (skew(counts) > spec.maxSkew) passed = false;
      }
      const scope = spec.topic ? ` (${spec.topic})` : '';
      return { passed, expected: parts.join(' and ') + scope, actual: counts };
    },
  };
}
