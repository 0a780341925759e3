/**
 * The Raft decisions as pure functions: log comparison, vote granting, the high-watermark rule, epoch
 * validation of a Fetch and the truncation it asks for, successor ranking and election backoffs. The role
 * machine and the client call these; tests check them on their own and with fast-check.
 *
 * Facts: LeaderState.maybeUpdateHighWatermark (the HW rule), EpochState.canGrantVote and its implementations (votes,
 * pre-vote), KafkaRaftClient (divergence, election backoffs), KIP-595 and KIP-996; MockLog's `endOffsetForEpoch`,
 * `validateOffsetAndEpoch` and ReplicatedLog's `truncateToEndOffset` for the exact offset arithmetic.
 */

import type { OffsetAndEpoch } from '../protocol/index.ts';

export type { OffsetAndEpoch };

/** An epoch's first offset in a log (Kafka's leader-epoch cache entry). */
export interface EpochStart {
  readonly epoch: number;
  readonly startOffset: number;
}

export type QuorumRole = 'unattached' | 'prospective' | 'candidate' | 'leader' | 'follower' | 'resigned';

/** Kafka's OffsetAndEpoch.compareTo: the epoch first, then the offset. */
export function compareOffsetAndEpoch(a: OffsetAndEpoch, b: OffsetAndEpoch): number {
  if (a.epoch !== b.epoch) return a.epoch < b.epoch ? -1 : 1;
  if (a.offset !== b.offset) return a.offset < b.offset ? -1 : 1;
  return 0;
}

/** A candidate's log is up to date when its (last epoch, end offset) is at least the voter's. */
export function isLogUpToDate(candidate: OffsetAndEpoch, local: OffsetAndEpoch): boolean {
  return compareOffsetAndEpoch(candidate, local) >= 0;
}

export function majority(voters: number): number {
  return Math.floor(voters / 2) + 1;
}

/** What a voter knows when it decides on a Vote request (after moving to a larger request epoch). */
export interface VoterView {
  readonly role: QuorumRole;
  readonly votedId: number | undefined;
  /** Follower only: it has fetched successfully from its leader since it started following. */
  readonly hasFetchedFromLeader: boolean;
}

/**
 * Kafka's `EpochState.canGrantVote` per role. A standard vote is granted only by an Unattached (or a not yet
 * voted Prospective) voter that has not voted for someone else, when the candidate's log is up to date; a vote
 * already given to the same candidate is given again. A pre-vote is granted by every role but the Leader when
 * the log is up to date, except by a Follower that has heard from its leader (KIP-996).
 */
export function canGrantVote(
  view: VoterView,
  candidateId: number,
  logUpToDate: boolean,
  preVote: boolean,
): boolean {
  if (preVote) {
    switch (view.role) {
      case 'leader':
        return false;
      case 'follower':
        return !view.hasFetchedFromLeader && logUpToDate;
      default:
        return logUpToDate;
    }
  }
  if (view.role !== 'unattached' && view.role !== 'prospective') return false;
  if (view.votedId !== undefined) return view.votedId === candidateId;
  return logUpToDate;
}

/**
 * The offset a majority of voters has reached: voters' end offsets sorted descending, the entry at index voters/2
 * (LeaderState.maybeUpdateHighWatermark). An unknown end offset sorts last; undefined when the entry itself is
 * unknown.
 */
export function majorityEndOffset(voterEndOffsets: readonly (number | undefined)[]): number | undefined {
  // Runs on every Fetch the leader serves: an insertion sort into a scratch array, no allocation.
  const known = scratch;
  let n = 0;
  for (const o of voterEndOffsets) {
    if (o === undefined) continue;
    let i = n++;
    while (i > 0 && known[i - 1]! < o) {
      known[i] = known[i - 1]!;
      i--;
    }
    known[i] = o;
  }
  const index = Math.floor(voterEndOffsets.length / 2);
  return index < n ? known[index] : undefined;
}

const scratch: number[] = [];

/**
 * The leader's next high watermark, or undefined when it does not move: the majority end offset, accepted only
 * above the epoch start offset (the epoch's LeaderChange record must be committed, KAFKA-12619) and above the
 * current high watermark.
 */
export function nextHighWatermark(
  voterEndOffsets: readonly (number | undefined)[],
  epochStartOffset: number,
  current: number | undefined,
): number | undefined {
  const candidate = majorityEndOffset(voterEndOffsets);
  if (candidate === undefined || candidate <= epochStartOffset) return undefined;
  if (current !== undefined && candidate <= current) return undefined;
  return candidate;
}

/** A follower's high watermark: the leader's, capped by its own end offset. */
export function followerHighWatermark(logEndOffset: number, leaderHighWatermark: number): number {
  return Math.min(logEndOffset, leaderHighWatermark);
}

/**
 * The end of the largest epoch <= `epoch` in a log, as (end offset, that epoch); the log end for its last
 * epoch; (first start offset, 0) when every epoch in the log is larger. The log starts at offset 0.
 */
export function endOffsetForEpoch(
  epochs: readonly EpochStart[],
  logEndOffset: number,
  epoch: number,
): OffsetAndEpoch {
  let lowerEpoch = 0;
  for (const e of epochs) {
    if (e.epoch > epoch) return { offset: e.startOffset, epoch: lowerEpoch };
    lowerEpoch = e.epoch;
  }
  return { offset: logEndOffset, epoch: epochs.length > 0 ? epochs[epochs.length - 1]!.epoch : 0 };
}

export type OffsetValidation =
  | { readonly kind: 'VALID' }
  | { readonly kind: 'DIVERGING'; readonly diverging: OffsetAndEpoch };

const VALID: OffsetValidation = Object.freeze({ kind: 'VALID' });

/**
 * The leader's check of a Fetch position: valid when the fetcher's last fetched epoch ends, in the leader's
 * log, at or after the fetch offset; otherwise the leader answers with where that epoch diverges.
 */
export function validateOffsetAndEpoch(
  epochs: readonly EpochStart[],
  logEndOffset: number,
  fetchOffset: number,
  lastFetchedEpoch: number,
): OffsetValidation {
  if (fetchOffset === 0) return VALID;
  const end = endOffsetForEpoch(epochs, logEndOffset, lastFetchedEpoch);
  if (end.epoch !== lastFetchedEpoch || end.offset < fetchOffset)
    return { kind: 'DIVERGING', diverging: end };
  return VALID;
}

/** Where a follower truncates on a diverging-epoch answer (ReplicatedLog.truncateToEndOffset). */
export function truncationOffset(
  epochs: readonly EpochStart[],
  logEndOffset: number,
  diverging: OffsetAndEpoch,
): number {
  if (diverging.epoch === 0) return Math.min(diverging.offset, logEndOffset);
  const local = endOffsetForEpoch(epochs, logEndOffset, diverging.epoch);
  return local.epoch === diverging.epoch ? Math.min(local.offset, diverging.offset) : local.offset;
}

/** The resigning leader's successors: the other voters by descending fetch offset (unknown last), then id. */
export function successorsByDescendingFetchOffset(
  voters: readonly { readonly id: number; readonly endOffset: number | undefined }[],
  localId: number,
): number[] {
  return voters
    .filter((v) => v.id !== localId)
    .sort((a, b) => (b.endOffset ?? -1) - (a.endOffset ?? -1) || a.id - b.id)
    .map((v) => v.id);
}

/**
 * The delay before a successor at `position` of `total` starts an election after EndQuorumEpoch: 0 for the
 * first, then `(max >> (total - 1)) << (position - 1)`, capped at max; max when not a successor at all.
 */
export function strictExponentialElectionBackoffMs(position: number, total: number, maxMs: number): number {
  if (position === 0) return 0;
  if (position < 0 || position >= total) return maxMs;
  return Math.min(maxMs, (maxMs >> (total - 1)) << (position - 1));
}

/** Candidate backoff after a lost or timed-out election: min(100 * rand(2 << min(20, retries - 1)), max). */
export function binaryExponentialElectionBackoffMs(
  retries: number,
  maxMs: number,
  nextInt: (bound: number) => number,
): number {
  if (!(retries > 0)) throw new RangeError(`retries must be > 0, not ${retries}`);
  return Math.min(100 * nextInt(2 << Math.min(20, retries - 1)), maxMs);
}

/** An election timeout drawn from [T, 2T), as Kafka's `randomElectionTimeoutMs`. */
export function randomElectionTimeoutMs(timeoutMs: number, nextInt: (bound: number) => number): number {
  return timeoutMs === 0 ? 0 : timeoutMs + nextInt(timeoutMs);
}
