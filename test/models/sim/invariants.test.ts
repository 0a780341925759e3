import { describe, expect, it } from 'vitest';
import { InvariantViolation, Simulation, type TraceEvent } from '../../../models/sim/index.ts';
import { pingWorld } from './ping-workload.ts';

/** Runs the ping workload with an invariant that some seed-dependent draw eventually breaks. */
function violation(seed: number | string, invariantEvery = 1): InvariantViolation {
  const { sim, nodes } = pingWorld({ seed, invariantEvery });
  sim.addInvariant('rtt-below-12ms', () => {
    const slow = nodes.find((n) => n.lastRtt >= 12);
    return slow && `${slow.id} saw a round trip of ${slow.lastRtt}ms`;
  });
  try {
    sim.runFor('8s');
  } catch (e) {
    expect(e).toBeInstanceOf(InvariantViolation);
    return e as InvariantViolation;
  }
  throw new Error(`seed ${seed}: the invariant held for the whole run`);
}

describe('invariants', () => {
  it('a violation names the invariant, the detail, the seed, the virtual time and the event number', () => {
    const v = violation(42);
    expect(v.invariant).toBe('rtt-below-12ms');
    expect(v.message).toMatch(/^invariant rtt-below-12ms violated: n\d saw a round trip of [\d.]+ms/);
    expect(v.message).toContain('seed 42');
    expect(v.message).toContain(`virtual time ${Number(v.context.time.toFixed(3))}ms`);
    expect(v.message).toMatch(/virtual time \d+\.\d{1,3}ms/);
    expect(v.message).toContain(`event #${v.context.event}`);
    expect(v.message).toContain('replay with seed 42');
    expect(v.context.event).toBeGreaterThan(1);
  });

  it('re-running with the seed from the message reproduces it: same event number, same time', () => {
    const first = violation(42);
    const seed = /replay with seed (\S+)$/.exec(first.message)![1]!;
    const again = violation(seed);
    expect(again.context).toEqual(first.context);
    expect(again.message).toBe(first.message);
    // The violation really depends on the seed.
    const others = [7, 43, 'abc'].map((s) => violation(s).context);
    for (const c of others) expect(c.time).not.toBe(first.context.time);
  });

  it('with invariantEvery N the check runs after every Nth event, and no others', () => {
    const sim = new Simulation({ invariantEvery: 7 });
    const checkedAt: number[] = [];
    sim.addInvariant('count', () => {
      checkedAt.push(sim.eventCount);
      return true;
    });
    for (let i = 1; i <= 100; i++) sim.schedule(i, () => {});
    sim.runToCompletion();
    expect(checkedAt).toEqual(Array.from({ length: 14 }, (_, i) => (i + 1) * 7));
  });

  it('with invariantEvery N a violation surfaces at the next multiple of N, reproducibly', () => {
    const every1 = violation(42, 1);
    const every10 = violation(42, 10);
    expect(every10.context.event % 10).toBe(0);
    expect(every10.context.event).toBeGreaterThanOrEqual(every1.context.event);
    expect(every10.context.event).toBeLessThan(every1.context.event + 10);
    expect(violation(42, 10).context).toEqual(every10.context);
  });

  it('true or undefined pass; false and a string fail; the violation is traced; removal works', () => {
    const sim = new Simulation({ seed: 's' });
    const traced: TraceEvent[] = [];
    sim.trace.subscribe((e) => traced.push(e));
    let state: string | boolean | undefined = true;
    const remove = sim.addInvariant('state', () => state);
    sim.schedule(1, () => {});
    sim.runFor(1);
    state = undefined;
    sim.checkInvariants();
    state = false;
    expect(() => sim.checkInvariants()).toThrow('invariant state violated: check returned false');
    state = 'isr is empty';
    expect(() => sim.checkInvariants()).toThrow(/invariant state violated: isr is empty \(seed s, /);
    expect(traced.filter((e) => e.kind === 'invariant.violated')).toEqual([
      { t: 1, kind: 'invariant.violated', invariant: 'state', detail: 'check returned false' },
      { t: 1, kind: 'invariant.violated', invariant: 'state', detail: 'isr is empty' },
    ]);
    remove();
    sim.checkInvariants();
    sim.schedule(1, () => {});
    sim.runFor(1);
  });

  it('an event that breaks an invariant is reported at that event, before later events run', () => {
    const sim = new Simulation({ seed: 11 });
    let x = 0;
    let later = false;
    sim.addInvariant('x-below-3', () => (x < 3 ? undefined : `x is ${x}`));
    for (let i = 1; i <= 5; i++) sim.schedule(i * 10, () => x++);
    sim.schedule(100, () => {
      later = true;
    });
    expect(() => sim.runFor('1s')).toThrow(InvariantViolation);
    expect(sim.now).toBe(30);
    expect(sim.eventCount).toBe(3);
    expect(later).toBe(false);
  });
});
