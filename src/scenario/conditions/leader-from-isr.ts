// leaderFromIsr: after a leader's broker failed, each partition's leader is a live broker that was in its ISR
// when an earlier step ran (the clean election Kafka promises).
import { object, ref, withDescription } from '../schema-kit.ts';
import type { ConditionDefinition } from './condition.ts';
import { selected } from './metadata-reads.ts';

export interface LeaderFromIsr {
  topic: string;
  since: string;
  partitions?: number[];
}

export const leaderFromIsr: ConditionDefinition<LeaderFromIsr, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    {
      topic: ref('topicName'),
      since: withDescription(ref('label'), 'The label of the step whose ISR counts.'),
      partitions: ref('partitionList'),
    },
    ['topic', 'since'],
  ),
  syntax: '`{topic, since: <label>, partitions?}`',
  description:
    'For each partition: the leader now is a live broker that was in the ISR when step `since` ran (use it after crashing a leader).',
  check(v, refs, path) {
    refs.checkTopic([...path, 'topic'], v.topic);
    refs.checkLabel([...path, 'since'], v.since);
  },
  evaluate(spec, ctx) {
    const since = ctx.steps.get(spec.since);
    const then = since?.image;
    if (!then) {
      return {
        passed: false,
        expected: `leaders from the ISR at step '${spec.since}'`,
        actual: `step '${spec.since}' did not run`,
      };
    }
    const before = selected(then, spec.topic, spec.partitions);
    const now = selected(ctx.cluster.image, spec.topic, spec.partitions);
    const rows = now.map((p) => {
      const old = before.find((b) => b.partition === p.partition);
      const up = p.leader >= 0 && (ctx.cluster.brokers.get(p.leader)?.up ?? false);
      return {
        partition: p.partition,
        leader: p.leader,
        isrBefore: old ? [...old.isr] : [],
        ok: up && !!old?.isr.includes(p.leader),
      };
    });
    return {
      passed: rows.length > 0 && rows.every((r) => r.ok),
      expected: `every partition of ${spec.topic} led by a live broker from its ISR at step '${spec.since}'`,
      actual: rows.map(({ partition, leader, isrBefore }) => ({ partition, leader, isrBefore })),
    };
  },
};
