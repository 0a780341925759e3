/**
 * Goal names for `autobalancer.controller.goals`: AutoMQ lists Java class names
 * (`kafka.autobalancer.goals.NetworkInUsageDistributionGoal`); the simple name works too. Users register their
 * own goals here so that a config or a scenario can name them.
 */
import { NETWORK_IN_GOAL, NETWORK_OUT_GOAL } from './config.ts';
import type { Goal } from './goal.ts';
import { NetworkInUsageDistributionGoal, NetworkOutUsageDistributionGoal } from './network-goals.ts';
import { ReplicaCountDistributionGoal } from './replica-count-distribution-goal.ts';

export type GoalFactory = () => Goal;

const registry = new Map<string, GoalFactory>();

/** Makes `name` usable in `autobalancer.controller.goals` (and its simple name, after the last dot). */
export function registerGoal(name: string, factory: GoalFactory): void {
  registry.set(name, factory);
  const simple = name.slice(name.lastIndexOf('.') + 1);
  if (simple !== name && !registry.has(simple)) registry.set(simple, factory);
}

export function registeredGoalNames(): string[] {
  return [...registry.keys()].sort();
}

/** A fresh goal for each configured name; throws on an unknown one. */
export function createGoals(names: readonly string[]): Goal[] {
  return names.map((name) => {
    const factory = registry.get(name.trim());
    if (!factory) {
      throw new Error(`Unknown auto-balancer goal '${name}' (known: ${registeredGoalNames().join(', ')})`);
    }
    return factory();
  });
}

registerGoal(NETWORK_IN_GOAL, () => new NetworkInUsageDistributionGoal());
registerGoal(NETWORK_OUT_GOAL, () => new NetworkOutUsageDistributionGoal());
registerGoal(
  'kafkasim.balancer.goals.ReplicaCountDistributionGoal',
  () => new ReplicaCountDistributionGoal(),
);
