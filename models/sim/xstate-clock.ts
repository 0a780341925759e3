// The bridge between xstate v5 and the kernel: xstate asks its `clock` for timeouts when a machine has delayed
// transitions (`after`) or delayed events; here they become kernel timers, so machines run on virtual time.
import { type Actor, type ActorOptions, type AnyActorLogic, createActor } from 'xstate';
import type { Timer } from './event-queue.ts';
import type { Simulation } from './simulation.ts';

export interface SimClock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): Timer;
  clearTimeout(id: Timer): void;
}

export function simClock(sim: Simulation): SimClock {
  return {
    setTimeout: (fn, timeout) => sim.schedule(Math.max(0, timeout), () => fn(), 'xstate.timer'),
    clearTimeout: (timer) => timer?.cancel(),
  };
}

/** createActor with the simulation's clock. Start it yourself (actor.start()). */
export function createSimActor<L extends AnyActorLogic>(
  sim: Simulation,
  logic: L,
  options?: ActorOptions<L>,
): Actor<L> {
  return createActor(logic, { ...options, clock: simClock(sim) } as ActorOptions<L>);
}
