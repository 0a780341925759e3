import { describe, expect, it } from 'vitest';
import { InvariantViolation, Simulation, SimulationError } from '../../../models/sim/index.ts';
import { pingWorld } from './ping-workload.ts';

describe('onAfterEvent', () => {
  it('is called once after every event, seeing the time and the state that event left', () => {
    const sim = new Simulation({ seed: 1 });
    let counter = 0;
    const seen: [number, number, number][] = [];
    sim.onAfterEvent(() => seen.push([sim.now, sim.eventCount, counter]));
    sim.schedule(5, () => counter++);
    sim.schedule(5, () => (counter += 10));
    sim.schedule(7, () => (counter += 100));
    sim.runFor(10);
    expect(seen).toEqual([
      [5, 1, 1],
      [5, 2, 11],
      [7, 3, 111],
    ]);
  });

  it('runs after every event whatever invariantEvery is, after the invariants', () => {
    const sim = new Simulation({ seed: 1, invariantEvery: 3 });
    const calls: string[] = [];
    sim.addInvariant('counted', () => {
      calls.push(`invariant@${sim.eventCount}`);
      return undefined;
    });
    sim.onAfterEvent(() => calls.push(`hook@${sim.eventCount}`));
    for (let i = 1; i <= 4; i++) sim.schedule(i, () => {});
    sim.runFor(10);
    expect(calls).toEqual(['hook@1', 'hook@2', 'invariant@3', 'hook@3', 'hook@4']);
  });

  it('is not called for an event whose invariant failed', () => {
    const sim = new Simulation({ seed: 1 });
    let hooked = 0;
    sim.addInvariant('second event breaks it', () => sim.eventCount < 2);
    sim.onAfterEvent(() => hooked++);
    sim.schedule(1, () => {});
    sim.schedule(2, () => {});
    expect(() => sim.runFor(5)).toThrow(InvariantViolation);
    expect(hooked).toBe(1);
  });

  it('runs before runUntil checks its predicate, so the hook has seen the event that met it', () => {
    const sim = new Simulation({ seed: 1 });
    let value = 0;
    let hookSaw = -1;
    sim.onAfterEvent(() => {
      hookSaw = value;
    });
    for (let i = 1; i <= 10; i++) sim.schedule(i, () => value++);
    const mismatches: string[] = [];
    const at = sim.runUntil(() => {
      // runUntil also asks before the first event, when no hook has run yet.
      if (sim.eventCount > 0 && hookSaw !== value) mismatches.push(`${hookSaw} != ${value}`);
      return value === 4;
    });
    expect(mismatches).toEqual([]);
    expect(at).toBe(4);
    expect(hookSaw).toBe(4);
  });

  it('stops being called once removed, also when a hook removes itself or another during the calls', () => {
    const sim = new Simulation({ seed: 1 });
    const calls: string[] = [];
    let removeB: () => void = () => {};
    const removeA = sim.onAfterEvent(() => {
      calls.push('a');
      removeA();
      removeB();
    });
    removeB = sim.onAfterEvent(() => calls.push('b'));
    const removeC = sim.onAfterEvent(() => calls.push('c'));
    sim.schedule(1, () => {});
    sim.schedule(2, () => {});
    sim.runFor(1);
    // The hooks of an event are the ones registered when it ran: b was removed by a but still runs this once.
    expect(calls).toEqual(['a', 'b', 'c']);
    sim.runFor(1);
    expect(calls).toEqual(['a', 'b', 'c', 'c']);
    removeC();
    removeC(); // removing twice is harmless
    sim.schedule(1, () => {});
    sim.runFor(1);
    expect(calls).toHaveLength(4);
  });

  it('a hook that throws stops the run with a SimulationError naming the seed and the event', () => {
    const sim = new Simulation({ seed: 'hooked' });
    sim.onAfterEvent(() => {
      if (sim.now === 2) throw new Error('sampler broke');
    });
    sim.schedule(1, () => {}, 'first');
    sim.schedule(2, () => {}, 'second');
    let error: unknown;
    try {
      sim.runFor(5);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    const message = (error as Error).message;
    expect(message).toContain('sampler broke');
    expect(message).toContain('after-event hook (after second)');
    expect(message).toContain('replay with seed hooked');
    expect((error as SimulationError).context).toMatchObject({ time: 2, event: 2 });
  });

  it('a passive hook leaves the run unchanged: same events, same trace hash', () => {
    const plain = pingWorld({ seed: 9 });
    plain.sim.runFor('5s');
    const watched = pingWorld({ seed: 9 });
    let calls = 0;
    watched.sim.onAfterEvent(() => calls++);
    watched.sim.runFor('5s');
    expect(calls).toBe(watched.sim.eventCount);
    expect(watched.sim.eventCount).toBe(plain.sim.eventCount);
    expect(watched.sim.trace.hash).toBe(plain.sim.trace.hash);
    expect(plain.sim.eventCount).toBeGreaterThan(100);
  });
});
