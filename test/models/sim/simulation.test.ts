import { describe, expect, it } from 'vitest';
import { DurationError, SimTimeoutError, Simulation, SimulationError } from '../../../models/sim/index.ts';

/** Calls `fn` expecting it to throw an error of `type`, and returns the error. */
function thrown<E extends Error>(type: new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    return e as E;
  }
  throw new Error('expected an error, nothing was thrown');
}

describe('Simulation: ordering and timers', () => {
  it('runs events in time order, and same-time events in insertion order', () => {
    const sim = new Simulation();
    const log: string[] = [];
    sim.schedule(10, () => log.push('10a'));
    sim.schedule(5, () => log.push('5a'));
    sim.schedule(10, () => log.push('10b'));
    sim.scheduleAt(5, () => log.push('5b'));
    sim.schedule(0, () => log.push('0a'));
    sim.schedule(10, () => log.push('10c'));
    sim.runToCompletion();
    expect(log).toEqual(['0a', '5a', '5b', '10a', '10b', '10c']);
  });

  it('schedule(0) from inside an event runs after what is already scheduled for that time', () => {
    const sim = new Simulation();
    const log: string[] = [];
    sim.schedule(1, () => {
      log.push('a');
      sim.schedule(0, () => log.push('a-child'));
    });
    sim.schedule(1, () => log.push('b'));
    sim.runToCompletion();
    expect(log).toEqual(['a', 'b', 'a-child']);
    expect(sim.now).toBe(1);
  });

  it('a cancelled timer never fires, even when cancelled by an event at the same time', () => {
    const sim = new Simulation();
    const log: string[] = [];
    const t1 = sim.schedule(5, () => log.push('t1'));
    let t3: ReturnType<typeof sim.schedule> | undefined;
    sim.schedule(7, () => {
      log.push('t2');
      t3!.cancel();
    });
    t3 = sim.schedule(7, () => log.push('t3'));
    t1.cancel();
    expect(t1.pending).toBe(false);
    expect(sim.pendingEvents).toBe(2);
    sim.runToCompletion();
    expect(log).toEqual(['t2']);
    expect(sim.eventCount).toBe(1);
  });

  it('cancelling a timer after it ran is harmless', () => {
    const sim = new Simulation();
    let runs = 0;
    const t = sim.schedule(1, () => runs++);
    sim.schedule(2, () => {});
    sim.step();
    expect(t.pending).toBe(false);
    t.cancel();
    expect(sim.pendingEvents).toBe(1);
    sim.runToCompletion();
    expect(runs).toBe(1);
  });

  it('rejects negative delays and times in the past', () => {
    const sim = new Simulation();
    expect(() => sim.schedule(-1, () => {}, 'x')).toThrow(/delay must be >= 0, got -1 \(x\)/);
    expect(() => sim.schedule(Number.NaN, () => {})).toThrow(RangeError);
    sim.runFor(10);
    expect(() => sim.scheduleAt(9, () => {})).toThrow(/9 is before now \(10\)/);
  });

  it('nextEventTime and pendingEvents describe the queue', () => {
    const sim = new Simulation();
    expect(sim.nextEventTime).toBeUndefined();
    const a = sim.schedule(3, () => {});
    sim.schedule(8, () => {});
    expect(sim.nextEventTime).toBe(3);
    a.cancel();
    expect(sim.nextEventTime).toBe(8);
    expect(sim.pendingEvents).toBe(1);
  });
});

describe('Simulation: running', () => {
  it('step() runs exactly one event and moves the clock to it; false when nothing is left', () => {
    const sim = new Simulation();
    const log: number[] = [];
    sim.schedule(4, () => log.push(sim.now));
    sim.schedule(9, () => log.push(sim.now));
    expect(sim.step()).toBe(true);
    expect(log).toEqual([4]);
    expect(sim.now).toBe(4);
    expect(sim.eventCount).toBe(1);
    expect(sim.step()).toBe(true);
    expect(sim.now).toBe(9);
    expect(sim.step()).toBe(false);
    expect(sim.now).toBe(9);
  });

  it('runFor runs the events up to and including the end, then sets the clock to the end', () => {
    const sim = new Simulation();
    const log: number[] = [];
    for (const t of [100, 1_000, 1_001]) sim.schedule(t, () => log.push(t));
    sim.runFor('1s');
    expect(log).toEqual([100, 1_000]);
    expect(sim.now).toBe(1_000);
    sim.runFor(500);
    expect(log).toEqual([100, 1_000, 1_001]);
    expect(sim.now).toBe(1_500);
    // With nothing scheduled, the clock still moves.
    sim.runFor('2m');
    expect(sim.now).toBe(121_500);
  });

  it('runFor rejects a bad duration with a clear message', () => {
    expect(() => new Simulation().runFor('soon')).toThrow(DurationError);
    expect(() => new Simulation().runFor('soon')).toThrow(/at runFor: "soon"/);
  });

  it('runFor with maxEvents stops there and does not move the clock past events still pending', () => {
    const sim = new Simulation();
    const seen: number[] = [];
    for (const t of [1, 2, 3]) sim.schedule(t, () => seen.push(sim.now));
    sim.runFor(1_000, { maxEvents: 2 });
    expect(seen).toEqual([1, 2]);
    expect(sim.now).toBe(2);
    sim.runFor(1_000);
    expect(seen).toEqual([1, 2, 3]);
    expect(sim.now).toBe(1_002);
  });

  it('stop() from inside an event ends the run after that event, and the clock stays there', () => {
    const sim = new Simulation();
    const log: number[] = [];
    sim.schedule(10, () => log.push(10));
    sim.schedule(20, () => {
      log.push(20);
      sim.stop();
    });
    sim.schedule(30, () => log.push(30));
    sim.runFor('1s');
    expect(log).toEqual([10, 20]);
    expect(sim.now).toBe(20);
    // The next run goes on normally.
    sim.runFor('1s');
    expect(log).toEqual([10, 20, 30]);
    expect(sim.now).toBe(1_020);
  });

  it('stop() in runToCompletion and runUntil', () => {
    const sim = new Simulation({ seed: 'stopper' });
    let n = 0;
    const tick = () => {
      n++;
      if (n === 5) sim.stop();
      sim.schedule(1, tick);
    };
    sim.schedule(1, tick);
    sim.runToCompletion();
    expect(n).toBe(5);
    n = 0;
    const err = thrown(SimTimeoutError, () => sim.runUntil(() => false, { description: 'never' }));
    expect(err.message).toContain('the simulation was stopped');
    expect(n).toBe(5);
  });

  it('stop() outside a run (e.g. from an event run by step()) does not cancel the next run', () => {
    const sim = new Simulation();
    const log: number[] = [];
    sim.schedule(1, () => sim.stop());
    sim.schedule(2, () => log.push(2));
    sim.step();
    sim.runFor(10);
    expect(log).toEqual([2]);
    expect(sim.now).toBe(11);
  });

  it('runToCompletion drains the queue, or stops at maxEvents', () => {
    const sim = new Simulation();
    let n = 0;
    const tick = () => {
      if (++n < 100) sim.schedule(1, tick);
    };
    sim.schedule(1, tick);
    sim.runToCompletion({ maxEvents: 10 });
    expect(n).toBe(10);
    sim.runToCompletion();
    expect(n).toBe(100);
    expect(sim.pendingEvents).toBe(0);
    expect(sim.now).toBe(100);
  });

  it('the clock moves only through the kernel: now cannot be assigned; advanceClockTo never passes an event', () => {
    const sim = new Simulation();
    // @ts-expect-error now is read-only outside the kernel
    expect(() => (sim.now = 5)).toThrow(TypeError);
    expect(sim.now).toBe(0);
    const ran: number[] = [];
    sim.schedule(10, () => ran.push(sim.now));
    sim.advanceClockTo(7.5);
    expect(sim.now).toBe(7.5);
    expect(() => sim.advanceClockTo(11)).toThrow(/would pass the event pending at 10/);
    expect(() => sim.advanceClockTo(3)).toThrow(/before now/);
    sim.advanceClockTo(10); // up to a pending event's time is fine: it still runs, at its time
    sim.runToCompletion();
    expect(ran).toEqual([10]);
    expect(sim.now).toBe(10);
  });

  it('a run started from inside an event is refused', () => {
    const sim = new Simulation();
    sim.schedule(1, () => sim.runFor(1));
    const err = thrown(SimulationError, () => sim.runToCompletion());
    expect((err.cause as Error).message).toMatch(/already running/);
  });
});

describe('Simulation: runUntil', () => {
  it('returns the virtual time at which the condition held', () => {
    const sim = new Simulation();
    let x = 0;
    for (let t = 10; t <= 100; t += 10) sim.schedule(t, () => x++);
    expect(sim.runUntil(() => x >= 3)).toBe(30);
    expect(sim.now).toBe(30);
    expect(sim.pendingEvents).toBe(7);
  });

  it('returns at once, running nothing, when the condition already holds', () => {
    const sim = new Simulation();
    sim.schedule(5, () => {});
    expect(sim.runUntil(() => true)).toBe(0);
    expect(sim.eventCount).toBe(0);
  });

  it('a timeout names the seed, the virtual time and what it waited for', () => {
    const sim = new Simulation({ seed: 'tmo-7' });
    const tick = () => sim.schedule(100, tick);
    sim.schedule(100, tick);
    const err = thrown(SimTimeoutError, () =>
      sim.runUntil(() => false, { timeout: '5s', description: 'leader elected' }),
    );
    expect(sim.now).toBe(5_000);
    expect(err.message).toContain('timed out waiting for leader elected');
    expect(err.message).toContain('not reached within 5s');
    expect(err.message).toContain('seed tmo-7');
    expect(err.message).toContain('virtual time 5000ms');
    expect(err.context).toEqual({ seed: 'tmo-7', time: 5_000, event: 50 });
    expect(err.waitedFor).toBe('leader elected');
  });

  it('a timeout is relative to now', () => {
    const sim = new Simulation();
    const tick = () => sim.schedule(100, tick);
    sim.schedule(100, tick);
    sim.runFor('1s');
    thrown(SimTimeoutError, () => sim.runUntil(() => false, { timeout: 250 }));
    expect(sim.now).toBe(1_250);
  });

  it('maxEvents bounds the run', () => {
    const sim = new Simulation({ seed: 3 });
    const tick = () => sim.schedule(1, tick);
    sim.schedule(1, tick);
    const err = thrown(SimTimeoutError, () =>
      sim.runUntil(() => false, { maxEvents: 1_000, description: 'the impossible' }),
    );
    expect(err.message).toContain('not reached within 1000 events');
    expect(err.message).toContain('the impossible');
    expect(err.message).toContain('seed 3');
    expect(sim.eventCount).toBe(1_000);
    expect(sim.now).toBe(1_000);
  });

  it('a drained queue ends the wait with an error saying so', () => {
    const sim = new Simulation({ seed: 9 });
    sim.schedule(10, () => {});
    const err = thrown(SimTimeoutError, () => sim.runUntil(() => false, { description: 'x > 0' }));
    expect(err.message).toContain('timed out waiting for x > 0: no events left to run');
    expect(err.message).toContain('virtual time 10ms');
    expect(err.message).toContain('seed 9');
  });
});

describe('Simulation: errors inside events', () => {
  it('become SimulationError naming the seed, time, event and label, with the original as cause', () => {
    const sim = new Simulation({ seed: 'boom' });
    const original = new TypeError('bad partition');
    sim.schedule(1, () => {});
    sim.schedule(
      42,
      () => {
        throw original;
      },
      'broker-1.append',
    );
    const err = thrown(SimulationError, () => sim.runFor('1s'));
    expect(err.cause).toBe(original);
    expect(err.message).toContain('bad partition');
    expect(err.message).toContain('in event broker-1.append');
    expect(err.message).toContain('seed boom');
    expect(err.message).toContain('virtual time 42ms');
    expect(err.message).toContain('event #2');
    expect(err.context).toEqual({ seed: 'boom', time: 42, event: 2 });
    expect(err.label).toBe('broker-1.append');
  });

  it('a thrown non-Error is kept as cause too, and the simulation can go on afterwards', () => {
    const sim = new Simulation();
    sim.schedule(1, () => {
      throw 'just a string';
    });
    let after = false;
    sim.schedule(2, () => {
      after = true;
    });
    const err = thrown(SimulationError, () => sim.runToCompletion());
    expect(err.cause).toBe('just a string');
    expect(err.message).toContain('(unnamed)');
    sim.runToCompletion();
    expect(after).toBe(true);
  });

  it('step() wraps errors the same way', () => {
    const sim = new Simulation({ seed: 5 });
    sim.schedule(3, () => {
      throw new Error('x');
    });
    const err = thrown(SimulationError, () => sim.step());
    expect(err.context).toEqual({ seed: '5', time: 3, event: 1 });
  });
});
