// Nemesis seeds that found model bugs (issue 20), kept as regression tests: each broke before its fix.
// - plain 7: a replica that had led an epoch without appending kept it at its log end; the new leader's diverging
//   epoch answer made it truncate to where it already was, for ever (PartitionLog.truncateTo).
// - acks1 6: a follower truncated on a diverging epoch and dropped the answer's high watermark; the leader's fetch
//   session counted it as sent, so the follower's high watermark stayed behind (ReplicaFetcher).
// - plain 69: the data-plane invariants read the ISR from the newest committed image among the live controllers;
//   the controller that had committed the latest ISR change crashed, the others' images were older, and
//   AcknowledgedInIsr checked a batch against an ISR member that had already left (Cluster.latestCommittedImage).
import { describe, expect, it } from 'vitest';
import { runNemesis } from './nemesis.ts';

describe('nemesis regressions', () => {
  it('plain, seed 7: the cluster settles and every promise holds', () => {
    expect(runNemesis('plain', 7).violations).toEqual([]);
  });

  it('plain, seed 69: the invariants check against the newest committed ISR, not an older one', () => {
    expect(runNemesis('plain', 69).violations).toEqual([]);
  });

  it('acks1, seed 6: the cluster settles (acks=1 may lose records, but every replica catches up)', () => {
    const r = runNemesis('acks1', 6);
    expect(r.violations.filter((v) => !/acknowledged records lost/.test(v))).toEqual([]);
    expect(r.lost).toBe(true);
  });
});
