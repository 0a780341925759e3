/**
 * The replicated log of one Raft node, as Kafka's MockLog models it
 * (raft/src/test/java/org/apache/kafka/raft/MockLog.java): record batches with their epoch, the leader-epoch cache,
 * the high watermark, and the flush point. What is below the flush point is on disk; `reopen` (a restart after a
 * crash) loses everything above it and forgets the high watermark. The log object lives in its node's `disk`, so one
 * instance is the node's log files across restarts.
 *
 * The log stores batches, never single records, so that its cost follows appends and fetches (events), not
 * records. Offsets start at 0 (no snapshots, so the log start never moves).
 */

import type { LeaderChangeMessage, RaftBatch } from '../protocol/index.ts';
import { ExitCode, KafkasimError } from '../sim/index.ts';
import {
  type EpochStart,
  endOffsetForEpoch,
  type OffsetAndEpoch,
  type OffsetValidation,
  truncationOffset,
  validateOffsetAndEpoch,
} from './decisions.ts';

export type { LeaderChangeMessage, RaftBatch };

/** One record of the log, for readers that want records (`record` is undefined for a control record). */
export interface RaftEntry<T> {
  readonly offset: number;
  readonly epoch: number;
  readonly record: T | undefined;
  readonly control?: LeaderChangeMessage;
}

export function batchSize(batch: RaftBatch<unknown>): number {
  return batch.control ? 1 : batch.records.length;
}

/** A log operation that would break Raft's safety (Kafka's MockLog throws the same way). */
export class RaftLogError extends KafkasimError {
  readonly code = 'RAFT_LOG_UNSAFE';
  readonly exitCode = ExitCode.internal;
  override name = 'RaftLogError';
}

export class RaftLog<T> {
  #batches: RaftBatch<T>[] = [];
  #end = 0;
  #epochs: EpochStart[] = [];
  #flushedEnd = 0;
  #highWatermark = 0;

  /** The next offset to write (LEO). */
  get endOffset(): number {
    return this.#end;
  }

  /** The epoch of the last batch, 0 for an empty log. */
  get lastFetchedEpoch(): number {
    return this.#epochs.length > 0 ? this.#epochs[this.#epochs.length - 1]!.epoch : 0;
  }

  get endOffsetAndEpoch(): OffsetAndEpoch {
    return { offset: this.#end, epoch: this.lastFetchedEpoch };
  }

  /** Everything below this offset is on disk (MockLog's firstUnflushedOffset). */
  get flushedOffset(): number {
    return this.#flushedEnd;
  }

  /** The log's high watermark (0 after a reopen). */
  get highWatermark(): number {
    return this.#highWatermark;
  }

  get epochs(): readonly EpochStart[] {
    return this.#epochs;
  }

  get batchCount(): number {
    return this.#batches.length;
  }

  /** Index of the batch holding `offset` (offset < end), by binary search. */
  #indexOf(offset: number): number {
    const batches = this.#batches;
    let lo = 0;
    let hi = batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (batches[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The record at `offset`, or undefined beyond the end. */
  entry(offset: number): RaftEntry<T> | undefined {
    if (offset < 0 || offset >= this.#end) return undefined;
    const b = this.#batches[this.#indexOf(offset)]!;
    return b.control
      ? { offset, epoch: b.epoch, record: undefined, control: b.control }
      : { offset, epoch: b.epoch, record: b.records[offset - b.baseOffset] };
  }

  /**
   * Whole batches from the one holding `fromOffset` (sliced to start there) up to `toOffset`, stopping once
   * `maxRecords` records are included (always at least one batch). What a Fetch response carries.
   */
  readBatches(
    fromOffset: number,
    toOffset = this.#end,
    maxRecords = Number.POSITIVE_INFINITY,
  ): RaftBatch<T>[] {
    const end = Math.min(toOffset, this.#end);
    if (fromOffset >= end) return [];
    const out: RaftBatch<T>[] = [];
    let count = 0;
    for (let i = this.#indexOf(fromOffset); i < this.#batches.length; i++) {
      let b = this.#batches[i]!;
      if (b.baseOffset >= end || (out.length > 0 && count >= maxRecords)) break;
      const size = batchSize(b);
      if (b.baseOffset + size > end || b.baseOffset < fromOffset) {
        const from = Math.max(fromOffset, b.baseOffset);
        b = {
          baseOffset: from,
          epoch: b.epoch,
          records: b.records.slice(from - b.baseOffset, end - b.baseOffset),
        };
      }
      out.push(b);
      count += batchSize(b);
    }
    return out;
  }

  /** Calls `fn` for every record in [fromOffset, toOffset), without allocating per record. */
  forEachRecord(
    fromOffset: number,
    toOffset: number,
    fn: (
      offset: number,
      record: T | undefined,
      epoch: number,
      control: LeaderChangeMessage | undefined,
    ) => void,
  ): void {
    const end = Math.min(toOffset, this.#end);
    if (fromOffset >= end) return;
    for (let i = this.#indexOf(fromOffset); i < this.#batches.length; i++) {
      const b = this.#batches[i]!;
      if (b.baseOffset >= end) break;
      if (b.control) {
        if (b.baseOffset >= fromOffset) fn(b.baseOffset, undefined, b.epoch, b.control);
        continue;
      }
      const first = Math.max(fromOffset, b.baseOffset) - b.baseOffset;
      const last = Math.min(end - b.baseOffset, b.records.length);
      for (let k = first; k < last; k++) fn(b.baseOffset + k, b.records[k], b.epoch, undefined);
    }
  }

  /** Records in [fromOffset, toOffset), at most `max` (allocates one entry per record: for small reads). */
  read(fromOffset: number, toOffset = this.#end, max = Number.POSITIVE_INFINITY): RaftEntry<T>[] {
    const out: RaftEntry<T>[] = [];
    const end = Math.min(toOffset, fromOffset + max);
    this.forEachRecord(fromOffset, end, (offset, record, epoch, control) =>
      out.push(control ? { offset, epoch, record, control } : { offset, epoch, record }),
    );
    return out;
  }

  /** Appends batches that continue the log, with epochs that never decrease. */
  append(batches: readonly RaftBatch<T>[]): void {
    for (const b of batches) {
      if (b.baseOffset !== this.#end)
        throw new RaftLogError(`append at offset ${b.baseOffset}, but the log ends at ${this.#end}`);
      const size = batchSize(b);
      if (size === 0) continue;
      const last = this.lastFetchedEpoch;
      if (b.epoch < last) throw new RaftLogError(`append of epoch ${b.epoch} after epoch ${last}`);
      if (b.epoch > last || this.#epochs.length === 0)
        this.#epochs.push({ epoch: b.epoch, startOffset: b.baseOffset });
      this.#batches.push(b);
      this.#end += size;
    }
  }

  flush(): void {
    this.#flushedEnd = this.#end;
  }

  /** Writes back everything below `offset` (clamped to the log end); the flush point never moves back. */
  flushTo(offset: number): void {
    const to = Math.min(offset, this.#end);
    if (to > this.#flushedEnd) this.#flushedEnd = to;
  }

  /** Removes every record at or above `offset`. Truncating committed data is a safety violation. */
  truncateTo(offset: number): void {
    if (offset >= this.#end) return;
    if (offset < this.#highWatermark)
      throw new RaftLogError(`truncation to ${offset} is below the high watermark ${this.#highWatermark}`);
    this.#cut(offset);
  }

  #cut(offset: number): void {
    if (offset >= this.#end) return;
    if (offset <= 0) {
      this.#batches = [];
    } else {
      const i = this.#indexOf(offset);
      const b = this.#batches[i]!;
      this.#batches.length = i;
      if (b.baseOffset < offset) {
        this.#batches.push({
          baseOffset: b.baseOffset,
          epoch: b.epoch,
          records: b.records.slice(0, offset - b.baseOffset),
        });
      }
    }
    this.#end = Math.max(0, offset);
    while (this.#epochs.length > 0 && this.#epochs[this.#epochs.length - 1]!.startOffset >= this.#end)
      this.#epochs.pop();
    if (this.#flushedEnd > this.#end) this.#flushedEnd = this.#end;
  }

  /** The offset a diverging-epoch answer truncates to (not applied). */
  truncationOffsetFor(diverging: OffsetAndEpoch): number {
    return truncationOffset(this.#epochs, this.#end, diverging);
  }

  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    return endOffsetForEpoch(this.#epochs, this.#end, epoch);
  }

  validateOffsetAndEpoch(fetchOffset: number, lastFetchedEpoch: number): OffsetValidation {
    return validateOffsetAndEpoch(this.#epochs, this.#end, fetchOffset, lastFetchedEpoch);
  }

  /** Moves the high watermark; it never decreases and never passes the log end. */
  updateHighWatermark(offset: number): void {
    if (offset < this.#highWatermark)
      throw new RaftLogError(`non-monotonic high watermark update from ${this.#highWatermark} to ${offset}`);
    if (offset > this.#end)
      throw new RaftLogError(`high watermark ${offset} is beyond the log end ${this.#end}`);
    this.#highWatermark = offset;
  }

  /** What survives a crash: the flushed prefix, without a high watermark. Returns how many records were lost. */
  reopen(): number {
    const lost = this.#end - this.#flushedEnd;
    if (lost > 0) this.#cut(this.#flushedEnd);
    this.#highWatermark = 0;
    return lost;
  }
}
