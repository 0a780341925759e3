// When each producer saw its first and its last produce error, for the `errorWindow` metric: how long clients
// saw errors around a fault (a fenced broker, a leader change). It observes the error counts after every event
// (an observer hook: it changes nothing in the run), and only for the producers a scenario asks about.
import type { Simulation } from '../sim/index.ts';

export interface ErrorWindow {
  /** Virtual time of the first and the last error. */
  first: number;
  last: number;
}

export class ErrorWindows {
  readonly #windows = new Map<string, ErrorWindow>();

  constructor(sim: Simulation, producers: readonly string[], errorCount: (producer: string) => number) {
    if (producers.length === 0) return;
    const seen = new Map(producers.map((p) => [p, 0]));
    sim.onAfterEvent(() => {
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

  /** The producer's error window so far, or undefined when it saw no error (or is not tracked). */
  of(producer: string): ErrorWindow | undefined {
    return this.#windows.get(producer);
  }
}
