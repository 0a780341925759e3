// invariants: no model invariant was violated during the run.
import type { ConditionDefinition } from './condition.ts';

export const invariants: ConditionDefinition<'held', 'scenario'> = {
  scope: 'scenario',
  schema: { type: 'string', enum: ['held'], title: "'held'" },
  syntax: '`held`',
  description:
    "`held`: no model invariant was violated during the run (the run stops at the first violation). With cluster.controllers >= 2 these include the Raft checks of Kafka's RaftEventSimulationTest (MonotonicHighWatermark, MonotonicEpoch, MajorityReachedHighWatermark, SingleLeader), and with metadataLoad the ReplicatedCounter check.",
  evaluate: (_v, ctx) => ({
    passed: ctx.invariantViolation === undefined,
    expected: 'no invariant violated',
    actual: ctx.invariantViolation ?? 'none violated',
  }),
};
