// The scenarios of Kafka's RaftEventSimulationTest (apache/kafka raft/src/test/), rebuilt on RaftQuorum: each takes a
// seed and the scenario's parameters, runs its phases, and throws (naming the seed) when a phase does not complete or
// an invariant breaks. The property tests and the bench share them.
import fc from 'fast-check';
import type { QuorumConfig, RaftInvariantName } from '../../../models/raft/index.ts';
import { RAFT_INVARIANTS, RaftQuorum, SIMULATION_TEST_QUORUM_CONFIG } from '../../../models/raft/index.ts';

export interface ScenarioParams {
  seed: number;
  voters: number;
  observers: number;
  graceful?: boolean;
}

export interface ScenarioOptions {
  /** Overrides on top of the simulation test's constants. */
  config?: Partial<QuorumConfig>;
  invariantEvery?: number;
}

export interface Scenario {
  readonly name: string;
  readonly params: fc.Arbitrary<ScenarioParams>;
  run(p: ScenarioParams, options?: ScenarioOptions): RaftQuorum;
}

const seed = fc.integer();

function quorum(
  p: ScenarioParams,
  options: ScenarioOptions,
  extra: { invariants?: readonly RaftInvariantName[]; config?: Partial<QuorumConfig> } = {},
): RaftQuorum {
  return new RaftQuorum({
    seed: p.seed,
    voters: p.voters,
    observers: p.observers,
    config: { ...SIMULATION_TEST_QUORUM_CONFIG, ...extra.config, ...options.config },
    invariants: extra.invariants ?? RAFT_INVARIANTS,
    ...(options.invariantEvery !== undefined ? { invariantEvery: options.invariantEvery } : {}),
  });
}

/** startAll, a consistent leader, then some data (initializeClusterAndStartAppending). */
function warmUp(q: RaftQuorum, hw = 10): void {
  q.startAll();
  q.runUntil(() => q.hasConsistentLeader(), 'a consistent leader');
  q.runUntil(() => q.anyReachedHighWatermark(hw), `any high watermark > ${hw}`);
}

function currentLeader(q: RaftQuorum): number {
  const id = q.latestLeader();
  if (id === undefined) throw new Error(`seed ${q.sim.seed}: no leader found`);
  return id;
}

export const canElectInitialLeader: Scenario = {
  name: 'canElectInitialLeader',
  params: fc.record({
    seed,
    voters: fc.integer({ min: 1, max: 5 }),
    observers: fc.integer({ min: 0, max: 5 }),
  }),
  run(p, options = {}) {
    const q = quorum(p, options);
    q.startAll();
    q.runUntil(() => q.hasConsistentLeader(), 'a consistent leader');
    q.runUntil(() => q.allReachedHighWatermark(10), 'every high watermark > 10');
    return q;
  },
};

export const canElectNewLeaderAfterOldLeaderFailure: Scenario = {
  name: 'canElectNewLeaderAfterOldLeaderFailure',
  params: fc.record({
    seed,
    voters: fc.integer({ min: 3, max: 5 }),
    observers: fc.integer({ min: 0, max: 5 }),
    graceful: fc.boolean(),
  }),
  run(p, options = {}) {
    const q = quorum(p, options);
    warmUp(q);
    const leader = currentLeader(q);
    if (p.graceful) q.shutdown(leader);
    else q.kill(leader);
    q.runUntil(
      () => q.allReachedHighWatermark(20),
      'every running high watermark > 20 without the old leader',
    );
    const hw = q.maxHighWatermarkReached();
    q.runUntil(() => !q.node(leader).up, 'the old leader is down');
    q.start(leader);
    q.runUntil(
      () => q.allReachedHighWatermark(hw + 10),
      `every high watermark > ${hw + 10} after the restart`,
    );
    return q;
  },
};

export const canRecoverAfterAllNodesKilled: Scenario = {
  name: 'canRecoverAfterAllNodesKilled',
  params: fc.record({
    seed,
    voters: fc.integer({ min: 1, max: 5 }),
    observers: fc.integer({ min: 0, max: 5 }),
  }),
  run(p, options = {}) {
    const q = quorum(p, options);
    warmUp(q);
    const hw = q.maxHighWatermarkReached();
    q.killAll();
    for (const id of [...q.voterIds, ...q.observerIds].slice(0, q.majoritySize)) q.start(id);
    q.runUntil(
      () => q.allReachedHighWatermark(hw + 10),
      `every high watermark > ${hw + 10} after a majority restarts`,
    );
    return q;
  },
};

export const canElectNewLeaderAfterOldLeaderPartitionedAway: Scenario = {
  name: 'canElectNewLeaderAfterOldLeaderPartitionedAway',
  params: fc.record({
    seed,
    voters: fc.integer({ min: 3, max: 5 }),
    observers: fc.integer({ min: 0, max: 5 }),
  }),
  run(p, options = {}) {
    const q = quorum(p, options);
    warmUp(q);
    const leader = currentLeader(q);
    q.isolate(leader);
    const others = [...q.nodes.keys()].filter((id) => id !== leader);
    q.runUntil(() => q.allReachedHighWatermark(20, others), 'the others reach a high watermark > 20');
    return q;
  },
};

export const canMakeProgressIfMajorityIsReachable: Scenario = {
  name: 'canMakeProgressIfMajorityIsReachable',
  params: fc.record({ seed, voters: fc.constant(5), observers: fc.integer({ min: 0, max: 3 }) }),
  run(p, options = {}) {
    const q = quorum(p, options);
    warmUp(q);
    q.cut(0, [2, 3, 4]);
    q.cut(1, [2, 3, 4]);
    q.runUntil(() => q.anyReachedHighWatermark(20), 'any high watermark > 20 with 5 voters split 2|3');
    const minority = q.maxHighWatermarkReached([0, 1]);
    const majority = q.maxHighWatermarkReached([2, 3, 4]);
    if (!(majority > minority))
      throw new Error(
        `seed ${p.seed}: the majority's high watermark ${majority} is not above the minority's ${minority}`,
      );
    q.heal();
    q.runUntil(() => q.allReachedHighWatermark(30), 'every high watermark > 30 after healing');
    return q;
  },
};

export const canMakeProgressAfterBackToBackLeaderFailures: Scenario = {
  name: 'canMakeProgressAfterBackToBackLeaderFailures',
  params: fc.record({
    seed,
    voters: fc.integer({ min: 3, max: 5 }),
    observers: fc.integer({ min: 0, max: 5 }),
  }),
  run(p, options = {}) {
    const q = quorum(p, options);
    warmUp(q);
    const leader = currentLeader(q);
    q.isolate(leader);
    q.runUntil(() => {
      const l = q.latestLeader();
      return l !== undefined && l !== leader;
    }, 'a leader other than the isolated one');
    const newLeader = currentLeader(q);
    q.heal();
    q.isolate(newLeader);
    const target = q.maxHighWatermarkReached() + 10;
    q.runUntil(() => q.anyReachedHighWatermark(target), `any high watermark > ${target}`);
    return q;
  },
};

export const canRecoverFromSingleNodeCommittedDataLoss: Scenario = {
  name: 'canRecoverFromSingleNodeCommittedDataLoss',
  params: fc.record({
    seed,
    voters: fc.integer({ min: 3, max: 5 }),
    observers: fc.integer({ min: 0, max: 2 }),
  }),
  run(p, options = {}) {
    // Losing a node's disk can break MonotonicEpoch and MajorityReachedHighWatermark, so, as in Kafka's test,
    // only MonotonicHighWatermark, SingleLeader and ConsistentCommittedData are checked.
    const q = quorum(p, options, { invariants: ['MonotonicHighWatermark', 'SingleLeader'] });
    q.startAll();
    q.runUntil(() => q.anyReachedHighWatermark(10), 'any high watermark > 10');
    const running = q.running();
    const victim = running[q.sim.rng.stream('scenario/victim').int(0, running.length - 1)]!.replicaId;
    q.killAndDeletePersistentState(victim);
    q.runUntil(
      () => !q.hasLeader(victim) && q.hasConsistentLeader(),
      `a consistent leader other than ${victim}`,
    );
    const hw = q.maxHighWatermarkReached();
    q.start(victim);
    q.runUntil(
      () => q.allReachedHighWatermark(hw + 10),
      `every high watermark > ${hw + 10} after the restart`,
    );
    return q;
  },
};

/**
 * KIP-996, pre-vote on: with the partition below (the leader at C), leadership never changes.
 *   A   B
 *   |   |
 *   C - D
 *    \ /
 *     E
 */
export const leadershipWillNotChangeDuringNetworkPartition: Scenario = {
  name: 'leadershipWillNotChangeDuringNetworkPartitionIfMajorityStillReachable',
  params: fc.record({ seed, voters: fc.constant(5), observers: fc.integer({ min: 0, max: 3 }) }),
  run(p, options = {}) {
    const q = quorum(p, options, {
      invariants: [...RAFT_INVARIANTS, 'StableLeadership'],
      config: { 'kafkasim.raft.pre.vote.enable': true },
    });
    warmUp(q);
    const c = currentLeader(q);
    const [a, b, d, e] = [1, 2, 3, 4].map((k) => (c + k) % 5) as [number, number, number, number];
    q.cut(a, [b, d, e]);
    q.cut(b, [c, e]);
    q.cut(d, [a]);
    q.cut(e, [a, b]);
    q.runUntil(
      () => q.allReachedHighWatermark(20, [a, c, d, e]),
      'A, C, D and E reach a high watermark > 20',
    );
    return q;
  },
};

export const SCENARIOS: readonly Scenario[] = [
  canElectInitialLeader,
  canElectNewLeaderAfterOldLeaderFailure,
  canRecoverAfterAllNodesKilled,
  canElectNewLeaderAfterOldLeaderPartitionedAway,
  canMakeProgressIfMajorityIsReachable,
  canMakeProgressAfterBackToBackLeaderFailures,
  canRecoverFromSingleNodeCommittedDataLoss,
  leadershipWillNotChangeDuringNetworkPartition,
];

/** fast-check settings of the normal run: 100 seeds per scenario, the property's seed printed on failure. */
export const RUNS = 100;
