// End-to-end delivery accounting: which of a producer's records were acknowledged, and how many times each
// record is in the partition logs. Records are identified by (producer node, record index), kept as runs, so the
// check is exact and costs O(records) bytes, not objects.
import type { DeliveryResult } from '../../models/clients/index.ts';
import type { PartitionLog } from '../../models/storage/index.ts';

export interface DeliveryReport {
  producer: string;
  sent: number;
  acknowledged: number;
  failed: number;
  /** Acknowledged records found in no log. */
  lost: number;
  /** Records found in the logs more than once (counting each extra copy). */
  duplicated: number;
  /** Records in the logs that were never acknowledged (e.g. failed or still in flight), counted once. */
  unacknowledgedInLog: number;
  /** Up to 20 examples of lost record indices. */
  lostExamples: number[];
}

/** Tracks one producer's acknowledgements. */
export class DeliveryTracker {
  private acked = new Uint8Array(1024);
  sent = 0;
  acknowledged = 0;
  failed = 0;

  constructor(readonly producer: string) {}

  note(r: DeliveryResult): void {
    for (const run of r.runs) {
      const end = run.index + run.count;
      if (end > this.sent) this.sent = end;
      if (r.error) {
        this.failed += run.count;
        continue;
      }
      this.grow(end);
      this.acked.fill(1, run.index, end);
      this.acknowledged += run.count;
    }
  }

  private grow(n: number): void {
    if (n <= this.acked.length) return;
    let size = this.acked.length;
    while (size < n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.acked);
    this.acked = next;
  }

  /** Compares acknowledgements with what the logs hold. */
  check(logs: Iterable<PartitionLog>, sent = this.sent): DeliveryReport {
    const n = Math.max(sent, this.sent);
    // Copies per record index as a difference array over the runs (a run is a range of consecutive indexes), so
    // the batches cost one step per run, not per record; the prefix sum below walks the records once.
    const diff = new Int32Array(n + 1);
    for (const log of logs) {
      for (const b of log.allBatches()) {
        if (b.origin !== this.producer) continue;
        for (const run of b.runs) {
          const from = run.index;
          const to = Math.min(run.index + run.count, n);
          if (from >= to) continue;
          diff[from]!++;
          diff[to]!--;
        }
      }
    }
    let lost = 0;
    let duplicated = 0;
    let unacknowledgedInLog = 0;
    const lostExamples: number[] = [];
    let c = 0;
    for (let i = 0; i < n; i++) {
      c += diff[i]!;
      const acked = i < this.acked.length && this.acked[i] === 1;
      if (acked && c === 0) {
        lost++;
        if (lostExamples.length < 20) lostExamples.push(i);
      }
      if (c > 1) duplicated += c - 1;
      if (!acked && c > 0) unacknowledgedInLog++;
    }
    return {
      producer: this.producer,
      sent: n,
      acknowledged: this.acknowledged,
      failed: this.failed,
      lost,
      duplicated,
      unacknowledgedInLog,
      lostExamples,
    };
  }
}
