// Trace events seen since a point of the run, by kind prefix: what `traced` conditions read. A prefix is
// watched from the moment it is armed (a waitUntil's start, the timeline's start for an expectation, the start of
// an HTTP advance); only armed prefixes cost anything.
import type { Simulation } from '../../../models/sim/index.ts';

export class TraceWatch {
  readonly #seen = new Map<string, boolean>();
  readonly #unsubscribe: (() => void)[] = [];

  constructor(private readonly sim: Simulation) {}

  /** Starts watching `prefix` (again arming a watched prefix changes nothing). */
  arm(prefix: string): void {
    if (this.#seen.has(prefix)) return;
    this.#seen.set(prefix, false);
    const off = this.sim.trace.subscribe((e) => {
      if (e.kind.startsWith(prefix)) {
        this.#seen.set(prefix, true);
        off();
      }
    });
    this.#unsubscribe.push(off);
  }

  /** Whether an event whose kind starts with `prefix` happened since it was armed (false when never armed). */
  seen(prefix: string): boolean {
    return this.#seen.get(prefix) ?? false;
  }

  /** Stops watching everything. */
  dispose(): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe.length = 0;
  }
}
