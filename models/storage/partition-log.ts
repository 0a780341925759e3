// A partition's log at batch level: offsets, high watermark, the leader-epoch cache used to find where a
// follower's log diverges, and the idempotent-producer state that lets a leader recognise a retried batch.
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

/** Hears of every change of a log's offsets (an append, a truncation, a new high watermark). */
export interface LogWatcher {
  logChanged(log: PartitionLog): void;
}

export class PartitionLog {
  private batches: RecordBatch[] = [];
  logStartOffset = 0;
  logEndOffset = 0;
  #highWatermark = 0;
  sizeBytes = 0;
  /** A checker that wants to hear of changes (one at a time; the data-plane invariants), else undefined. */
  watcher: LogWatcher | undefined = undefined;
  /** (epoch, start offset) pairs, ascending: the leader-epoch checkpoint. */
  private epochs: { epoch: number; startOffset: number }[] = [];
  private producers = new Map<number, ProducerState>();
  private fingerprint: Fingerprint | undefined;
  private replicaTag = '';

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get highWatermark(): number {
    return this.#highWatermark;
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
      const st = this.producers.get(data.producerId);
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
    let st = this.producers.get(b.producerId);
    if (!st || st.epoch !== b.producerEpoch) {
      st = { epoch: b.producerEpoch, lastSequence: -1, recent: [] };
      this.producers.set(b.producerId, st);
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
    let i = this.batches.length;
    while (i > 0 && this.batches[i - 1]!.baseOffset >= offset) i--;
    if (i > 0 && lastOffsetOf(this.batches[i - 1]!) >= offset) {
      throw new Error(`${this.topic}-${this.partition}: truncation to ${offset} would split a batch`);
    }
    const removed = this.batches.splice(i);
    for (const b of removed) this.sizeBytes -= b.bytes;
    this.logEndOffset = offset;
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

  /** Forgets the epochs that start at or after `offset` (the leader-epoch cache's truncateFromEnd). */
  private dropEpochsFrom(offset: number): void {
    while (this.epochs.length && this.epochs[this.epochs.length - 1]!.startOffset >= offset)
      this.epochs.pop();
  }

  private rebuildProducers(): void {
    this.producers = new Map();
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
