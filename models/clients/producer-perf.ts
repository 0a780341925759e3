// The kafka-producer-perf-test workload: `numRecords` records of `recordSize` bytes at `throughput` records/s
// (-1 = as fast as the producer takes them), keyless (so the sticky partitioner spreads them). Records are
// generated in ticks of `tickMs` virtual ms, as many as are due, so the event count follows ticks and batches,
// not records. Per-record send times are exact to a tick; results arrive per batch with record runs, from which
// a reporter computes the tool's per-record statistics.
import type { Producer } from './producer.ts';
import type { DeliveryResult } from './producer-batch.ts';

export interface ProducerPerfOptions {
  topic: string;
  numRecords: number;
  /** Records per second; -1 = unthrottled. */
  throughput: number;
  recordSize: number;
  /** Generation granularity in virtual ms (default 5). */
  tickMs?: number;
  /** Java's buffer.memory: unthrottled generation stops while this many bytes are pending (default 32 MiB). */
  bufferMemory?: number;
}

export class ProducerPerfWorkload {
  readonly options: Required<ProducerPerfOptions>;
  startTime = -1;
  endTime = -1;
  generated = 0;
  completed = 0;
  private readonly doneListeners: (() => void)[] = [];
  private stopped = false;
  private ticker: { cancel(): void } | undefined;

  constructor(
    readonly producer: Producer,
    options: ProducerPerfOptions,
  ) {
    if (!(options.numRecords > 0) || !Number.isInteger(options.numRecords)) {
      throw new Error(`numRecords must be a positive integer, not ${options.numRecords}`);
    }
    if (!(options.recordSize > 0)) throw new Error(`recordSize must be > 0, not ${options.recordSize}`);
    if (!(options.throughput > 0 || options.throughput === -1)) {
      throw new Error(`throughput must be > 0 records/s, or -1 for unthrottled, not ${options.throughput}`);
    }
    this.options = { tickMs: 5, bufferMemory: 33_554_432, ...options };
    producer.onDelivery((r) => this.onResult(r));
  }

  get done(): boolean {
    return this.endTime >= 0;
  }

  onDone(listener: () => void): void {
    this.doneListeners.push(listener);
  }

  start(): void {
    if (this.startTime >= 0) throw new Error('the perf workload was already started');
    this.startTime = this.producer.sim.now;
    this.tick();
    this.ticker = this.producer.every(this.options.tickMs, () => this.tick(), 'perf-producer.tick');
  }

  /** Stops generating (records already handed to the producer still complete). */
  stop(): void {
    this.stopped = true;
    this.ticker?.cancel();
  }

  private tick(): void {
    const { numRecords, throughput, recordSize, topic, bufferMemory } = this.options;
    if (this.stopped || this.generated >= numRecords) {
      this.ticker?.cancel();
      return;
    }
    let due: number;
    if (throughput > 0) {
      const elapsed = this.producer.sim.now - this.startTime;
      due = Math.min(numRecords, Math.floor((elapsed * throughput) / 1000) + 1) - this.generated;
    } else {
      const room = Math.floor((bufferMemory - this.producer.pendingRecords * recordSize) / recordSize);
      due = Math.min(numRecords - this.generated, Math.max(0, room));
    }
    if (due <= 0) return;
    this.producer.sendMany(topic, due, recordSize);
    this.generated += due;
    if (this.generated >= numRecords) this.producer.flush();
  }

  private onResult(r: DeliveryResult): void {
    this.completed += r.count;
    if (this.completed >= this.options.numRecords && this.endTime < 0) {
      this.endTime = this.producer.sim.now;
      this.ticker?.cancel();
      for (const l of this.doneListeners) l();
    }
  }
}
