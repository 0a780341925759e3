// quorum: the KRaft metadata quorum now (and the metric of its counts).
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields, type MetricDefinition, round } from './condition.ts';

export interface QuorumCondition {
  leader?: boolean;
  leaderChanges?: Comparison;
  epoch?: Comparison;
  unavailableMs?: Comparison;
}

const cmp = ref('comparison');

export const quorum: ConditionDefinition<QuorumCondition, 'cluster'> = {
  scope: 'cluster',
  schema: object(
    {
      leader: { type: 'boolean', description: 'A controller is active (true) or none is (false).' },
      leaderChanges: cmp,
      epoch: cmp,
      unavailableMs: cmp,
    },
    [],
    { anyOf: exactlyOne(['leader', 'leaderChanges', 'epoch', 'unavailableMs']) },
  ),
  syntax: '`{leader | leaderChanges | epoch | unavailableMs}`',
  description:
    'The KRaft metadata quorum now: `leader` (a controller is active), `leaderChanges` (times the active controller changed after the first election), `epoch` (the highest Raft epoch among running controllers), `unavailableMs` (virtual ms without an active controller since the first election).',
  evaluate(q, ctx) {
    const status = ctx.cluster.quorumStatus();
    const measured = {
      leader: status.activeController !== undefined ? 1 : 0,
      leaderChanges: status.leaderChanges,
      epoch: status.epoch,
      unavailableMs: round(status.unavailableMs),
    };
    const outcome = fields('metadata quorum', measured, {
      leader: q.leader === undefined ? undefined : q.leader ? 1 : 0,
      leaderChanges: q.leaderChanges,
      epoch: q.epoch,
      unavailableMs: q.unavailableMs,
    });
    return {
      passed: outcome.passed,
      expected:
        q.leader === undefined
          ? outcome.expected
          : outcome.expected.replace(/leader = [01]/, `leader = ${q.leader}`),
      actual: {
        ...(outcome.actual as Record<string, number>),
        ...(q.leader !== undefined ? { leader: measured.leader === 1 } : {}),
        activeController: status.activeController ?? null,
      },
    };
  },
};

export const quorumMetric: MetricDefinition<{ field: 'leaderChanges' | 'unavailableMs' | 'epoch' }> = {
  schema: object({ field: { type: 'string', enum: ['leaderChanges', 'unavailableMs', 'epoch'] } }, ['field']),
  syntax: '`{field: leaderChanges|unavailableMs|epoch}`',
  description:
    'The metadata quorum: active-controller changes, virtual ms without an active controller, the Raft epoch.',
  measure: (m, ctx) => round(ctx.cluster.quorumStatus()[m.field]),
};
