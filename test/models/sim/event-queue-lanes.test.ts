import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue, type LaneEntry, type SimEvent, Simulation } from '../../../models/sim/index.ts';

// Lanes must be invisible in the event order: an entry runs exactly where a timer pushed at add() would have run
// (by time, then by scheduling order among every event), never after it was withdrawn, and counts in size.

type Op =
  | { op: 'push'; time: number }
  | { op: 'add'; lane: number; step: number }
  | { op: 'withdraw'; pick: number }
  | { op: 'cancel'; pick: number }
  | { op: 'pop' };

const step = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }) },
  fc.double({ min: 0, max: 3, noNaN: true }),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 12 }).map((time) => ({ op: 'push' as const, time })) },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('add' as const), lane: fc.integer({ min: 0, max: 2 }), step }),
  },
  { weight: 2, arbitrary: fc.nat().map((pick) => ({ op: 'withdraw' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ op: 'cancel' as const, pick })) },
  { weight: 3, arbitrary: fc.constant({ op: 'pop' as const }) },
);

interface Item extends LaneEntry {
  id: number;
  at: number;
  lane: number;
  ev: SimEvent | undefined;
  state: 'queued' | 'ran' | 'gone';
}

function replay(ops: readonly Op[]): void {
  const q = new EventQueue();
  const ran: Item[] = [];
  const lanes = [0, 1, 2].map((i) => q.lane<Item>((e) => ran.push(e), `lane-${i}`));
  const last = [0, 0, 0];
  const all: Item[] = [];
  // Insertion order is the tie-break, so the model is a stable sort of the queued items by time.
  const model = () => all.filter((e) => e.state === 'queued').sort((a, b) => a.at - b.at);
  const item = (at: number, lane: number): Item => {
    const e: Item = {
      id: all.length,
      at,
      lane,
      ev: undefined,
      state: 'queued',
      time: 0,
      seq: 0,
      queued: false,
    };
    all.push(e);
    return e;
  };
  for (const o of ops) {
    if (o.op === 'push') {
      const e = item(o.time, -1);
      e.ev = q.push(o.time, () => ran.push(e));
    } else if (o.op === 'add') {
      last[o.lane]! += o.step;
      lanes[o.lane]!.add(last[o.lane]!, item(last[o.lane]!, o.lane));
    } else if (o.op === 'withdraw' || o.op === 'cancel') {
      const lanesOnly = all.filter((e) => (o.op === 'withdraw' ? e.lane >= 0 : e.lane < 0));
      const e = lanesOnly[o.pick % Math.max(1, lanesOnly.length)];
      if (e === undefined) continue;
      if (o.op === 'withdraw') lanes[e.lane]!.withdraw(e);
      else e.ev!.cancel();
      if (e.state === 'queued') e.state = 'gone';
    } else {
      const expected = model()[0];
      const ev = q.pop();
      if (expected === undefined) {
        expect(ev).toBeUndefined();
        continue;
      }
      expect(ev!.time).toBe(expected.at);
      const before = ran.length;
      (ev!.fn as (arg: unknown) => void)(ev!.arg);
      expect(ran.length).toBe(before + 1);
      expect(ran[ran.length - 1]).toBe(expected);
      expected.state = 'ran';
    }
    expect(q.size).toBe(model().length);
    expect(q.peek()?.time).toBe(model()[0]?.at);
  }
}

describe('EventQueue lanes', () => {
  it('property: lane entries and ordinary events run in (time, scheduling order); withdrawn ones never run', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => replay(ops)),
      { numRuns: 300 },
    );
  });

  it('property: the same when the FIFO compacts (over 1024 withdrawn entries ahead of live ones)', () => {
    const workload = fc.integer({ min: 1100, max: 1500 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        // Withdraw a prefix of more than 1024 entries, in any order, with adds and pops in between.
        prefix: fc.integer({ min: 1030, max: n - 20 }).chain((k) =>
          fc.shuffledSubarray(
            Array.from({ length: k }, (_, i) => i),
            { minLength: k, maxLength: k },
          ),
        ),
        noise: fc.array(fc.nat(99), { minLength: 64, maxLength: 64 }),
      }),
    );
    fc.assert(
      fc.property(workload, ({ n, prefix, noise }) => {
        const ops: Op[] = Array.from({ length: n }, () => ({ op: 'add' as const, lane: 0, step: 0.001 }));
        prefix.forEach((pick, i) => {
          ops.push({ op: 'withdraw', pick });
          const x = noise[i % noise.length]!;
          if (x < 3) ops.push({ op: 'add', lane: 0, step: 0.5 });
          else if (x < 5) ops.push({ op: 'push', time: x });
        });
        for (let i = 0; i < 40; i++) ops.push({ op: 'pop' });
        replay(ops);
      }),
      { numRuns: 5, endOnFailure: true },
    );
  });

  it('refuses an entry earlier than the one before it', () => {
    const q = new EventQueue();
    const lane = q.lane<LaneEntry>(() => {}, 'l');
    lane.add(5, { time: 0, seq: 0, queued: false });
    expect(() => lane.add(4, { time: 0, seq: 0, queued: false })).toThrow(/before the previous entry/);
  });

  it('on a simulation, an entry is one event at its time, and a withdrawn one leaves nothing pending', () => {
    const sim = new Simulation();
    const log: string[] = [];
    const lane = sim.lane<LaneEntry & { name: string }>((e) => log.push(`${e.name}@${sim.now}`), 'test.lane');
    const a = { name: 'a', time: 0, seq: 0, queued: false };
    const b = { name: 'b', time: 0, seq: 0, queued: false };
    lane.add(10, a);
    sim.schedule(10, () => log.push(`timer@${sim.now}`));
    lane.add(10, b);
    expect(sim.pendingEvents).toBe(3);
    lane.withdraw(a);
    expect(sim.pendingEvents).toBe(2);
    sim.runToCompletion();
    expect(log).toEqual(['timer@10', 'b@10']);
    expect(sim.eventCount).toBe(2);
    lane.add(20, a);
    lane.withdraw(a);
    expect(sim.pendingEvents).toBe(0);
    expect(sim.nextEventTime).toBeUndefined();
  });
});
