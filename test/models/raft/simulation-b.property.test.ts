// Kafka's RaftEventSimulationTest, rebuilt (apache/kafka raft/src/test/), part 2: leader failures, partitions, a lost
// disk, and KIP-996 stable leadership with pre-vote on. 100 seeds per scenario.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canElectNewLeaderAfterOldLeaderFailure,
  canElectNewLeaderAfterOldLeaderPartitionedAway,
  canMakeProgressAfterBackToBackLeaderFailures,
  canRecoverFromSingleNodeCommittedDataLoss,
  leadershipWillNotChangeDuringNetworkPartition,
  RUNS,
  type Scenario,
} from './simulation-scenarios.ts';

function holds(s: Scenario): void {
  fc.assert(
    fc.property(s.params, (p) => {
      const q = s.run(p);
      expect(q.maxHighWatermarkReached()).toBeGreaterThan(10);
      q.dispose();
    }),
    { numRuns: RUNS },
  );
}

describe('Raft simulation (2/2)', () => {
  it(canElectNewLeaderAfterOldLeaderFailure.name, () => holds(canElectNewLeaderAfterOldLeaderFailure));
  it(canElectNewLeaderAfterOldLeaderPartitionedAway.name, () =>
    holds(canElectNewLeaderAfterOldLeaderPartitionedAway),
  );
  it(canMakeProgressAfterBackToBackLeaderFailures.name, () =>
    holds(canMakeProgressAfterBackToBackLeaderFailures),
  );
  it(canRecoverFromSingleNodeCommittedDataLoss.name, () => holds(canRecoverFromSingleNodeCommittedDataLoss));
  it(`${leadershipWillNotChangeDuringNetworkPartition.name} (pre-vote on)`, () =>
    holds(leadershipWillNotChangeDuringNetworkPartition));
});
