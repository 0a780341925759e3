// Comparing two replicas' logs batch by batch, incrementally: how far they were found equal is remembered with an
// anchor (the last equal batch of each log and where it was), so that the next comparison starts there, and a
// truncation that rewrote the compared part shows as an anchor that is no longer in its place.
import type { RecordBatch } from '../storage/index.ts';
import type { LogView } from './replica-view.ts';

/** Index of the batch containing `offset` (the batch count when none does). */
export function indexAt(batches: readonly RecordBatch[], offset: number): number {
  let lo = 0;
  let hi = batches.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const b = batches[mid]!;
    if (b.baseOffset + b.count - 1 < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Same batch: the same object (replicas share them), or equal in everything that identifies its records. */
export function sameBatch(a: RecordBatch, b: RecordBatch): boolean {
  return (
    a === b ||
    (a.baseOffset === b.baseOffset &&
      a.count === b.count &&
      a.bytes === b.bytes &&
      a.origin === b.origin &&
      a.producerId === b.producerId &&
      a.producerEpoch === b.producerEpoch &&
      a.baseSequence === b.baseSequence &&
      a.partitionLeaderEpoch === b.partitionLeaderEpoch &&
      a.runs[0]?.index === b.runs[0]?.index)
  );
}

export const describeBatch = (b: RecordBatch | undefined): string =>
  b
    ? `[${b.baseOffset}..${b.baseOffset + b.count - 1}] (leader epoch ${b.partitionLeaderEpoch}, from ${b.origin || 'unknown'})`
    : 'no batch';

/** A batch remembered with where it was: finding it again is one comparison unless the log's front moved. */
export interface Anchor {
  batch: RecordBatch;
  index: number;
}

/** Whether the anchor's batch is still in `log` at its offset (the log was not rewritten past it). */
export function anchored(log: LogView, anchor: Anchor): boolean {
  const batches = log.allBatches();
  if (batches[anchor.index] === anchor.batch) return true;
  if (anchor.batch.baseOffset < log.logStartOffset) return true; // deleted by retention, not rewritten
  const i = indexAt(batches, anchor.batch.baseOffset);
  if (batches[i] !== anchor.batch) return false;
  anchor.index = i;
  return true;
}

/** How far a member's log was verified against a leader's. */
export interface Agreement {
  readonly memberLog: LogView;
  /** Every batch below this offset (and at or above both log starts) was found equal. */
  verifiedTo: number;
  leaderAnchor: Anchor | undefined;
  memberAnchor: Anchor | undefined;
  /** The callers' truncation counts of the two logs when verified (a new truncation restarts the verification). */
  leaderTruncations: number;
  memberTruncations: number;
}

export const newAgreement = (memberLog: LogView): Agreement => ({
  memberLog,
  verifiedTo: 0,
  leaderAnchor: undefined,
  memberAnchor: undefined,
  leaderTruncations: 0,
  memberTruncations: 0,
});

/**
 * Verifies the member's log against the leader's, from where it was last verified up to `highWatermark`: the
 * member must have every batch the leader has below it. `leaderTruncations` and `memberTruncations` count the
 * truncations the caller saw of each log: when either moved, everything is verified again. Returns what differs,
 * or undefined.
 */
export function verifyAgreement(
  leader: LogView,
  st: Agreement,
  highWatermark: number,
  leaderTruncations = 0,
  memberTruncations = 0,
): string | undefined {
  const member = st.memberLog;
  const start = Math.max(leader.logStartOffset, member.logStartOffset);
  if (
    st.leaderTruncations !== leaderTruncations ||
    st.memberTruncations !== memberTruncations ||
    st.verifiedTo < start ||
    (st.leaderAnchor && !anchored(leader, st.leaderAnchor)) ||
    (st.memberAnchor && !anchored(member, st.memberAnchor))
  ) {
    st.verifiedTo = start;
    st.leaderAnchor = undefined;
    st.memberAnchor = undefined;
    st.leaderTruncations = leaderTruncations;
    st.memberTruncations = memberTruncations;
  }
  if (highWatermark <= st.verifiedTo) return undefined;
  if (member.logEndOffset < highWatermark) return `its log ends at ${member.logEndOffset}`;
  const lb = leader.allBatches();
  const mb = member.allBatches();
  let i = indexAt(lb, st.verifiedTo);
  let j = indexAt(mb, st.verifiedTo);
  let last = -1;
  let problem: string | undefined;
  for (; i < lb.length; i++, j++) {
    const a = lb[i]!;
    if (a.baseOffset >= highWatermark) break;
    const b = mb[j];
    if (!b || !sameBatch(a, b)) {
      problem = `at offset ${a.baseOffset} the leader has ${describeBatch(a)}, the member ${describeBatch(b)}`;
      break;
    }
    st.verifiedTo = a.baseOffset + a.count;
    last = i;
  }
  if (last >= 0) {
    const lastMember = j - (i - last);
    st.leaderAnchor = { batch: lb[last]!, index: last };
    st.memberAnchor = { batch: mb[lastMember]!, index: lastMember };
  }
  return problem;
}

/** A batch whose acks=all produce a producer saw acknowledged. */
export interface AcknowledgedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly baseOffset: number;
  readonly count: number;
  /** The producing client (the batch's `origin`) and the index of its first record. */
  readonly origin: string;
  readonly firstIndex: number;
}

/** How far one member's log was checked against a partition's acknowledged batches. */
export interface AcknowledgedProgress {
  readonly id: number;
  /** The acknowledged batches found in the log so far (the first `verified`). */
  verified: number;
  /** The highest of them, where it was found. */
  anchor: Anchor | undefined;
}

/**
 * Verifies that the member's log has the acknowledged batches from `progress.verified` on (those below its log
 * start were deleted by retention); returns what is missing, or undefined and moves `progress` to the end.
 */
export function verifyAcknowledged(
  log: LogView,
  acked: readonly AcknowledgedBatch[],
  progress: AcknowledgedProgress,
): string | undefined {
  const batches = log.allBatches();
  for (let k = progress.verified; k < acked.length; k++) {
    const a = acked[k]!;
    if (a.baseOffset < log.logStartOffset) continue; // deleted by retention
    const j = indexAt(batches, a.baseOffset);
    const b = batches[j];
    if (
      !b ||
      b.baseOffset !== a.baseOffset ||
      b.count !== a.count ||
      b.origin !== a.origin ||
      b.runs[0]?.index !== a.firstIndex
    )
      return `acknowledged batch [${a.baseOffset}..${a.baseOffset + a.count - 1}] of ${a.origin} (its records ${a.firstIndex}..${a.firstIndex + a.count - 1}) is not in the log of ISR member ${progress.id} (log end ${log.logEndOffset}; at that offset: ${describeBatch(b)})`;
    if (!progress.anchor || a.baseOffset > progress.anchor.batch.baseOffset)
      progress.anchor = { batch: b, index: j };
  }
  progress.verified = acked.length;
  return undefined;
}

/**
 * Forgets the acknowledged batches that retention deleted from the log of every member (wholly below the lowest
 * log start among them): nothing is left to check them against, and a long run keeps only what its logs hold. In
 * bulk, once 1,024 batches or half the list can go, so that the cost stays linear; the members' progress follows.
 */
export function forgetDeletedAcknowledged(
  acked: AcknowledgedBatch[],
  members: readonly (AcknowledgedProgress & { readonly log: LogView | undefined })[],
): void {
  if (members.length === 0) return;
  let start = Number.POSITIVE_INFINITY;
  for (const m of members) start = Math.min(start, m.log?.logStartOffset ?? 0);
  let n = 0;
  while (n < acked.length && acked[n]!.baseOffset + acked[n]!.count <= start) n++;
  if (n === 0 || (n < 1024 && n * 2 < acked.length)) return;
  acked.splice(0, n);
  for (const m of members) m.verified = Math.max(0, m.verified - n);
}
