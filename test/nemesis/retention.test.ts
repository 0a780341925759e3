// The nemesis with retention (the `retention` configuration: acks=all, idempotence on, 6 kB segments, 30 kB kept
// per log, a retention check every second): old segments are deleted on every replica all through the crashes,
// cuts and drops, followers come back below their leader's log start and start over there. Every promise of
// `idempotent` still holds, except that an acknowledged record may be gone when its offset is below the log start
// (deleted, not lost). A failing seed prints the command that replays it
// (npm run nemesis -- --config retention --seed N).
import { describe, expect, it } from 'vitest';
import { runSeeds } from './suite.ts';

describe('nemesis: retention deleting segments through the faults', () => {
  it('40 seeds: nothing lost above the log start, nothing duplicated, replicas agree', () => {
    const { results, failures } = runSeeds('retention', 1, 40);
    expect(failures, failures.join('\n')).toEqual([]);
    // Retention did delete acknowledged records in every run, and some checks kept more than they deleted.
    for (const r of results) expect(r.deleted, `seed ${r.seed}`).toBeGreaterThan(0);
    expect(results.every((r) => r.acknowledged > r.deleted)).toBe(true);
    // Some follower came back below its leader's log start and started over there.
    expect(results.filter((r) => r.fullTruncations > 0).length).toBeGreaterThan(0);
  }, 300_000);
});
