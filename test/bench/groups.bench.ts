// Issue 6's benchmark: a consumer group of 100 members (Java flavour, defaults: eager range) on a
// 1,000-partition topic, driven through 10 rebalances (each: one member closes, a new one joins; every member
// rejoins, the leader reassigns all 1,000 partitions, offsets are committed and fetched). Target: under 1 s of
// wall time for the 10 rebalances. Prints the measured figures.
import { bench, describe } from 'vitest';
import type { GroupConsumer } from '../../models/clients/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

interface Setup {
  cluster: Cluster;
  members: GroupConsumer[];
  generation: number;
}

function setup(): Setup {
  const cluster = createCluster({ seed: 3, brokers: 3, storage: 'shared', invariantEvery: 1000 });
  cluster.admin.createTopic({ name: 'big', partitions: 1000 });
  const members: GroupConsumer[] = [];
  for (let i = 0; i < 100; i++)
    members.push(cluster.groupConsumer(`m${i}`, { groupId: 'bench', topics: ['big'] }));
  cluster.runUntil(() => members.every((m) => m.memberState === 'Stable' && m.generationId >= 1), {
    timeout: '120s',
    description: 'the initial rebalance',
  });
  return { cluster, members, generation: Math.min(...members.map((m) => m.generationId)) };
}

function tenRebalances(s: Setup): void {
  const c = s.cluster;
  const e0 = c.sim.eventCount;
  const v0 = c.now;
  const w0 = performance.now();
  for (let r = 0; r < 10; r++) {
    s.members.shift()!.close();
    s.members.push(c.groupConsumer(`joiner-${s.generation}`, { groupId: 'bench', topics: ['big'] }));
    const g = s.generation;
    c.runUntil(() => s.members.every((m) => m.memberState === 'Stable' && m.generationId > g), {
      timeout: '120s',
      description: `rebalance ${r + 1}`,
    });
    s.generation = Math.min(...s.members.map((m) => m.generationId));
  }
  const owned = s.members.reduce((n, m) => n + m.ownedPartitions().length, 0);
  if (owned !== 1000) throw new Error(`after the rebalances ${owned} partitions are owned, not 1000`);
  console.log(
    `10 rebalances of 100 members x 1,000 partitions: ${(performance.now() - w0).toFixed(0)} ms wall, ` +
      `${c.sim.eventCount - e0} events, ${((c.now - v0) / 1000).toFixed(1)} s virtual`,
  );
}

describe('consumer groups', () => {
  let s: Setup | undefined;
  bench('100 members, 1,000 partitions, 10 rebalances', () => tenRebalances(s!), {
    iterations: 3,
    warmupIterations: 1,
    setup: () => {
      s = setup();
    },
  });
});
