// The nemesis's checker can fail: the configurations that Kafka does not promise to keep acknowledged records
// under faults (acks=1; unclean.leader.election.enable=true) lose some in these seeds, and the checker says so.
// Nothing else may break there: offsets stay contiguous, replicas agree, every committed record is read once.
import { describe, expect, it } from 'vitest';
import { runSeeds } from './suite.ts';

describe('the nemesis finds the losses Kafka allows', () => {
  it('acks=1, 20 seeds: a leader acknowledges alone, and a crash or cut before its followers copy loses records', () => {
    const { results, failures } = runSeeds('acks1', 1, 20);
    expect(failures, failures.join('\n')).toEqual([]);
    const lossy = results.filter((r) => r.lost);
    expect(lossy.length, 'acks=1 runs that lost acknowledged records').toBeGreaterThan(3);
    for (const r of lossy) expect(r.violations.join(' ')).toMatch(/\d+ acknowledged records lost/);
  }, 120_000);

  it('unclean leader election, 20 seeds: an out-of-sync replica leads and acknowledged records are gone', () => {
    const { results, failures } = runSeeds('unclean', 1, 20);
    expect(failures, failures.join('\n')).toEqual([]);
    const lossy = results.filter((r) => r.lost);
    expect(lossy.length, 'unclean runs that lost acknowledged records').toBeGreaterThan(1);
    // Every such loss comes with an unclean election in the run: min.insync.replicas=1 alone loses nothing.
    for (const r of lossy) expect(r.uncleanElections).toBeGreaterThan(0);
  }, 120_000);
});
