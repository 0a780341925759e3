// A producer's batch of records for one partition (Java's ProducerBatch): its records as runs of the producer's
// record indices, its size, and its send state (attempts, idempotent sequence, backoff, in flight). A batch is
// closed once sent, so a retry resends the same data with the same sequence.

import type { ErrorName } from '../protocol/index.ts';
import type { ProducerBatchData, RecordData, RecordRun } from '../storage/index.ts';

/** Record batch header size in bytes (Kafka's v2 RecordBatch header). */
export const BATCH_OVERHEAD = 61;
/** Approximate per-record framing (length, attributes, deltas, header count varints). */
export const RECORD_OVERHEAD = 8;

export interface SendRecord {
  topic: string;
  partition?: number;
  key?: string | null;
  value?: string | null;
  /** Size of the value in bytes when `value` is not given. */
  valueBytes?: number;
  /** The caller built `value` as JSON (RecordData.valueIsJson). */
  valueIsJson?: true;
}

export interface DeliveryResult {
  topic: string;
  partition: number;
  /** Offset of the batch's first record, -1 for acks=0 or a failure. */
  baseOffset: number;
  count: number;
  runs: readonly RecordRun[];
  /** Virtual time the result came back. */
  time: number;
  error?: ErrorName | 'DELIVERY_TIMEOUT';
}

export class ProducerBatch {
  count = 0;
  bytes = BATCH_OVERHEAD;
  readonly runs: RecordRun[] = [];
  records: RecordData[] | undefined;
  callbacks: ((r: DeliveryResult) => void)[] | undefined;
  attempts = 0;
  baseSequence = -1;
  retryAt = 0;
  /** The partition's leader epoch when the batch was last sent (KIP-951: a newer one ends the backoff). */
  sentLeaderEpoch = -1;
  inFlight = false;
  closed = false;
  wire: ProducerBatchData | undefined;
  constructor(
    readonly topic: string,
    readonly partition: number,
    /** `topic-partition`, the deque's key. */
    readonly key: string,
    readonly createdAt: number,
  ) {}

  /** Adds `count` records starting at record index `index`, made at `now` (one run while they are contiguous). */
  addRun(index: number, count: number, bytes: number, now: number): void {
    const last = this.runs[this.runs.length - 1];
    if (last && last.index + last.count === index && last.time === now) {
      this.runs[this.runs.length - 1] = { index: last.index, count: last.count + count, time: last.time };
    } else {
      this.runs.push({ index, count, time: now });
    }
    this.count += count;
    this.bytes += bytes;
  }

  /** The batch as sent; built once (a retry resends the same data with the same sequence). */
  wireData(
    producerId: number,
    producerEpoch: number,
    idempotent: boolean,
    origin: string,
  ): ProducerBatchData {
    this.wire ??= {
      count: this.count,
      bytes: this.bytes,
      producerId: idempotent ? producerId : -1,
      producerEpoch: idempotent ? producerEpoch : -1,
      baseSequence: idempotent ? this.baseSequence : -1,
      origin,
      // A batch is closed once sent, so its runs and records no longer change and can be shared.
      runs: this.runs,
      records: this.records,
    };
    return this.wire;
  }
}
