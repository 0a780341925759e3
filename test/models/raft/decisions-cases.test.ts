// The Raft decisions at their edges, each case one a wrong rule would get wrong: the epoch check of a Fetch
// position (MockLog.validateOffsetAndEpoch), the truncation offset for each kind of divergence
// (ReplicatedLog.truncateToEndOffset, the epoch-0 case included), a prospective voter's standard vote
// (EpochState.canGrantVote), the high-watermark guards, successor order and the backoff bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  binaryExponentialElectionBackoffMs,
  canGrantVote,
  type EpochStart,
  endOffsetForEpoch,
  followerHighWatermark,
  nextHighWatermark,
  randomElectionTimeoutMs,
  strictExponentialElectionBackoffMs,
  successorsByDescendingFetchOffset,
  truncationOffset,
  validateOffsetAndEpoch,
} from '../../../models/raft/index.ts';
import { epochAt, logOf } from './epoch-logs.ts';

const lastEpoch = (log: { epochs: EpochStart[] }): number =>
  log.epochs.length > 0 ? log.epochs[log.epochs.length - 1]!.epoch : 0;

/** Fetch, truncate, copy: the follower loop against a fixed leader log, until the follower's position is valid. */
function converge(
  leader: { epochs: EpochStart[]; end: number },
  start: { epochs: EpochStart[]; end: number },
): { epochs: EpochStart[]; end: number } {
  let follower = start;
  for (let round = 0; round < 20; round++) {
    const v = validateOffsetAndEpoch(leader.epochs, leader.end, follower.end, lastEpoch(follower));
    if (v.kind === 'VALID') return follower;
    const to = truncationOffset(follower.epochs, follower.end, v.diverging);
    expect(to).toBeLessThan(follower.end);
    follower = { epochs: follower.epochs.filter((e) => e.startOffset < to), end: to };
  }
  throw new Error('did not converge in 20 rounds');
}

describe('a Fetch position against the leader log', () => {
  // Leader: epoch 1 at 0..4, epoch 3 at 5..9.
  const leader = logOf([
    { epoch: 1, length: 5 },
    { epoch: 3, length: 5 },
  ]);

  it('diverges when the fetcher’s last epoch is one the leader never had, even below where it ends', () => {
    // Follower: epoch 1 at 0..2, epoch 2 at 3..4. Its epoch-2 entries 3..4 are not the leader's epoch-1 ones.
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 5, 2)).toEqual({
      kind: 'DIVERGING',
      diverging: { offset: 5, epoch: 1 },
    });
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 3, 2)).toEqual({
      kind: 'DIVERGING',
      diverging: { offset: 5, epoch: 1 },
    });
  });

  it('offset 0 is always valid, whatever epoch the fetcher names', () => {
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 0, 5)).toEqual({ kind: 'VALID' });
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 0, 2)).toEqual({ kind: 'VALID' });
  });

  it('is valid inside the leader’s own epochs', () => {
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 4, 1)).toEqual({ kind: 'VALID' });
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 10, 3)).toEqual({ kind: 'VALID' });
    expect(validateOffsetAndEpoch(leader.epochs, leader.end, 6, 1).kind).toBe('DIVERGING');
  });

  it('an empty log answers its end in epoch 0', () => {
    expect(endOffsetForEpoch([], 0, 3)).toEqual({ offset: 0, epoch: 0 });
    expect(endOffsetForEpoch([], 7, 0)).toEqual({ offset: 7, epoch: 0 });
  });
});

describe('where a follower truncates', () => {
  it('to the leader’s end of a shared epoch when the follower has more of it', () => {
    // Follower: epoch 1 at 0..7, epoch 2 at 8..9; the leader's epoch 1 ends at 5.
    const follower = logOf([
      { epoch: 1, length: 8 },
      { epoch: 2, length: 2 },
    ]);
    expect(truncationOffset(follower.epochs, follower.end, { offset: 5, epoch: 1 })).toBe(5);
  });

  it('to its own end of a shared epoch when the leader has more of it', () => {
    // Follower: epoch 1 at 0..2, epoch 2 at 3..5; the leader's epoch 1 runs to 5.
    const follower = logOf([
      { epoch: 1, length: 3 },
      { epoch: 2, length: 3 },
    ]);
    expect(truncationOffset(follower.epochs, follower.end, { offset: 5, epoch: 1 })).toBe(3);
  });

  it('to its own end of the largest epoch below, when it never had the leader’s epoch', () => {
    // Follower: epoch 1 at 0..5, epoch 4 at 6..7; the leader answers epoch 2 ending at 3.
    const follower = logOf([
      { epoch: 1, length: 6 },
      { epoch: 4, length: 2 },
    ]);
    expect(truncationOffset(follower.epochs, follower.end, { offset: 3, epoch: 2 })).toBe(6);
  });

  it('epoch 0 (the leader has no epoch that old): to the offset the leader names, capped by its own end', () => {
    const follower = logOf([{ epoch: 1, length: 5 }]);
    expect(truncationOffset(follower.epochs, follower.end, { offset: 3, epoch: 0 })).toBe(3);
    expect(truncationOffset(follower.epochs, follower.end, { offset: 9, epoch: 0 })).toBe(5);
  });

  const runs = fc
    .array(fc.record({ step: fc.integer({ min: 1, max: 3 }), length: fc.integer({ min: 1, max: 6 }) }), {
      minLength: 1,
      maxLength: 5,
    })
    .map((rs) => {
      let epoch = 0;
      return rs.map((r) => ({ epoch: (epoch += r.step), length: r.length }));
    });

  it('converges on a prefix of the leader when the leader has extra entries in the last shared epoch (property)', () => {
    fc.assert(
      fc.property(runs, runs, fc.integer({ min: 1, max: 4 }), (shared, tail, extra) => {
        const top = shared[shared.length - 1]!.epoch;
        const followerLog = logOf([
          ...shared,
          ...tail.map((r) => ({ epoch: r.epoch + top, length: r.length })),
        ]);
        // The leader went on writing in the last shared epoch, then wrote in a later epoch of its own.
        const last = shared[shared.length - 1]!;
        const leaderLog = logOf([
          ...shared.slice(0, -1),
          { epoch: last.epoch, length: last.length + extra },
          { epoch: lastEpoch(followerLog) + 1, length: 2 },
        ]);
        const done = converge(leaderLog, followerLog);
        // Exactly the shared prefix is kept: nothing of the follower's own epochs, nothing more of the shared one.
        const sharedEnd = shared.reduce((n, r) => n + r.length, 0);
        expect(done.end).toBe(sharedEnd);
        for (let o = 0; o < done.end; o++) expect(epochAt(done, o)).toBe(epochAt(leaderLog, o));
      }),
    );
  });
});

describe('votes', () => {
  it('a prospective voter that has not voted grants a standard vote to an up-to-date candidate', () => {
    const prospective = { role: 'prospective' as const, votedId: undefined, hasFetchedFromLeader: false };
    expect(canGrantVote(prospective, 2, true, false)).toBe(true);
    expect(canGrantVote(prospective, 2, false, false)).toBe(false);
    expect(canGrantVote({ ...prospective, votedId: 3 }, 2, true, false)).toBe(false);
    expect(canGrantVote({ ...prospective, votedId: 2 }, 2, false, false)).toBe(true);
  });
});

describe('high watermarks', () => {
  it('the leader’s stays put until a majority passes the epoch start, and never goes back', () => {
    expect(nextHighWatermark([5, 5, 5], 5, undefined)).toBeUndefined();
    expect(nextHighWatermark([6, 5, 5], 5, undefined)).toBeUndefined();
    expect(nextHighWatermark([6, 6, 5], 5, undefined)).toBe(6);
    expect(nextHighWatermark([9, 9, 1], 5, 9)).toBeUndefined();
    expect(nextHighWatermark([9, 9, 1], 5, 10)).toBeUndefined();
    expect(nextHighWatermark([9, 9, 1], 5, 8)).toBe(9);
    expect(nextHighWatermark([undefined, undefined, 9], 0, undefined)).toBeUndefined();
  });

  it('a follower’s is the leader’s, capped by its own log end', () => {
    expect(followerHighWatermark(10, 7)).toBe(7);
    expect(followerHighWatermark(4, 7)).toBe(4);
  });
});

describe('successors and backoffs', () => {
  it('successors: descending end offset, an unknown one after a known 0, ties by ascending id', () => {
    expect(
      successorsByDescendingFetchOffset(
        [
          { id: 5, endOffset: undefined },
          { id: 4, endOffset: 0 },
          { id: 3, endOffset: 7 },
          { id: 2, endOffset: 7 },
          { id: 1, endOffset: 9 },
        ],
        1,
      ),
    ).toEqual([2, 3, 4, 5]);
    expect(
      successorsByDescendingFetchOffset(
        [
          { id: 2, endOffset: undefined },
          { id: 1, endOffset: undefined },
          { id: 3, endOffset: 0 },
        ],
        9,
      ),
    ).toEqual([3, 1, 2]);
    // Whichever side of the comparison the unknown one is on.
    for (const voters of [
      [
        { id: 1, endOffset: undefined },
        { id: 2, endOffset: 0 },
      ],
      [
        { id: 2, endOffset: 0 },
        { id: 1, endOffset: undefined },
      ],
    ])
      expect(successorsByDescendingFetchOffset(voters, 9)).toEqual([2, 1]);
  });

  it('a position outside the successor list backs off the whole maximum', () => {
    expect(strictExponentialElectionBackoffMs(-1, 3, 1000)).toBe(1000);
    expect(strictExponentialElectionBackoffMs(3, 3, 1000)).toBe(1000);
    // Not the shifted value, which loses the low bits of a maximum that is not a multiple of 2^(total-1).
    expect(strictExponentialElectionBackoffMs(3, 3, 1001)).toBe(1001);
    expect(strictExponentialElectionBackoffMs(4, 3, 1001)).toBe(1001);
    expect(strictExponentialElectionBackoffMs(2, 3, 1000)).toBe(500);
    expect(strictExponentialElectionBackoffMs(1, 3, 1000)).toBe(250);
  });

  it('refuses a retry count below 1, and a zero election timeout stays zero', () => {
    expect(() => binaryExponentialElectionBackoffMs(0, 1000, () => 1)).toThrow('retries must be > 0, not 0');
    expect(randomElectionTimeoutMs(0, () => 99)).toBe(0);
    expect(randomElectionTimeoutMs(100, (bound) => bound - 1)).toBe(199);
  });
});
