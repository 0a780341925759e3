// isr: each listed partition's in-sync replica set has a size, includes or excludes a broker.
import type { PartitionRegistration } from '../../../models/metadata/index.ts';
import { exactlyOne, object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, compare, describeComparison, lazyOutcome } from './condition.ts';
import { selected } from './metadata-reads.ts';

export interface IsrCondition {
  topic: string;
  partitions?: number[];
  size?: Comparison;
  includes?: number;
  excludes?: number;
}

export const isr: ConditionDefinition<IsrCondition, 'cluster'> = {
  scope: 'cluster',
  reads: 'image',
  schema: object(
    {
      topic: ref('topicName'),
      partitions: ref('partitionList'),
      size: withDescription(ref('comparison'), 'ISR size of each partition.'),
      includes: withDescription(ref('brokerId'), 'A broker every ISR must contain.'),
      excludes: withDescription(ref('brokerId'), 'A broker no ISR may contain.'),
    },
    ['topic'],
    { anyOf: exactlyOne(['size', 'includes', 'excludes']) },
  ),
  syntax: '`{topic, partitions?, size | includes | excludes}`',
  description:
    'Each listed partition (default all) has an ISR whose `size` matches, that `includes` / `excludes` a broker.',
  check(v, refs, path) {
    refs.checkTopic([...path, 'topic'], v.topic);
    if (v.includes !== undefined) refs.checkBroker([...path, 'includes'], v.includes);
    if (v.excludes !== undefined) refs.checkBroker([...path, 'excludes'], v.excludes);
  },
  evaluate(spec, ctx) {
    const ps = selected(ctx.cluster.image, spec.topic, spec.partitions);
    const ok = (p: PartitionRegistration) =>
      (spec.size === undefined || compare(p.isr.length, spec.size)) &&
      (spec.includes === undefined || p.isr.includes(spec.includes)) &&
      (spec.excludes === undefined || !p.isr.includes(spec.excludes));
    return lazyOutcome(
      ps.length > 0 && ps.every(ok),
      () => {
        const expected: string[] = [];
        if (spec.size !== undefined) expected.push(describeComparison('ISR size', spec.size));
        if (spec.includes !== undefined) expected.push(`ISR includes ${spec.includes}`);
        if (spec.excludes !== undefined) expected.push(`ISR excludes ${spec.excludes}`);
        return `every partition of ${spec.topic}: ${expected.join(', ')}`;
      },
      () => Object.fromEntries(ps.map((p) => [p.partition, [...p.isr]])),
    );
  },
};
