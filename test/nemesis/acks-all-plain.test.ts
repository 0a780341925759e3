// The nemesis over 100 seeds, acks=all with idempotence off (Java and librdkafka producers): no acknowledged record
// lost (retries may duplicate), offsets contiguous, every replica's committed log a prefix of the leader's, a
// consumer reads every committed record once; the data-plane and Raft invariants hold after every event. A failing seed
// prints the command that replays it (npm run nemesis -- --config plain --seed N).
import { describe, expect, it } from 'vitest';
import { ALL_FAULTS } from './nemesis-faults.ts';
import { runSeeds } from './suite.ts';

describe('nemesis: acks=all, idempotence off', () => {
  it('100 seeds of random crashes, cuts, slow brokers and drops: every promise holds', () => {
    const { results, failures } = runSeeds('plain', 1, 100);
    expect(failures, failures.join('\n')).toEqual([]);
    // The runs did exercise something: records acknowledged, and every kind of fault injected.
    expect(results.every((r) => r.acknowledged > 0)).toBe(true);
    const kinds = new Set(results.flatMap((r) => r.faults.map((f) => f.kind)));
    expect([...kinds].sort()).toEqual(ALL_FAULTS);
  }, 120_000);
});
