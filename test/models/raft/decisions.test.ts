import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  binaryExponentialElectionBackoffMs,
  canGrantVote,
  compareOffsetAndEpoch,
  endOffsetForEpoch,
  isLogUpToDate,
  majority,
  majorityEndOffset,
  nextHighWatermark,
  type QuorumRole,
  randomElectionTimeoutMs,
  strictExponentialElectionBackoffMs,
  successorsByDescendingFetchOffset,
  truncationOffset,
  validateOffsetAndEpoch,
} from '../../../models/raft/index.ts';
import { epochAt, logOf } from './epoch-logs.ts';

const offsetAndEpoch = fc.record({ offset: fc.nat(1000), epoch: fc.nat(20) });

describe('log comparison', () => {
  it('compares by epoch first, then offset', () => {
    expect(compareOffsetAndEpoch({ offset: 100, epoch: 1 }, { offset: 5, epoch: 2 })).toBe(-1);
    expect(compareOffsetAndEpoch({ offset: 6, epoch: 2 }, { offset: 5, epoch: 2 })).toBe(1);
    expect(compareOffsetAndEpoch({ offset: 5, epoch: 2 }, { offset: 6, epoch: 2 })).toBe(-1);
    expect(compareOffsetAndEpoch({ offset: 5, epoch: 2 }, { offset: 5, epoch: 2 })).toBe(0);
    // A longer log of an older epoch is not up to date against a shorter log of a newer epoch.
    expect(isLogUpToDate({ offset: 100, epoch: 1 }, { offset: 5, epoch: 2 })).toBe(false);
    expect(isLogUpToDate({ offset: 5, epoch: 2 }, { offset: 5, epoch: 2 })).toBe(true);
  });

  it('is a total order (antisymmetric and transitive)', () => {
    fc.assert(
      fc.property(offsetAndEpoch, offsetAndEpoch, offsetAndEpoch, (a, b, c) => {
        expect(Math.sign(compareOffsetAndEpoch(a, b)) + Math.sign(compareOffsetAndEpoch(b, a))).toBe(0);
        if (compareOffsetAndEpoch(a, b) <= 0 && compareOffsetAndEpoch(b, c) <= 0)
          expect(compareOffsetAndEpoch(a, c)).toBeLessThanOrEqual(0);
        expect(isLogUpToDate(a, b) || isLogUpToDate(b, a)).toBe(true);
      }),
    );
  });
});

describe('vote granting', () => {
  const view = (role: QuorumRole, votedId?: number, hasFetchedFromLeader = false) => ({
    role,
    votedId,
    hasFetchedFromLeader,
  });

  it('only an unattached voter that has not voted for another grants a standard vote, if the log is up to date', () => {
    expect(canGrantVote(view('unattached'), 2, true, false)).toBe(true);
    expect(canGrantVote(view('unattached'), 2, false, false)).toBe(false);
    expect(canGrantVote(view('unattached', 3), 2, true, false)).toBe(false);
    // Voted for the same candidate already: the vote is given again.
    expect(canGrantVote(view('unattached', 2), 2, false, false)).toBe(true);
    for (const role of ['candidate', 'leader', 'follower', 'resigned'] as const)
      expect(canGrantVote(view(role), 2, true, false)).toBe(false);
  });

  it('grants pre-votes in every role but leader when up to date; a follower only before it heard its leader', () => {
    for (const role of ['unattached', 'candidate', 'prospective', 'resigned'] as const) {
      expect(canGrantVote(view(role, 7), 2, true, true)).toBe(true);
      expect(canGrantVote(view(role), 2, false, true)).toBe(false);
    }
    expect(canGrantVote(view('leader'), 2, true, true)).toBe(false);
    expect(canGrantVote(view('follower', undefined, false), 2, true, true)).toBe(true);
    expect(canGrantVote(view('follower', undefined, true), 2, true, true)).toBe(false);
  });

  it('never grants a standard vote to a second candidate of an epoch', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<QuorumRole>(
          'unattached',
          'prospective',
          'candidate',
          'leader',
          'follower',
          'resigned',
        ),
        fc.nat(5),
        fc.nat(5),
        fc.boolean(),
        (role, voted, candidate, upToDate) => {
          fc.pre(voted !== candidate);
          expect(canGrantVote(view(role, voted), candidate, upToDate, false)).toBe(false);
        },
      ),
    );
  });
});

describe('high watermark', () => {
  it('is the offset at index voters/2 of the end offsets sorted descending', () => {
    expect(majorityEndOffset([10, 7, 3])).toBe(7);
    expect(majorityEndOffset([10, 7, 3, 1])).toBe(3);
    expect(majorityEndOffset([10, undefined, 3])).toBe(3);
    expect(majorityEndOffset([10, undefined, undefined])).toBeUndefined();
    expect(majorityEndOffset([4])).toBe(4);
  });

  it('is the largest offset a majority of voters has reached', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.nat(100), { nil: undefined }), { minLength: 1, maxLength: 7 }),
        (ends) => {
          const need = majority(ends.length);
          const hw = majorityEndOffset(ends);
          const reaching = (o: number) => ends.filter((e) => e !== undefined && e >= o).length;
          if (hw === undefined) {
            expect(ends.filter((e) => e !== undefined).length).toBeLessThan(need);
            return;
          }
          expect(reaching(hw)).toBeGreaterThanOrEqual(need);
          expect(reaching(hw + 1)).toBeLessThan(need);
        },
      ),
    );
  });

  it('moves only above the epoch start offset and above the current high watermark', () => {
    expect(nextHighWatermark([10, 10, 0], 10, undefined)).toBeUndefined();
    expect(nextHighWatermark([11, 11, 0], 10, undefined)).toBe(11);
    expect(nextHighWatermark([11, 11, 0], 10, 11)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.nat(100), { nil: undefined }), { minLength: 1, maxLength: 7 }),
        fc.nat(100),
        fc.option(fc.nat(100), { nil: undefined }),
        (ends, start, current) => {
          const next = nextHighWatermark(ends, start, current);
          if (next === undefined) return;
          expect(next).toBeGreaterThan(start);
          if (current !== undefined) expect(next).toBeGreaterThan(current);
          expect(next).toBe(majorityEndOffset(ends));
        },
      ),
    );
  });
});

/** A log as its epoch cache and end offset, built from (epoch, length) runs with increasing epochs. */

describe('divergence', () => {
  const leader = logOf([
    { epoch: 1, length: 5 },
    { epoch: 3, length: 5 },
  ]);

  it('endOffsetForEpoch gives the end of the largest epoch at or below the one asked', () => {
    expect(endOffsetForEpoch(leader.epochs, leader.end, 1)).toEqual({ offset: 5, epoch: 1 });
    expect(endOffsetForEpoch(leader.epochs, leader.end, 2)).toEqual({ offset: 5, epoch: 1 });
    expect(endOffsetForEpoch(leader.epochs, leader.end, 3)).toEqual({ offset: 10, epoch: 3 });
    expect(endOffsetForEpoch(leader.epochs, leader.end, 0)).toEqual({ offset: 0, epoch: 0 });
  });

  it('a follower with entries of an epoch the leader never had is told where to truncate', () => {
    // Follower: epoch 1 (5 entries) then epoch 2 (3 entries, never committed).
    const follower = logOf([
      { epoch: 1, length: 5 },
      { epoch: 2, length: 3 },
    ]);
    const v = validateOffsetAndEpoch(leader.epochs, leader.end, follower.end, 2);
    expect(v).toEqual({ kind: 'DIVERGING', diverging: { offset: 5, epoch: 1 } });
    if (v.kind !== 'DIVERGING') return;
    expect(truncationOffset(follower.epochs, follower.end, v.diverging)).toBe(5);
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 5, 1)).toEqual({ kind: 'VALID' });
    // Fetching past the leader's end in its own epoch diverges too.
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 12, 3).kind).toBe('DIVERGING');
  });

  const runs = fc
    .array(fc.record({ step: fc.integer({ min: 1, max: 3 }), length: fc.nat(6) }), { maxLength: 5 })
    .map((rs) => {
      let epoch = 0;
      return rs.map((r) => ({ epoch: (epoch += r.step), length: r.length }));
    });

  it('repeated fetch and truncation converge on a prefix of the leader log (property)', () => {
    fc.assert(
      fc.property(runs, runs, fc.nat(4), (shared, tail, leaderExtra) => {
        // Both logs share a prefix; the follower has its own tail of epochs the leader never saw, and the leader
        // wrote later epochs of its own.
        const top = shared.length > 0 ? shared[shared.length - 1]!.epoch : 0;
        const followerRuns = [...shared, ...tail.map((r) => ({ epoch: r.epoch + top, length: r.length }))];
        const leaderTop = Math.max(top, ...followerRuns.map((r) => r.epoch)) + 1;
        const leaderRuns = [...shared, { epoch: leaderTop + leaderExtra, length: 3 }];
        const leaderLog = logOf(leaderRuns);
        let follower = logOf(followerRuns);
        for (let round = 0; round < 20; round++) {
          const lastEpoch =
            follower.epochs.length > 0 ? follower.epochs[follower.epochs.length - 1]!.epoch : 0;
          const v = validateOffsetAndEpoch(leaderLog.epochs, leaderLog.end, follower.end, lastEpoch);
          if (v.kind === 'VALID') {
            // Every remaining follower entry has the leader's epoch at that offset.
            for (let o = 0; o < follower.end; o++) expect(epochAt(follower, o)).toBe(epochAt(leaderLog, o));
            expect(follower.end).toBeLessThanOrEqual(leaderLog.end);
            return;
          }
          const to = truncationOffset(follower.epochs, follower.end, v.diverging);
          expect(to).toBeLessThan(follower.end);
          follower = {
            epochs: follower.epochs.filter((e) => e.startOffset < to),
            end: to,
          };
        }
        throw new Error('did not converge in 20 rounds');
      }),
    );
  });
});

describe('backoffs and timeouts', () => {
  it('ranks successors by descending fetch offset, unknown last', () => {
    expect(
      successorsByDescendingFetchOffset(
        [
          { id: 1, endOffset: 5 },
          { id: 2, endOffset: undefined },
          { id: 3, endOffset: 9 },
          { id: 4, endOffset: 5 },
        ],
        1,
      ),
    ).toEqual([3, 4, 2]);
  });

  it('the first successor starts at once, the others back off exponentially up to the max', () => {
    expect(strictExponentialElectionBackoffMs(0, 4, 1000)).toBe(0);
    expect(strictExponentialElectionBackoffMs(1, 4, 1000)).toBe(125);
    expect(strictExponentialElectionBackoffMs(2, 4, 1000)).toBe(250);
    expect(strictExponentialElectionBackoffMs(3, 4, 1000)).toBe(500);
    expect(strictExponentialElectionBackoffMs(4, 4, 1000)).toBe(1000);
    expect(strictExponentialElectionBackoffMs(-1, 4, 1000)).toBe(1000);
  });

  it('candidate backoff is 100 ms times a random below 2^retries, capped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 0.999 }), (retries, u) => {
        let bound = 0;
        const ms = binaryExponentialElectionBackoffMs(retries, 1000, (b) => {
          bound = b;
          return Math.floor(u * b);
        });
        expect(bound).toBe(2 << Math.min(20, retries - 1));
        expect(ms).toBe(Math.min(1000, 100 * Math.floor(u * bound)));
      }),
    );
    expect(() => binaryExponentialElectionBackoffMs(0, 1000, () => 0)).toThrow(RangeError);
  });

  it('election timeouts are drawn from [T, 2T)', () => {
    expect(randomElectionTimeoutMs(1000, () => 0)).toBe(1000);
    expect(randomElectionTimeoutMs(1000, (b) => b - 1)).toBe(1999);
  });
});
