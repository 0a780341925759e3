// When each producer saw its first and its last produce error, for the `errorWindow` metric: how long clients
// saw errors around a fault (a fenced broker, a leader change). It observes the error counts after every event
// (an observer hook: it changes nothing in the run), and only for the producers a scenario asks about.
import type { DeliveryResult } from '../../models/clients/index.ts';
import type { Simulation } from '../../models/sim/index.ts';

export interface ErrorWindow {
  /** Virtual time of the first and the last error. */
  first: number;
  last: number;
}

/** A producer's delivery callbacks, once it exists (scenario clients are created when they start). */
export type DeliveryFeed = (
  producer: string,
) => { onDelivery(cb: (r: DeliveryResult) => void): void } | undefined;

export class ErrorWindows {
  readonly #windows = new Map<string, ErrorWindow>();
  /** Per producer: the longest time one partition went between two successful acknowledgements. */
  readonly #ackGaps = new Map<string, number>();

  constructor(
    sim: Simulation,
    producers: readonly string[],
    errorCount: (producer: string) => number,
    feed?: DeliveryFeed,
  ) {
    if (producers.length === 0) return;
    const seen = new Map(producers.map((p) => [p, 0]));
    const unsubscribed = new Set(feed ? producers : []);
    sim.onAfterEvent(() => {
      for (const name of unsubscribed) {
        const p = feed!(name);
        if (!p) continue;
        unsubscribed.delete(name);
        const lastAck = new Map<string, number>();
        this.#ackGaps.set(name, 0);
        p.onDelivery((r) => {
          if (r.error) return;
          const key = `${r.topic}-${r.partition}`;
          const last = lastAck.get(key);
          if (last !== undefined && r.time - last > this.#ackGaps.get(name)!)
            this.#ackGaps.set(name, r.time - last);
          lastAck.set(key, r.time);
        });
      }
      for (const [name, before] of seen) {
        const n = errorCount(name);
        if (n === before) continue;
        seen.set(name, n);
        const w = this.#windows.get(name);
        if (w) w.last = sim.now;
        else this.#windows.set(name, { first: sim.now, last: sim.now });
      }
    });
  }

  /**
   * The longest time one of the producer's partitions went between two acknowledgements: how long the producer
   * waited on a stalled partition, errors or not (a request parked on a fenced leader returns no error until its
   * timeout). Undefined when the producer is not tracked or never started.
   */
  maxAckGap(producer: string): number | undefined {
    return this.#ackGaps.get(producer);
  }

  /** The producer's error window so far, or undefined when it saw no error (or is not tracked). */
  of(producer: string): ErrorWindow | undefined {
    return this.#windows.get(producer);
  }
}
