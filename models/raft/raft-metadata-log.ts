/**
 * The metadata log (`__cluster_metadata`) on the Raft quorum: Kafka's KafkaRaftClient as the controller's
 * RaftClient<ApiMessageAndVersion>. Appends go to the leader's accumulator (their offsets are known at once);
 * records are committed, and become readable, when the high watermark passes them. LeaderChange control
 * records take offsets that readers never see.
 */

import { frozenRecordCopy, type LogEntry, type MetadataLog, type MetadataRecord } from '../metadata/index.ts';
import { KafkaError } from '../protocol/index.ts';
import type { RaftClient } from './raft-client.ts';

export class RaftMetadataLog implements MetadataLog {
  readonly #listeners = new Set<(committedOffset: number) => void>();

  constructor(readonly client: RaftClient<MetadataRecord>) {
    client.onCommit((hw) => {
      for (const listener of [...this.#listeners]) {
        // A listener may unsubscribe another during this round; that one must not be called.
        if (this.#listeners.has(listener)) listener(hw - 1);
      }
    });
  }

  /** Leader only; elsewhere throws NOT_CONTROLLER (the controller answers its requester with it). */
  append(records: readonly MetadataRecord[]): { baseOffset: number; lastOffset: number } {
    if (records.length === 0) throw new Error('MetadataLog.append: a batch needs at least one record');
    if (!this.client.isLeader || this.client.isShuttingDown) {
      const leader = this.client.leaderId;
      throw new KafkaError(
        'NOT_CONTROLLER',
        `This node is not the active controller (metadata quorum epoch ${this.client.epoch}, leader ${leader ?? 'unknown'}).`,
      );
    }
    // Copied and frozen so later edits by the writer cannot change what replayers read.
    return this.client.append(records.map((r) => frozenRecordCopy(r)));
  }

  get endOffset(): number {
    return this.client.endOffset;
  }

  get committedOffset(): number {
    return this.client.role === 'down' ? -1 : this.client.log.highWatermark - 1;
  }

  readCommitted(fromOffset: number, maxEntries = Number.POSITIVE_INFINITY): readonly LogEntry[] {
    if (!Number.isInteger(fromOffset) || fromOffset < 0)
      throw new Error(`readCommitted: fromOffset must be an integer >= 0, not ${fromOffset}`);
    if (!(maxEntries >= 0)) throw new Error(`readCommitted: maxEntries must be >= 0, not ${maxEntries}`);
    const out: LogEntry[] = [];
    if (maxEntries === 0) return out;
    const log = this.client.log;
    const end = this.client.committedEnd;
    // Metadata is read record by record; batches are walked until enough data records are found.
    let from = fromOffset;
    while (from < end && out.length < maxEntries) {
      const batches = log.readBatches(from, end, maxEntries - out.length);
      if (batches.length === 0) break;
      for (const b of batches) {
        b.records.forEach((record, i) => {
          if (out.length < maxEntries) out.push(Object.freeze({ offset: b.baseOffset + i, record }));
        });
        from = b.baseOffset + (b.control ? 1 : b.records.length);
      }
    }
    return out;
  }

  onCommit(listener: (committedOffset: number) => void): () => void {
    const subscription = (offset: number) => listener(offset);
    this.#listeners.add(subscription);
    return () => {
      this.#listeners.delete(subscription);
    };
  }
}
