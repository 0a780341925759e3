/**
 * One optimization pass (the middle of AutoMQ's `AnomalyDetectorImpl.detect0`): every goal is initialized on
 * the snapshot over its eligible brokers (so all bands come from the loads before any move), then the goals run
 * in priority order, each applying its actions to the snapshot, so that later goals see earlier moves and may
 * not undo an optimized group's work.
 */
import type { Action } from './action.ts';
import type { AutoBalancerConfig } from './config.ts';
import type { BalancerDecision } from './decisions.ts';
import { type Goal, GoalRun, goalsByPriority } from './goal.ts';
import type { ClusterSnapshot } from './snapshot.ts';
import { toMove } from './usage-distribution-goal.ts';

export interface OptimizeOptions {
  /** Passed to each goal's configure() first (runtime config changes). */
  config?: AutoBalancerConfig;
  /** Receives every decision; without it the pass builds none (fast). */
  record?: (decision: BalancerDecision) => void;
}

/** Runs `goals` over `snapshot` (mutating it) and returns the actions in the order they were chosen. */
export function optimize(
  snapshot: ClusterSnapshot,
  goals: readonly Goal[],
  options: OptimizeOptions = {},
): Action[] {
  const ordered = goalsByPriority(goals);
  const record = options.record;
  for (const goal of ordered) {
    if (options.config) goal.configure?.(options.config);
    const eligible = snapshot.brokers.filter((b) => goal.isEligibleBroker(b));
    goal.initialize(snapshot, eligible);
    if (record) {
      const inside = new Set(eligible);
      record({
        kind: 'band',
        goal: goal.name,
        group: goal.group,
        band: goal.describe?.() ?? {},
        eligibleBrokers: eligible.map((b) => b.brokerId),
        ineligibleBrokers: snapshot.brokers
          .filter((b) => !inside.has(b))
          .map((b) => ({ brokerId: b.brokerId, reason: b.outOfDate ?? 'not eligible for this goal' })),
      });
    }
  }
  const actions: Action[] = [];
  const optimized: Goal[] = [];
  for (const goal of ordered) {
    const chosen = goal.optimize(new GoalRun(snapshot, goal, ordered, optimized, record));
    actions.push(...chosen);
    optimized.push(goal);
    record?.({ kind: 'goal-done', goal: goal.name, actions: chosen.map(toMove) });
  }
  return actions;
}
