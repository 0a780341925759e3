// Workflow B's load producer (scenarios/bend-ingest-partition-expansion.yaml): record i has sequence start+i, goes to
// partition sequence % partitions, key `key-<sequence>`, value
// {"sequence":N,"partition":P,"name":"load-%08d","payload":"abcdefghijklmnopqrstuvwxyz0123456789"}. It hands the
// records to the producer as fast as the producer's queue takes them (the Go program loops over Produce; librdkafka
// queues at most 100,000 messages), then waits for the deliveries (Flush(60000)); the result is what it prints:
// produced, remaining, failed, elapsed.
import { type DeliveryResult, type Producer, recordsDue } from '../clients/index.ts';

export interface ExplicitProducerOptions {
  topic: string;
  /** First sequence number. */
  start: number;
  count: number;
  /** Partition count the program is told (it does not ask the cluster). */
  partitions: number;
  /** Flush timeout: records not delivered by then are `remaining`. Default 60 s. */
  flushTimeoutMs?: number;
  /**
   * Sequences written as broken JSON (the value cut before its closing brace), the fault of a bad upstream
   * producer: the sink cannot build the batch that holds one, and loses that whole batch.
   */
  invalidJson?: readonly number[];
  /**
   * Records per second, sent in 10 ms steps; without it every record is handed to the producer at once, as the
   * Go program does. A paced load keeps batches in flight across a rebalance (what-if variants).
   */
  rate?: number;
}

/** How often a paced run hands the records that are due to the producer. */
const PACE_TICK_MS = 10;

/**
 * Records an unpaced run has handed to the producer and not yet seen settled, at most: librdkafka's
 * `queue.buffering.max.messages` default (100000), past which its Produce() refuses with QUEUE_FULL and a
 * program that loops over Produce waits for deliveries. So a run of 100 million records streams through a
 * bounded queue instead of building every record at once; a run of up to this many behaves as before.
 */
export const EXPLICIT_PRODUCER_QUEUE = 100_000;

export interface ExplicitProducerResult {
  produced: number;
  remaining: number;
  failed: number;
  elapsedMs: number;
}

/** A value that is not JSON: sequence `n`'s value without its closing brace. */
export function invalidRecordValue(n: number, p: number): string {
  return loadRecordValue(n, p).slice(0, -1);
}

/** The value of sequence `n` on partition `p`, byte for byte as the Go program formats it. */
export function loadRecordValue(n: number, p: number): string {
  return `{"sequence":${n},"partition":${p},"name":"load-${String(n).padStart(8, '0')}","payload":"abcdefghijklmnopqrstuvwxyz0123456789"}`;
}

export class ExplicitProducerRun {
  delivered = 0;
  failed = 0;
  startedAt = 0;
  finishedAt: number | undefined;
  private readonly listeners: ((r: ExplicitProducerResult) => void)[] = [];
  private readonly invalid: ReadonlySet<number>;

  constructor(
    readonly producer: Producer,
    readonly options: ExplicitProducerOptions,
  ) {
    this.invalid = new Set(options.invalidJson ?? []);
  }

  /** Called once with the result, when every record is delivered or failed, or the flush timed out. */
  onDone(listener: (r: ExplicitProducerResult) => void): void {
    this.listeners.push(listener);
  }

  get done(): boolean {
    return this.finishedAt !== undefined;
  }

  private handedOver = 0;

  /** Records handed to the producer so far. */
  get sent(): number {
    return this.handedOver;
  }

  start(): void {
    const { count, rate } = this.options;
    const p = this.producer;
    this.startedAt = p.sim.now;
    if (rate === undefined) {
      this.sendRange(0, Math.min(count, EXPLICIT_PRODUCER_QUEUE));
      if (this.sent >= count) this.flushAndWait();
      return;
    }
    let sent = 0;
    const tick = () => {
      const due = recordsDue(p.sim.now - this.startedAt, rate, count);
      if (due > sent) this.sendRange(sent, due);
      sent = Math.max(sent, due);
      if (sent < count) return;
      ticker.cancel();
      this.flushAndWait();
    };
    const ticker = p.every(PACE_TICK_MS, tick, 'explicit-producer.pace');
    tick();
  }

  /** Hands records `from`..`to`-1 (indexes into the run) to the producer. */
  private sendRange(from: number, to: number): void {
    const { topic, start, count, partitions } = this.options;
    const invalid = this.invalid;
    const p = this.producer;
    // The producer calls a record's callback once, with its batch's result.
    const settle = (r: DeliveryResult) => {
      if (r.error) this.failed++;
      else this.delivered++;
      const settled = this.delivered + this.failed;
      if (settled >= count) this.finish();
      else if (
        this.options.rate === undefined &&
        this.sent < count &&
        this.sent - settled <= EXPLICIT_PRODUCER_QUEUE / 2
      ) {
        // Half the queue drained: the program's Produce loop goes on.
        this.sendRange(this.sent, Math.min(count, settled + EXPLICIT_PRODUCER_QUEUE));
        if (this.sent >= count) this.flushAndWait();
      }
    };
    this.handedOver = Math.max(this.handedOver, to);
    for (let i = from; i < to; i++) {
      const sequence = start + i;
      const partition = sequence % partitions;
      p.send(
        invalid.has(sequence)
          ? { topic, partition, key: `key-${sequence}`, value: invalidRecordValue(sequence, partition) }
          : // loadRecordValue's text is JSON by construction: the sink need not parse it again.
            {
              topic,
              partition,
              key: `key-${sequence}`,
              value: loadRecordValue(sequence, partition),
              valueIsJson: true,
            },
        settle,
      );
    }
  }

  /** Flush(timeout): records not delivered when it expires are `remaining`. */
  private flushAndWait(): void {
    const p = this.producer;
    p.flush();
    p.schedule(this.options.flushTimeoutMs ?? 60_000, () => this.finish(), 'explicit-producer.flush-timeout');
  }

  private finish(): void {
    if (this.finishedAt !== undefined) return;
    this.finishedAt = this.producer.sim.now;
    const r = this.result();
    for (const l of this.listeners) l(r);
  }

  result(): ExplicitProducerResult {
    const end = this.finishedAt ?? this.producer.sim.now;
    const remaining = this.options.count - this.delivered - this.failed;
    // The Go program prints produced = count - remaining (failed deliveries included) and failed apart.
    return {
      produced: this.options.count - remaining,
      remaining,
      failed: this.failed,
      elapsedMs: end - this.startedAt,
    };
  }
}
