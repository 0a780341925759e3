// A worker's fetch queue: what its consumer fetched and the worker has not polled yet, kept as slices of batches
// (never one entry per record). Polling takes up to `max` records; revoked partitions' records can be dropped, as
// librdkafka purges its queue on unassign.
import type { ConsumedBatches, TopicPartitionRef } from '../clients/index.ts';
import type { MessageSlice } from './sink-consumer.ts';

const keyOf = (tp: TopicPartitionRef) => `${tp.topic}\u0000${tp.partition}`;

export class FetchQueue {
  private slices: MessageSlice[] = [];
  private head = 0;
  private records = 0;
  private readonly readable: (() => void)[] = [];

  /** Records waiting to be polled. */
  get queued(): number {
    return this.records;
  }

  /** Called when the queue goes from empty to not empty. */
  onReadable(listener: () => void): void {
    this.readable.push(listener);
  }

  /** Queues what a fetch delivered (the batches trimmed to the records the consumer handed over). */
  add(c: ConsumedBatches): void {
    let added = 0;
    for (const b of c.batches) {
      const first = Math.max(0, c.fromOffset - b.baseOffset);
      const count = Math.min(b.count - first, c.fromOffset + c.records - (b.baseOffset + first));
      if (count <= 0) continue;
      this.slices.push({ topic: c.topic, partition: c.partition, batch: b, first, count });
      added += count;
    }
    if (added === 0) return;
    const wasEmpty = this.records === 0;
    this.records += added;
    if (wasEmpty) for (const l of this.readable) l();
  }

  /** Takes up to `max` records, oldest first. */
  poll(max: number): MessageSlice[] {
    const out: MessageSlice[] = [];
    let left = max;
    while (left > 0 && this.head < this.slices.length) {
      const s = this.slices[this.head]!;
      if (s.count <= left) {
        out.push(s);
        left -= s.count;
        this.head++;
      } else {
        out.push({ ...s, count: left });
        this.slices[this.head] = { ...s, first: s.first + left, count: s.count - left };
        left = 0;
      }
    }
    this.records -= max - left;
    if (this.head > 1024 && this.head * 2 > this.slices.length) {
      this.slices = this.slices.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  /** Drops queued records of `partitions` (all when undefined). */
  drop(partitions?: readonly TopicPartitionRef[]): void {
    if (!partitions) {
      this.slices = [];
      this.head = 0;
      this.records = 0;
      return;
    }
    const gone = new Set(partitions.map(keyOf));
    const kept: MessageSlice[] = [];
    let records = 0;
    for (let i = this.head; i < this.slices.length; i++) {
      const s = this.slices[i]!;
      if (gone.has(keyOf(s))) continue;
      kept.push(s);
      records += s.count;
    }
    this.slices = kept;
    this.head = 0;
    this.records = records;
  }
}
