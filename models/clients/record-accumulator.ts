// A producer's record accumulator (Java's RecordAccumulator): one deque of batches per partition, appends that
// fill the last open batch, and the pass that picks, for each partition with batches, the batch to send now
// (linger.ms, retry backoff, a known leader), grouped by leader broker. Batches stay in their deque while in
// flight and leave it when acknowledged or failed; with idempotence a retried batch goes back in sequence order.

import type { ClientFlavour, ProducerConfig } from './config.ts';
import type { MetadataCache } from './metadata-cache.ts';
import { type DeliveryResult, ProducerBatch } from './producer-batch.ts';

/** One pass's ready batches (at most one per partition) and what to do next. */
export interface ReadyBatches {
  /** Leader brokers in the order they first appear (the order requests go out). */
  leaders: number[] | undefined;
  /** Each leader's batches. */
  groups: ProducerBatch[][] | undefined;
  /** When the next batch becomes ready (linger or backoff), or +Infinity. */
  nextWake: number;
  /** A batch waits for a partition without a known leader. */
  needMetadata: boolean;
  /** A partition has a second ready batch behind the one picked. */
  more: boolean;
}

export class RecordAccumulator {
  /** Java's flushInProgress: batches are ready without waiting for linger.ms. */
  flushing = false;
  private readonly deques = new Map<string, ProducerBatch[]>();
  /** Each deque's rank: the order deques were made, which is the order the sender visits them. */
  private readonly dequeRanks = new Map<ProducerBatch[], number>();
  /**
   * The deques that may hold batches, by rank (Java's RecordAccumulator.ready looks only at partitions with
   * batches): the sender visits these, not every partition ever written to. A deque enters when it gets a
   * batch while empty and leaves when a pass finds it empty.
   */
  private active: ProducerBatch[][] = [];
  private readonly activeSet = new Set<ProducerBatch[]>();
  /**
   * The index of the deque each pass under way is at (a pass may start inside another, from a callback):
   * a deque that becomes active before that index waits for the next pass, as with a Map being iterated.
   */
  private readonly drainCursors: number[] = [];
  /** `topic-partition` strings, built once per partition (the send path looks deques up on every append). */
  private readonly tpKeys = new Map<string, string[]>();

  constructor(
    private readonly config: ProducerConfig,
    private readonly flavour: ClientFlavour,
    private readonly metadata: MetadataCache,
    /** A batch that waited delivery.timeout.ms without being sent: the producer fails it. */
    private readonly expired: (b: ProducerBatch) => void,
  ) {}

  /**
   * Appends one record of `size` bytes (record index `index`) to the partition's open batch, or a new one when
   * it would not fit; content is kept when `keepContent` and the record has a key or value.
   */
  append(
    topic: string,
    partition: number,
    index: number,
    size: number,
    now: number,
    content: { key: string | null; value: string | null } | undefined,
    cb: ((r: DeliveryResult) => void) | undefined,
  ): void {
    let batch = this.openBatch(topic, partition, now);
    if (batch.count > 0 && batch.bytes + size > this.config['batch.size']) {
      batch.closed = true;
      batch = this.openBatch(topic, partition, now);
    }
    batch.addRun(index, 1, size, now);
    if (content) {
      batch.records ??= [];
      // Batches either carry content for all records or none.
      while (batch.records.length < batch.count - 1) batch.records.push({ key: null, value: null });
      batch.records.push(content);
    }
    if (cb) (batch.callbacks ??= []).push(cb);
    if (batch.bytes >= this.config['batch.size']) batch.closed = true;
  }

  private tpKey(topic: string, partition: number): string {
    let keys = this.tpKeys.get(topic);
    if (!keys) this.tpKeys.set(topic, (keys = []));
    return (keys[partition] ??= `${topic}-${partition}`);
  }

  /** The partition's last batch if it can take more records, else a new one at the end of its deque. */
  openBatch(topic: string, partition: number, now: number): ProducerBatch {
    const key = this.tpKey(topic, partition);
    let deque = this.deques.get(key);
    if (!deque) {
      this.deques.set(key, (deque = []));
      this.dequeRanks.set(deque, this.dequeRanks.size);
    }
    if (!this.activeSet.has(deque)) this.activate(deque);
    const last = deque[deque.length - 1];
    if (last && !last.closed && !last.inFlight && last.attempts === 0) return last;
    const b = new ProducerBatch(topic, partition, key, now);
    deque.push(b);
    return b;
  }

  private compactActive(): void {
    let j = 0;
    const list = this.active;
    for (let i = 0; i < list.length; i++) {
      const d = list[i]!;
      if (d.length > 0) list[j++] = d;
      else this.activeSet.delete(d);
    }
    list.length = j;
  }

  private activate(deque: ProducerBatch[]): void {
    const rank = this.dequeRanks.get(deque)!;
    const list = this.active;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.dequeRanks.get(list[mid]!)! < rank) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, deque);
    this.activeSet.add(deque);
    const cursors = this.drainCursors;
    for (let i = 0; i < cursors.length; i++) if (lo <= cursors[i]!) cursors[i]!++;
  }

  /**
   * Java's RecordAccumulator.ready and drain in one pass: for each partition with batches, its first batch not
   * in flight if it may go now, grouped by the partition's leader. Batches past delivery.timeout.ms are failed
   * on the way.
   */
  ready(now: number): ReadyBatches {
    const linger = this.config['linger.ms'];
    let leaders: number[] | undefined;
    let groups: ProducerBatch[][] | undefined;
    let nextWake = Number.POSITIVE_INFINITY;
    let needMetadata = false;
    let more = false;
    const cursors = this.drainCursors;
    const depth = cursors.length;
    cursors.push(0);
    for (; cursors[depth]! < this.active.length; cursors[depth]!++) {
      const deque = this.active[cursors[depth]!]!;
      this.expire(deque, now);
      if (deque.length === 0) continue;
      const b = deque.find((x) => !x.inFlight);
      if (!b) continue;
      if (this.shouldStopDrainBatchesForPartition(deque, b)) continue;
      const ready = b.closed || b.attempts > 0 || b.createdAt + linger <= now || this.flushing;
      if (!ready) {
        nextWake = Math.min(nextWake, b.createdAt + linger);
        continue;
      }
      const known = this.metadata.leader(b.topic, b.partition);
      // Java (KIP-951, RecordAccumulator.shouldBackoff): a retry waits out its backoff unless the partition has
      // a newer leader than when the batch was last sent.
      if (b.retryAt > now && !(this.flavour === 'java' && known && known.leaderEpoch > b.sentLeaderEpoch)) {
        nextWake = Math.min(nextWake, b.retryAt);
        continue;
      }
      const leader = known?.leader ?? -1;
      if (leader < 0) {
        needMetadata = true;
        nextWake = Math.min(nextWake, now + this.config['retry.backoff.ms']);
        continue;
      }
      const next = deque[deque.indexOf(b) + 1];
      if (next && (next.closed || next.createdAt + linger <= now || this.flushing)) more = true;
      leaders ??= [];
      groups ??= [];
      const i = leaders.indexOf(leader);
      if (i >= 0) groups[i]!.push(b);
      else {
        leaders.push(leader);
        groups.push([b]);
      }
    }
    cursors.pop();
    // Deques found empty leave the list (only outside every pass, so that no pass's position moves).
    if (depth === 0) this.compactActive();
    return { leaders, groups, nextWake, needMetadata, more };
  }

  /**
   * Java's RecordAccumulator.shouldStopDrainBatchesForPartition with idempotence: a batch that already has a
   * sequence is a retry, and goes only when it is the partition's lowest unacknowledged sequence
   * (TransactionManager.firstInFlightSequence; a retried batch counts as in flight until it completes), so after
   * an error the partition has one batch on the wire until the retries are through. The deque holds its
   * unacknowledged batches in sequence order (reenqueue), so that is its first batch.
   */
  private shouldStopDrainBatchesForPartition(deque: ProducerBatch[], first: ProducerBatch): boolean {
    return this.config['enable.idempotence'] && first.baseSequence >= 0 && deque[0] !== first;
  }

  private expire(deque: ProducerBatch[], now: number): void {
    const timeout = this.config['delivery.timeout.ms'];
    while (deque.length > 0) {
      const b = deque[0]!;
      if (b.inFlight || now - b.createdAt < timeout) return;
      deque.shift();
      this.expired(b);
    }
  }

  /** A batch refused with OUT_OF_ORDER_SEQUENCE_NUMBER while an earlier one of its partition is unacknowledged. */
  hasEarlierUnacked(b: ProducerBatch): boolean {
    const deque = this.deques.get(b.key);
    return !!deque && deque.indexOf(b) > 0;
  }

  /** Java's reenqueue (insertInSequenceOrder): keeps the deque in sequence order so retries go out in order. */
  reenqueue(b: ProducerBatch): void {
    if (!this.config['enable.idempotence']) return;
    const deque = this.deques.get(b.key);
    if (!deque) return;
    deque.sort((x, y) =>
      x.baseSequence < 0 ? 1 : y.baseSequence < 0 ? -1 : x.baseSequence - y.baseSequence,
    );
    // Everything after a failed batch must be resent after it: take later in-flight ones back too.
    for (const x of deque)
      if (x !== b && x.baseSequence > b.baseSequence && x.retryAt < b.retryAt) x.retryAt = b.retryAt;
  }

  /** Takes an acknowledged or failed batch out of its deque. */
  remove(b: ProducerBatch): void {
    const deque = this.deques.get(b.key);
    if (!deque) return;
    const i = deque.indexOf(b);
    if (i < 0) return;
    // In place: splice would allocate the removed list once per acknowledged batch.
    for (let j = i + 1; j < deque.length; j++) deque[j - 1] = deque[j]!;
    deque.pop();
  }
}
