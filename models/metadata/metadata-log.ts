import { frozenRecordCopy } from './frozen-copy.ts';
import type { LogEntry, MetadataRecord } from './records.ts';

/**
 * The metadata log (`__cluster_metadata`) as the controller and replayers see it.
 *
 * Nothing here assumes one node: an append only proposes records, which become visible to readers when
 * the committed offset passes them (for Raft, when a majority has them). An implementation may refuse
 * an append (not the leader) by throwing, and offsets it assigned may then never commit. Offsets
 * increase but need not be contiguous: Raft control records take offsets that readers never see.
 */
export interface MetadataLog {
  /** Proposes one batch; its records get consecutive offsets from `baseOffset` to `lastOffset`. */
  append(records: readonly MetadataRecord[]): { baseOffset: number; lastOffset: number };
  /** The next offset to assign. */
  readonly endOffset: number;
  /** The last committed offset, -1 when none. */
  readonly committedOffset: number;
  /** Committed entries with offset >= fromOffset, oldest first, at most maxEntries of them. */
  readCommitted(fromOffset: number, maxEntries?: number): readonly LogEntry[];
  /** Called after the committed offset advances; returns the unsubscribe function. */
  onCommit(listener: (committedOffset: number) => void): () => void;
}

/** The part of the simulation kernel a log needs; the kernel satisfies it structurally. */
export interface Scheduler {
  readonly now: number;
  schedule(delayMs: number, fn: () => void): { cancel(): void };
}

export interface LocalMetadataLogOptions {
  readonly scheduler: Scheduler;
  /** Time from append to commit. 0 commits at the scheduler's next event, never inside `append`. */
  readonly commitDelayMs?: number;
}

/**
 * A single-node metadata log: every batch commits `commitDelayMs` after its append, in append order.
 * It stands in until the Raft-backed log exists.
 */
export class LocalMetadataLog implements MetadataLog {
  readonly #scheduler: Scheduler;
  readonly #commitDelayMs: number;
  // Offsets start at 0 and this log writes no control records, so entry i has offset i.
  readonly #entries: LogEntry[] = [];
  #committedOffset = -1;
  readonly #listeners = new Set<(committedOffset: number) => void>();

  constructor(options: LocalMetadataLogOptions) {
    const delay = options.commitDelayMs ?? 0;
    if (!Number.isFinite(delay) || delay < 0) throw new Error(`commitDelayMs must be >= 0, not ${delay}`);
    this.#scheduler = options.scheduler;
    this.#commitDelayMs = delay;
  }

  get endOffset(): number {
    return this.#entries.length;
  }

  get committedOffset(): number {
    return this.#committedOffset;
  }

  append(records: readonly MetadataRecord[]): { baseOffset: number; lastOffset: number } {
    if (records.length === 0) throw new Error('MetadataLog.append: a batch needs at least one record');
    const baseOffset = this.#entries.length;
    for (const record of records) {
      // Copied and frozen so later edits by the writer cannot change what replayers read.
      this.#entries.push(Object.freeze({ offset: this.#entries.length, record: frozenRecordCopy(record) }));
    }
    const lastOffset = this.#entries.length - 1;
    this.#scheduler.schedule(this.#commitDelayMs, () => this.#commitThrough(lastOffset));
    return { baseOffset, lastOffset };
  }

  readCommitted(fromOffset: number, maxEntries = Number.POSITIVE_INFINITY): readonly LogEntry[] {
    if (!Number.isInteger(fromOffset) || fromOffset < 0)
      throw new Error(`readCommitted: fromOffset must be an integer >= 0, not ${fromOffset}`);
    if (!(maxEntries >= 0)) throw new Error(`readCommitted: maxEntries must be >= 0, not ${maxEntries}`);
    const end = Math.min(this.#committedOffset + 1, fromOffset + maxEntries);
    return fromOffset >= end ? [] : this.#entries.slice(fromOffset, end);
  }

  onCommit(listener: (committedOffset: number) => void): () => void {
    // Wrapped so that the same function subscribed twice gets two independent subscriptions.
    const subscription = (offset: number) => listener(offset);
    this.#listeners.add(subscription);
    return () => {
      this.#listeners.delete(subscription);
    };
  }

  // Committing through a batch commits every batch before it, so commits stay in append order even
  // if a scheduler ran equal-time callbacks out of order.
  #commitThrough(lastOffset: number): void {
    if (lastOffset <= this.#committedOffset) return;
    this.#committedOffset = lastOffset;
    for (const listener of [...this.#listeners]) {
      // A listener may unsubscribe another during this round; that one must not be called.
      if (this.#listeners.has(listener)) listener(lastOffset);
    }
  }
}
