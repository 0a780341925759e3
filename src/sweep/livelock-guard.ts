// A sweep must not hang on one run: a model that schedules zero-delay events forever never moves virtual time,
// and the run would hold its worker until the wall-clock timeout. The guard is an invariant (the kernel's
// after-event hook) that fails once virtual time has not moved for `limit` events in a row; the runner then stops
// the run and reports it, naming the time it was stuck at.
import type { Simulation } from '../../models/sim/index.ts';

export const DEFAULT_LIVELOCK_EVENTS = 2_000_000;

/** Adds the guard to a simulation; returns the function that removes it. */
export function guardAgainstLivelock(sim: Simulation, limit: number = DEFAULT_LIVELOCK_EVENTS): () => void {
  let lastNow = Number.NaN;
  let since = 0;
  return sim.addInvariant('sweep.virtual-time-advances', () => {
    if (sim.now !== lastNow) {
      lastNow = sim.now;
      since = sim.eventCount;
      return undefined;
    }
    return sim.eventCount - since < limit
      ? undefined
      : `virtual time stuck at ${sim.now} ms for ${limit.toLocaleString('en-US')} events (a zero-delay event loop in a model)`;
  });
}
