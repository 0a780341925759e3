// A partition's log at batch level: offsets, high watermark, the leader-epoch cache used to find where a
// follower's log diverges, the idempotent-producer state that lets a leader recognise a retried batch, and the
// segments retention deletes whole (Kafka's LocalLog): a segment rolls when the next batch would take it past
// segment.bytes or its first batch is older than segment.ms (UnifiedLog.maybeRoll; segment.jitter.ms is not drawn),
// and the log start offset moves to the first segment left.
import type { Fingerprint } from '../sim/index.ts';
import { lastOffsetOf, type ProducerBatchData, type RecordBatch } from './batch.ts';

const NONE: readonly RecordBatch[] = Object.freeze([]);

/** How many recent batches per producer a leader remembers to detect duplicates (Kafka keeps 5). */
const PRODUCER_WINDOW = 5;

interface ProducerState {
  epoch: number;
  lastSequence: number;
  recent: { firstSequence: number; lastSequence: number; baseOffset: number }[];
}

export type AppendOutcome =
  | { kind: 'appended'; batch: RecordBatch }
  /** A retry of a batch already in the log: where that batch is (its acks=all answer still waits for the HW). */
  | { kind: 'duplicate'; baseOffset: number; lastOffset: number }
  | { kind: 'out-of-order'; expectedSequence: number }
  /** A batch of an epoch older than the producer's latest here: fenced (Kafka's INVALID_PRODUCER_EPOCH). */
  | { kind: 'invalid-epoch'; currentEpoch: number };

/** One segment's bookkeeping: its batches are the log's from `baseOffset` to the next segment's. */
export interface Segment {
  readonly baseOffset: number;
  bytes: number;
  batches: number;
  /** The first batch's append time: segment.ms counts from it (LogSegment's rolling-based timestamp). */
  firstTimestamp: number;
  /** The largest append time in it: retention.ms counts from it (LogSegment.largestTimestamp). */
  largestTimestamp: number;
}

const emptySegment = (baseOffset: number): Segment => ({
  baseOffset,
  bytes: 0,
  batches: 0,
  firstTimestamp: -1,
  largestTimestamp: -1,
});

/** Kafka's defaults for segment.bytes (1 GiB) and segment.ms (7 days). */
export const DEFAULT_SEGMENT_BYTES = 1_073_741_824;
export const DEFAULT_SEGMENT_MS = 604_800_000;

/** Hears of every change of a log's offsets (an append, a truncation, a new high watermark or log start). */
export interface LogWatcher {
  logChanged(log: PartitionLog): void;
}

export class PartitionLog {
  private batches: RecordBatch[] = [];
  /** Oldest first; the last is the active segment. Never empty. */
  private segs: Segment[] = [emptySegment(0)];
  /** The topic's segment.bytes and segment.ms: the broker keeps them as the topic's configs say. */
  segmentBytes = DEFAULT_SEGMENT_BYTES;
  segmentMs = DEFAULT_SEGMENT_MS;
  #logStartOffset = 0;
  logEndOffset = 0;
  #highWatermark = 0;
  sizeBytes = 0;
  /** A checker that wants to hear of changes (one at a time; the data-plane invariants), else undefined. */
  watcher: LogWatcher | undefined = undefined;
  /** What that checker keeps for this log (its own; the log never reads it). */
  watcherState: unknown = undefined;
  /** (epoch, start offset) pairs, ascending: the leader-epoch checkpoint. */
  private epochs: { epoch: number; startOffset: number }[] = [];
  /** By producer id; made at the first idempotent batch (most logs of a large topic never see one). */
  private producers: Map<number, ProducerState> | undefined = undefined;
  private fingerprint: Fingerprint | undefined;
  private replicaTag = '';

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get highWatermark(): number {
    return this.#highWatermark;
  }

  /** The first offset a reader may fetch: moved by retention (and, on a follower, by the leader's). */
  get logStartOffset(): number {
    return this.#logStartOffset;
  }

  set highWatermark(offset: number) {
    this.#highWatermark = offset;
    this.watcher?.logChanged(this);
  }

  /**
   * Mixes every later change of this log (appends, truncations) into the run's fingerprint, as `replica`'s
   * (the broker holding it, or the shared store). Calling it again replaces the target.
   */
  reportTo(fingerprint: Fingerprint, replica: string): void {
    this.fingerprint = fingerprint;
    this.replicaTag = replica;
  }

  get batchCount(): number {
    return this.batches.length;
  }

  /** The latest leader epoch in the log, -1 when empty. */
  get latestEpoch(): number {
    return this.epochs.length ? this.epochs[this.epochs.length - 1]!.epoch : -1;
  }

  /** Checks idempotence, then appends as the leader in `leaderEpoch`, assigning offsets. */
  appendAsLeader(data: ProducerBatchData, leaderEpoch: number, now: number): AppendOutcome {
    if (data.producerId >= 0) {
      const st = this.producers?.get(data.producerId);
      // An older epoch is fenced: the leader refuses it and keeps the newer epoch's state, as
      // ProducerAppendInfo.checkProducerEpoch does for a client's append (only replication lets one through).
      if (st && data.producerEpoch < st.epoch) return { kind: 'invalid-epoch', currentEpoch: st.epoch };
      if (st && st.epoch === data.producerEpoch) {
        const dup = st.recent.find((r) => r.firstSequence === data.baseSequence);
        if (dup)
          return {
            kind: 'duplicate',
            baseOffset: dup.baseOffset,
            lastOffset: dup.baseOffset + dup.lastSequence - dup.firstSequence,
          };
        if (data.baseSequence !== st.lastSequence + 1) {
          return { kind: 'out-of-order', expectedSequence: st.lastSequence + 1 };
        }
      } else if (data.baseSequence !== 0) {
        // A new producer (or epoch) must start at sequence 0.
        return { kind: 'out-of-order', expectedSequence: 0 };
      }
    }
    // Spelled out rather than spread: this is the hottest allocation on the data path.
    const batch: RecordBatch = {
      baseOffset: this.logEndOffset,
      count: data.count,
      bytes: data.bytes,
      producerId: data.producerId,
      producerEpoch: data.producerEpoch,
      baseSequence: data.baseSequence,
      origin: data.origin,
      runs: data.runs,
      records: data.records,
      encoded: data.encoded,
      recordTimestamps: data.recordTimestamps,
      partitionLeaderEpoch: leaderEpoch,
      appendTime: now,
    };
    this.appendBatch(batch);
    return { kind: 'appended', batch };
  }

  /** Appends batches copied from the leader (a follower), keeping their offsets. */
  appendAsFollower(batches: readonly RecordBatch[]): void {
    for (const b of batches) {
      if (b.baseOffset < this.logEndOffset) continue; // already have it
      if (b.baseOffset !== this.logEndOffset) {
        throw new Error(
          `${this.topic}-${this.partition}: replicated batch at offset ${b.baseOffset} leaves a gap after log end ${this.logEndOffset}`,
        );
      }
      this.appendBatch(b);
    }
  }

  private appendBatch(b: RecordBatch): void {
    let active = this.segs[this.segs.length - 1]!;
    if (
      active.batches > 0 &&
      (active.bytes + b.bytes > this.segmentBytes || b.appendTime - active.firstTimestamp > this.segmentMs)
    ) {
      active = emptySegment(b.baseOffset);
      this.segs.push(active);
    }
    if (active.batches === 0) active.firstTimestamp = b.appendTime;
    active.bytes += b.bytes;
    active.batches++;
    if (b.appendTime > active.largestTimestamp) active.largestTimestamp = b.appendTime;
    this.batches.push(b);
    this.logEndOffset = b.baseOffset + b.count;
    this.sizeBytes += b.bytes;
    if (this.latestEpoch < b.partitionLeaderEpoch)
      this.epochs.push({ epoch: b.partitionLeaderEpoch, startOffset: b.baseOffset });
    if (b.producerId >= 0) this.trackProducer(b);
    this.watcher?.logChanged(this);
    if (this.fingerprint) this.mixBatch(this.fingerprint, b);
  }

  private mixBatch(fp: Fingerprint, b: RecordBatch): void {
    fp.text(this.replicaTag);
    fp.word(1); // an append
    fp.number(b.baseOffset);
    fp.word(b.count);
    fp.word(b.bytes);
    fp.word(b.producerId);
    fp.word(b.producerEpoch);
    fp.word(b.baseSequence);
    fp.word(b.partitionLeaderEpoch);
    fp.text(b.origin);
    const runs = b.runs;
    fp.word(runs.length);
    for (let i = 0; i < runs.length; i++) {
      fp.number(runs[i]!.index);
      fp.word(runs[i]!.count);
    }
  }

  private trackProducer(b: RecordBatch): void {
    const producers = (this.producers ??= new Map());
    let st = producers.get(b.producerId);
    if (!st || st.epoch !== b.producerEpoch) {
      st = { epoch: b.producerEpoch, lastSequence: -1, recent: [] };
      producers.set(b.producerId, st);
    }
    st.lastSequence = b.baseSequence + b.count - 1;
    st.recent.push({
      firstSequence: b.baseSequence,
      lastSequence: st.lastSequence,
      baseOffset: b.baseOffset,
    });
    if (st.recent.length > PRODUCER_WINDOW) st.recent.shift();
  }

  /** A new leader starts an epoch even before it appends (so followers can detect divergence). */
  assignEpochStart(epoch: number): void {
    if (epoch > this.latestEpoch) this.epochs.push({ epoch, startOffset: this.logEndOffset });
  }

  /**
   * KIP-101/595: the end offset of `epoch` in this log: the start offset of the first larger epoch, or the log
   * end. If the log has no such epoch, the largest epoch below it answers (with its end).
   */
  endOffsetForEpoch(epoch: number): { epoch: number; endOffset: number } {
    let found = -1;
    for (let i = this.epochs.length - 1; i >= 0; i--) {
      if (this.epochs[i]!.epoch <= epoch) {
        found = i;
        break;
      }
    }
    if (found < 0) return { epoch: -1, endOffset: -1 };
    const next = this.epochs[found + 1];
    return { epoch: this.epochs[found]!.epoch, endOffset: next ? next.startOffset : this.logEndOffset };
  }

  /**
   * The answer to OffsetsForLeaderEpoch exactly as Kafka's LeaderEpochFileCache.endOffsetFor gives it: the latest
   * epoch ends at the log end; an epoch above every known one is undefined (-1, -1); an epoch below every known one
   * ends where the first known one starts (and keeps the epoch asked); otherwise the largest known epoch at or below
   * it, ending where the next one starts.
   */
  epochEndOffsetFor(requested: number): { epoch: number; endOffset: number } {
    const undefinedEpoch = { epoch: -1, endOffset: -1 };
    if (requested < 0 || this.epochs.length === 0) return undefinedEpoch;
    if (requested === this.latestEpoch) return { epoch: requested, endOffset: this.logEndOffset };
    if (requested > this.latestEpoch) return undefinedEpoch;
    const first = this.epochs[0]!;
    if (requested < first.epoch) return { epoch: requested, endOffset: first.startOffset };
    return this.endOffsetForEpoch(requested);
  }

  /** Removes every batch at or above `offset` (a follower truncating to the leader's log). */
  truncateTo(offset: number): void {
    if (offset >= this.logEndOffset) {
      // Nothing to cut, but an epoch that starts at the log end (this replica led in it and appended nothing)
      // goes, as UnifiedLog.truncateTo always truncates the epoch cache: the leader that told it to truncate
      // does not have that epoch, and a follower keeping it would be told to truncate at every fetch.
      this.dropEpochsFrom(this.logEndOffset);
      return;
    }
    if (offset < this.segs[0]!.baseOffset) {
      // Below everything retention left: nothing in common, start over there (UnifiedLog.truncateTo).
      this.truncateFullyAndStartAt(offset);
      return;
    }
    let i = this.batches.length;
    while (i > 0 && this.batches[i - 1]!.baseOffset >= offset) i--;
    if (i > 0 && lastOffsetOf(this.batches[i - 1]!) >= offset) {
      throw new Error(`${this.topic}-${this.partition}: truncation to ${offset} would split a batch`);
    }
    const removed = this.batches.splice(i);
    for (const b of removed) this.sizeBytes -= b.bytes;
    this.logEndOffset = offset;
    if (offset < this.#logStartOffset) this.#logStartOffset = offset;
    // Segments that start above the cut go; the one holding it keeps what is left below (LocalLog.truncateTo).
    while (this.segs.length > 1 && this.segs[this.segs.length - 1]!.baseOffset > offset) this.segs.pop();
    this.recountActiveSegment();
    if (this.fingerprint) {
      this.fingerprint.text(this.replicaTag);
      this.fingerprint.word(2); // a truncation
      this.fingerprint.number(offset);
    }
    if (this.#highWatermark > offset) this.#highWatermark = offset;
    this.dropEpochsFrom(offset);
    this.rebuildProducers();
    this.watcher?.logChanged(this);
  }

  /** The active segment's counts again from its batches (after a truncation cut into it). */
  private recountActiveSegment(): void {
    const active = this.segs[this.segs.length - 1]!;
    active.bytes = 0;
    active.batches = 0;
    active.firstTimestamp = -1;
    active.largestTimestamp = -1;
    let i = this.batches.length;
    while (i > 0 && this.batches[i - 1]!.baseOffset >= active.baseOffset) i--;
    for (; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (active.batches === 0) active.firstTimestamp = b.appendTime;
      active.bytes += b.bytes;
      active.batches++;
      if (b.appendTime > active.largestTimestamp) active.largestTimestamp = b.appendTime;
    }
  }

  /**
   * Empties the log and starts it again at `offset` (UnifiedLog.truncateFullyAndStartAt): a follower whose log end
   * is below the leader's log start, or a truncation below everything retention left.
   */
  truncateFullyAndStartAt(offset: number): void {
    this.batches = [];
    this.segs = [emptySegment(offset)];
    this.sizeBytes = 0;
    this.logEndOffset = offset;
    this.#logStartOffset = offset;
    this.#highWatermark = offset;
    this.epochs = [];
    this.producers = undefined;
    if (this.fingerprint) {
      this.fingerprint.text(this.replicaTag);
      this.fingerprint.word(3); // emptied, starting again
      this.fingerprint.number(offset);
    }
    this.watcher?.logChanged(this);
  }

  /** The segments, oldest first (read-only: retention decides from them). */
  segments(): readonly Readonly<Segment>[] {
    return this.segs;
  }

  /**
   * Deletes the `count` oldest segments whole (UnifiedLog.deleteSegments). Deleting every segment rolls a new empty
   * one at the log end first, as Kafka does, so the log keeps its end offset. The log start moves to the first
   * segment left.
   */
  deleteOldestSegments(count: number): void {
    if (count <= 0) return;
    if (count >= this.segs.length) {
      count = this.segs.length;
      this.segs.push(emptySegment(this.logEndOffset));
    }
    let batches = 0;
    for (let i = 0; i < count; i++) {
      batches += this.segs[i]!.batches;
      this.sizeBytes -= this.segs[i]!.bytes;
    }
    this.batches.splice(0, batches);
    this.segs.splice(0, count);
    this.incrementLogStartOffset(this.segs[0]!.baseOffset);
  }

  /**
   * Moves the log start forward (never back): after deleting segments, or on a follower to the leader's log start
   * (UnifiedLog.maybeIncrementLogStartOffset). Reads below it are out of range; the leader-epoch cache forgets what
   * is below it, the epoch holding it now starting there (LeaderEpochFileCache.truncateFromStart).
   */
  incrementLogStartOffset(offset: number): void {
    if (offset <= this.#logStartOffset) return;
    this.#logStartOffset = offset;
    let keep = 0;
    while (keep + 1 < this.epochs.length && this.epochs[keep + 1]!.startOffset <= offset) keep++;
    if (keep > 0) this.epochs.splice(0, keep);
    const first = this.epochs[0];
    if (first && first.startOffset < offset) this.epochs[0] = { epoch: first.epoch, startOffset: offset };
    if (this.fingerprint) {
      this.fingerprint.text(this.replicaTag);
      this.fingerprint.word(4); // a new log start
      this.fingerprint.number(offset);
    }
    this.watcher?.logChanged(this);
  }

  /** Forgets the epochs that start at or after `offset` (the leader-epoch cache's truncateFromEnd). */
  private dropEpochsFrom(offset: number): void {
    while (this.epochs.length && this.epochs[this.epochs.length - 1]!.startOffset >= offset)
      this.epochs.pop();
  }

  private rebuildProducers(): void {
    this.producers = undefined;
    for (const b of this.batches) if (b.producerId >= 0) this.trackProducer(b);
  }

  /** Batches from `offset` (the batch containing it first) below `maxOffset`, up to about `maxBytes`. */
  read(offset: number, maxOffset: number, maxBytes: number): readonly RecordBatch[] {
    // A reader that is caught up (the common case of a parked fetch being answered) gets the shared empty list.
    if (offset >= this.logEndOffset) return NONE;
    const out: RecordBatch[] = [];
    let i = this.indexOf(offset);
    let bytes = 0;
    for (; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.baseOffset >= maxOffset) break;
      if (out.length > 0 && bytes + b.bytes > maxBytes) break; // always return at least one batch
      out.push(b);
      bytes += b.bytes;
    }
    return out.length > 0 ? out : NONE;
  }

  /** The bytes `read` would return, without building the list (a parked fetch checks this at every wake). */
  readableBytes(offset: number, maxOffset: number, maxBytes: number): number {
    if (offset >= this.logEndOffset) return 0;
    let i = this.indexOf(offset);
    let bytes = 0;
    let n = 0;
    for (; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.baseOffset >= maxOffset) break;
      if (n > 0 && bytes + b.bytes > maxBytes) break;
      n++;
      bytes += b.bytes;
    }
    return bytes;
  }

  /** Index of the batch containing `offset`, or the batch count when it is at or past the end. */
  private indexOf(offset: number): number {
    let lo = 0;
    let hi = this.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lastOffsetOf(this.batches[mid]!) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Every batch, oldest first (read-only view for checks and reports). */
  allBatches(): readonly RecordBatch[] {
    return this.batches;
  }
}
