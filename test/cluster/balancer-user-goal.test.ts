// A user goal on a real cluster: the example ReplicaCountDistributionGoal spreads partitions that carry too
// little traffic for AutoMQ's network goals to act on. Without it nothing moves; with it, added through the
// library API or named in autobalancer.controller.goals, the brokers end with 4 partitions each.
import { describe, expect, it } from 'vitest';
import { ReplicaCountDistributionGoal } from '../../models/balancer/index.ts';
import { createCluster } from '../../src/cluster/index.ts';
import { steadyLoad } from '../models/balancer/steady-load.ts';
import { leadersPerBroker } from '../models/balancer/workflow-a.ts';

function run(options: Parameters<typeof createCluster>[0]) {
  const c = createCluster({ seed: 21, brokers: 3, storage: 'shared', ...options });
  c.admin.createTopic({ name: 'counts', assignments: Array.from({ length: 12 }, () => [0]) });
  // 12 KiB/s in all: far below the 1 MiB/s detect threshold of the network goals.
  for (let p = 0; p < 12; p++) steadyLoad(c, `counts-load-${p}`, 'counts', p, 1024);
  c.runFor('200s');
  return c;
}

describe('a user goal: replica count distribution', () => {
  it('does nothing with only the network goals (the traffic is below their threshold)', () => {
    const c = run({ autobalancer: true });
    expect(leadersPerBroker(c, 'counts')).toEqual({ 0: 12, 1: 0, 2: 0 });
    expect(c.balancer!.history.every((r) => r.moves.length === 0)).toBe(true);
  });

  it('spreads the partitions 4/4/4 when added to the goal list from the library API', () => {
    const c = run({ autobalancer: true });
    expect(leadersPerBroker(c, 'counts')).toEqual({ 0: 12, 1: 0, 2: 0 });
    const b = c.balancer!;
    b.addGoal(new ReplicaCountDistributionGoal());
    expect(b.goals.map((g) => g.name)).toEqual([
      'NetworkInUsageDistributionGoal',
      'NetworkOutUsageDistributionGoal',
      'ReplicaCountDistributionGoal',
    ]);
    c.runFor('70s');
    expect(leadersPerBroker(c, 'counts')).toEqual({ 0: 4, 1: 4, 2: 4 });
    const detect = b.history.find((r) => r.moves.length > 0)!;
    expect(detect.decisions.some((d) => d.kind === 'band' && d.goal === 'ReplicaCountDistributionGoal')).toBe(
      true,
    );
    expect(
      detect.decisions.filter((d) => d.kind === 'candidates' && d.goal === 'ReplicaCountDistributionGoal')
        .length,
    ).toBeGreaterThan(0);
  });

  it('replaces the goal list from the cluster options, or is named in autobalancer.controller.goals', () => {
    const replaced = run({ autobalancer: true, balancerGoals: [new ReplicaCountDistributionGoal()] });
    expect(leadersPerBroker(replaced, 'counts')).toEqual({ 0: 4, 1: 4, 2: 4 });
    expect(replaced.balancer!.goals.map((g) => g.name)).toEqual(['ReplicaCountDistributionGoal']);
    const named = run({
      autobalancer: {
        'autobalancer.controller.goals':
          'kafka.autobalancer.goals.NetworkInUsageDistributionGoal,ReplicaCountDistributionGoal',
      },
    });
    expect(leadersPerBroker(named, 'counts')).toEqual({ 0: 4, 1: 4, 2: 4 });
  });
});
