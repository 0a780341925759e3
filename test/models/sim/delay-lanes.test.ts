import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DelayedEntry,
  DelayLanes,
  type Lane,
  Simulation,
  type Timer,
} from '../../../models/sim/index.ts';

class Entry implements DelayedEntry {
  time = 0;
  seq = 0;
  queued = false;
  lane: Lane<DelayedEntry> | undefined = undefined;
  timer: Timer | undefined = undefined;
  constructor(
    readonly id: number,
    readonly node: string,
  ) {}
}

type Op = { at: number; delay: number; withdraw?: number };

/**
 * Runs the same schedule twice: once with DelayLanes (`maxLanes` lanes, the rest on timers), once with a plain
 * timer per entry. Other events (a timer at each step) interleave. Returns what ran, in order, and the
 * run's fingerprint.
 */
function run(ops: readonly Op[], lanes: boolean, maxLanes: number): { ran: string[]; hash: string } {
  const sim = new Simulation({ seed: 1 });
  const ran: string[] = [];
  const entries: Entry[] = [];
  const timers: Timer[] = [];
  const delays = new DelayLanes<Entry>(sim, (e) => ran.push(`e${e.id}@${sim.now}`), 'test.wait', maxLanes);
  for (const [i, op] of ops.entries()) {
    sim.scheduleAt(
      op.at,
      () => {
        const e = new Entry(i, `n${i % 3}`);
        entries.push(e);
        if (lanes) delays.add(op.delay, e);
        else
          timers.push(
            sim.scheduleCall(op.delay, (x: Entry) => ran.push(`e${x.id}@${sim.now}`), e, 'test.wait', e.node),
          );
        if (op.withdraw !== undefined && op.withdraw < entries.length) {
          if (lanes) delays.withdraw(entries[op.withdraw]!);
          else timers[op.withdraw]!.cancel();
        }
        ran.push(`op${i}@${sim.now}`);
      },
      'test.op',
    );
  }
  sim.runToCompletion();
  return { ran, hash: sim.trace.hash };
}

describe('DelayLanes', () => {
  it('runs entries at the same times, in the same order among all events, as a timer each would', () => {
    const op = fc.record({
      at: fc.integer({ min: 0, max: 20 }),
      delay: fc.constantFrom(0, 1, 5, 5, 5, 7.5, 500),
      withdraw: fc.option(fc.nat({ max: 40 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (raw, maxLanes) => {
        // Ops are scheduled in time order, as a model adds its waits while the clock moves on.
        const ops = [...raw].sort((a, b) => a.at - b.at);
        const timers = run(ops, false, maxLanes);
        const lanes = run(ops, true, maxLanes);
        expect(lanes.ran).toEqual(timers.ran);
        expect(lanes.hash).toBe(timers.hash);
      }),
      { numRuns: 200 },
    );
  });

  it('a withdrawn entry never runs, and withdrawing twice or after it ran is harmless', () => {
    const sim = new Simulation();
    const ran: number[] = [];
    const delays = new DelayLanes<Entry>(sim, (e) => ran.push(e.id), 'test.wait');
    const a = new Entry(1, 'n');
    const b = new Entry(2, 'n');
    delays.add(10, a);
    delays.add(10, b);
    delays.withdraw(a);
    delays.withdraw(a);
    sim.runFor(10);
    expect(ran).toEqual([2]);
    delays.withdraw(b);
    expect(sim.pendingEvents).toBe(0);
  });

  it('past maxLanes distinct delays an entry gets a timer, which withdraw cancels', () => {
    const sim = new Simulation();
    const ran: number[] = [];
    const delays = new DelayLanes<Entry>(sim, (e) => ran.push(e.id), 'test.wait', 1);
    const a = new Entry(1, 'n');
    const b = new Entry(2, 'n');
    const c = new Entry(3, 'n');
    delays.add(5, a);
    delays.add(3, b);
    delays.add(4, c);
    expect(a.lane).toBeDefined();
    expect(b.timer).toBeDefined();
    delays.withdraw(c);
    sim.runFor(10);
    expect(ran).toEqual([2, 1]);
    expect(() => delays.add(-1, new Entry(4, 'n'))).toThrow(/delay must be >= 0/);
  });
});
