// A producer load at a fixed rate (a scenario's `clients.producers`, the API's `producer` workload): every 10 ms
// of virtual time it hands the producer the records that are due (events follow ticks, not records), until
// stopped or `records` were sent. Keys are none (the sticky partitioner spreads them) or `key-<n>`.
import type { Producer } from './producer.ts';

export interface SteadyLoadSpec {
  topic: string;
  /** Records per second. */
  rate: number;
  /** Value bytes per record (default 100). */
  recordSize?: number;
  /** Stop after this many (default: until stopped). */
  records?: number;
  keys?: 'none' | 'sequence';
  partition?: number;
}

/** Ticks of this many virtual ms. */
const TICK_MS = 10;

/** Records due `elapsedMs` after a paced load started at `rate` records/s: the first at once, at most `limit`. */
export function recordsDue(elapsedMs: number, rate: number, limit = Number.POSITIVE_INFINITY): number {
  return Math.min(limit, Math.floor((elapsedMs * rate) / 1000) + 1);
}

export class SteadyLoad {
  generated = 0;
  private startTime = 0;
  private ticker: { cancel(): void } | undefined;

  constructor(
    readonly producer: Producer,
    readonly spec: SteadyLoadSpec,
    /** Trace label of the tick (kept per caller so that traces stay comparable). */
    private readonly tickLabel: string,
  ) {}

  start(): void {
    this.startTime = this.producer.sim.now;
    this.tick();
    this.ticker = this.producer.every(TICK_MS, () => this.tick(), this.tickLabel);
  }

  stop(): void {
    this.ticker?.cancel();
    this.ticker = undefined;
  }

  private tick(): void {
    const { spec, producer } = this;
    const limit = spec.records ?? Number.POSITIVE_INFINITY;
    const due = recordsDue(producer.sim.now - this.startTime, spec.rate, limit) - this.generated;
    if (due > 0) {
      const size = spec.recordSize ?? 100;
      if (spec.keys === 'sequence') {
        for (let i = 0; i < due; i++) {
          producer.send({
            topic: spec.topic,
            key: `key-${this.generated + i}`,
            valueBytes: size,
            ...(spec.partition !== undefined ? { partition: spec.partition } : {}),
          });
        }
      } else producer.sendMany(spec.topic, due, size, spec.partition);
      this.generated += due;
    }
    if (this.generated >= limit) {
      producer.flush();
      this.stop();
    }
  }
}
