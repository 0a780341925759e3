// KAFKA-10533: without the flush guarantees the simulation suite finds a MonotonicHighWatermark violation, and
// the seed it prints replays it exactly; with them, the same search finds nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../../../models/sim/index.ts';
import {
  canElectNewLeaderAfterOldLeaderFailure,
  canRecoverAfterAllNodesKilled,
  canRecoverFromSingleNodeCommittedDataLoss,
  RUNS,
  type ScenarioParams,
} from './simulation-scenarios.ts';

const NO_FLUSH = { config: { 'kafkasim.raft.flush.enable': false } };

// Only the scenarios that kill nodes can lose unflushed data; the others behave the same with the switch off.
const CRASHING = [
  canElectNewLeaderAfterOldLeaderFailure,
  canRecoverAfterAllNodesKilled,
  canRecoverFromSingleNodeCommittedDataLoss,
];

describe('the flush switch', () => {
  it('without the flush guarantees the suite finds a monotonic high-watermark violation; its seed replays it', () => {
    const found: {
      scenario: (typeof CRASHING)[number];
      params: ScenarioParams;
      error: InvariantViolation;
    }[] = [];
    for (const scenario of CRASHING) {
      const result = fc.check(
        fc.property(scenario.params, (p) => {
          scenario.run(p, NO_FLUSH).dispose();
        }),
        { numRuns: RUNS },
      );
      if (!result.failed) continue;
      expect(result.errorInstance).toBeInstanceOf(InvariantViolation);
      found.push({
        scenario,
        params: result.counterexample![0],
        error: result.errorInstance as InvariantViolation,
      });
    }
    const hw = found.find((f) => f.error.invariant === 'MonotonicHighWatermark');
    expect(hw, 'no MonotonicHighWatermark violation found').toBeDefined();
    const { scenario, params, error } = hw!;
    expect(error.message).toMatch(
      /^invariant MonotonicHighWatermark violated: the high watermark went back from \d+ to \d+/,
    );
    // The message names the simulation seed, which is the scenario's seed.
    const printed = /replay with seed (-?\d+)$/.exec(error.message)![1]!;
    expect(Number(printed)).toBe(params.seed);
    let replayed: unknown;
    try {
      scenario.run({ ...params, seed: Number(printed) }, NO_FLUSH);
    } catch (e) {
      replayed = e;
    }
    expect(replayed).toBeInstanceOf(InvariantViolation);
    expect((replayed as InvariantViolation).context).toEqual(error.context);
    expect((replayed as InvariantViolation).message).toBe(error.message);
  });

  it('with the flush guarantees the same search finds no violation', () => {
    for (const scenario of CRASHING) {
      const result = fc.check(
        fc.property(scenario.params, (p) => {
          scenario.run(p).dispose();
        }),
        { numRuns: RUNS },
      );
      expect(result.failed, `${scenario.name}: ${fc.defaultReportMessage(result)}`).toBe(false);
    }
  });
});
