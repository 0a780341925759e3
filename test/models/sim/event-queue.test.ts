import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { EventQueue, type SimEvent } from '../../../models/sim/index.ts';

type Op = { op: 'push'; time: number } | { op: 'pop' } | { op: 'cancel'; pick: number };

// Small integer times give many ties; a few fractional ones check that the comparison is not integer-only.
const time = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 8 }) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 8, noNaN: true }) },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: time.map((t) => ({ op: 'push' as const, time: t })) },
  { weight: 2, arbitrary: fc.constant({ op: 'pop' as const }) },
  { weight: 2, arbitrary: fc.nat().map((pick) => ({ op: 'cancel' as const, pick })) },
);

interface Entry {
  time: number;
  id: number;
  ev: SimEvent;
  state: 'queued' | 'popped' | 'cancelled';
}

/**
 * Replays `ops` against the queue and against the obvious model: the live entries, stable-sorted by time (so ties
 * keep insertion order). Cancels pick any handle ever returned, including popped and already cancelled ones,
 * which must be harmless.
 */
function replay(ops: readonly Op[]): void {
  const q = new EventQueue();
  const all: Entry[] = [];
  let nextId = 0;
  const model = () => all.filter((e) => e.state === 'queued').sort((a, b) => a.time - b.time); // Array.prototype.sort is stable
  const popOne = () => {
    const expected = model()[0];
    const got = q.pop();
    if (expected === undefined) {
      expect(got).toBeUndefined();
      return;
    }
    expect(got).toBe(expected.ev);
    expect(got!.time).toBe(expected.time);
    expected.state = 'popped';
  };
  for (const o of ops) {
    if (o.op === 'push') {
      const id = nextId++;
      const ev = q.push(o.time, () => {}, `e${id}`);
      all.push({ time: o.time, id, ev, state: 'queued' });
    } else if (o.op === 'pop') {
      popOne();
    } else if (all.length > 0) {
      const e = all[o.pick % all.length]!;
      e.ev.cancel();
      expect(e.ev.pending).toBe(false);
      if (e.state === 'queued') e.state = 'cancelled';
    }
    expect(q.size).toBe(model().length);
    expect(q.peek()).toBe(model()[0]?.ev);
  }
  // Drain: what is left comes out exactly as the stable sort says.
  const rest = model().map((e) => e.ev);
  const drained: SimEvent[] = [];
  for (let ev = q.pop(); ev; ev = q.pop()) drained.push(ev);
  expect(drained).toEqual(rest);
  expect(q.size).toBe(0);
}

describe('EventQueue', () => {
  it('pops in (time, insertion order) and skips cancelled events', () => {
    const q = new EventQueue();
    const a = q.push(5, () => {}, 'a');
    const b = q.push(1, () => {}, 'b');
    const c = q.push(5, () => {}, 'c');
    const d = q.push(1, () => {}, 'd');
    d.cancel();
    expect(q.size).toBe(3);
    expect([q.pop(), q.pop(), q.pop(), q.pop()]).toEqual([b, a, c, undefined]);
  });

  it('cancel is idempotent and a cancelled event reports not pending', () => {
    const q = new EventQueue();
    const a = q.push(1, () => {});
    q.push(2, () => {});
    expect(a.pending).toBe(true);
    a.cancel();
    a.cancel();
    expect(a.pending).toBe(false);
    expect(a.cancelled).toBe(true);
    expect(q.size).toBe(1);
  });

  it('cancelling an event that was already popped does not change the live count', () => {
    const q = new EventQueue();
    const a = q.push(1, () => {});
    q.push(2, () => {});
    expect(q.pop()).toBe(a);
    a.cancel();
    expect(q.size).toBe(1);
    expect(q.pop()?.time).toBe(2);
    expect(q.size).toBe(0);
  });

  it('property: pop order equals a stable sort by time, with cancellations interleaved', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => replay(ops)),
      { numRuns: 300 },
    );
  });

  it('property: the same holds across compaction (more than 1024 cancelled entries)', () => {
    let compactions = 0;
    const workload = fc.integer({ min: 1100, max: 2500 }).chain((pushes) =>
      fc.record({
        times: fc.array(time, { minLength: pushes, maxLength: pushes }),
        // Which entries to cancel, in what order: most of them, so dead entries outnumber live ones and pass 1024.
        cancelOrder: fc.shuffledSubarray(
          Array.from({ length: pushes }, (_, i) => i),
          { minLength: Math.ceil(pushes * 0.6) },
        ),
        pops: fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
      }),
    );
    fc.assert(
      fc.property(workload, ({ times, cancelOrder, pops }) => {
        const ops: Op[] = times.map((t) => ({ op: 'push', time: t }));
        cancelOrder.forEach((pick, i) => {
          ops.push({ op: 'cancel', pick });
          // Pops and a few more pushes interleaved with the cancellations, before and after compaction.
          if (pops[i % pops.length]! % 40 === 0) ops.push({ op: 'pop' });
          if (pops[i % pops.length]! % 90 === 1) ops.push({ op: 'push', time: times[i]! });
        });
        const spy = vi.spyOn(EventQueue.prototype as unknown as { compact(): void }, 'compact');
        try {
          replayFast(ops);
          compactions += spy.mock.calls.length;
        } finally {
          spy.mockRestore();
        }
      }),
      // Shrinking thousands of operations takes minutes; the seed and path printed on failure replay it exactly.
      { numRuns: 15, endOnFailure: true },
    );
    expect(compactions).toBeGreaterThan(0);
  });
});

/** The earliest queued entry; on equal times the first pushed (a linear scan is a stable sort's first element). */
function earliest(all: readonly Entry[]): Entry | undefined {
  let best: Entry | undefined;
  for (const e of all) if (e.state === 'queued' && (best === undefined || e.time < best.time)) best = e;
  return best;
}

/** replay() without the full model comparison after every op (too slow for thousands of ops). */
function replayFast(ops: readonly Op[]): void {
  const q = new EventQueue();
  const all: Entry[] = [];
  let live = 0;
  for (const o of ops) {
    if (o.op === 'push') {
      all.push({ time: o.time, id: all.length, ev: q.push(o.time, () => {}), state: 'queued' });
      live++;
    } else if (o.op === 'pop') {
      const expected = earliest(all);
      const got = q.pop();
      expect(got).toBe(expected?.ev);
      if (expected) {
        expected.state = 'popped';
        live--;
      }
    } else if (all.length > 0) {
      const e = all[o.pick % all.length]!;
      e.ev.cancel();
      if (e.state === 'queued') {
        e.state = 'cancelled';
        live--;
      }
    }
    expect(q.size).toBe(live);
  }
  const rest = all.filter((e) => e.state === 'queued').sort((a, b) => a.time - b.time);
  const drained: SimEvent[] = [];
  for (let ev = q.pop(); ev; ev = q.pop()) drained.push(ev);
  expect(drained).toEqual(rest.map((e) => e.ev));
}
