// The run's fingerprint: a rolling hash over every kernel event (time, kind, node), every trace event and the
// data the models report. Known answers are recomputed outside JS by scripts/fingerprint-reference.py.
import { describe, expect, it } from 'vitest';
import { Fingerprint, SimNode, Simulation } from '../../../models/sim/index.ts';

class Idle extends SimNode {}

describe('Fingerprint', () => {
  it('a known answer pins the mixing (every golden fingerprint depends on it)', () => {
    const f = new Fingerprint();
    f.event(0, 'node.start', 'broker-1');
    f.event(1.5, 'net.deliver', 'broker-2');
    f.event(2 ** 40 + 0.25, undefined, undefined);
    f.text('broker-1/topic:0');
    f.number(7);
    f.word(-1);
    f.content('{"x":"é"}');
    expect(f.hash).toBe('b317e9e01860d43b');
  });

  it('reading the hash changes nothing', () => {
    const f = new Fingerprint();
    f.word(1);
    const once = f.hash;
    expect(f.hash).toBe(once);
    f.word(2);
    const g = new Fingerprint();
    g.word(1);
    g.word(2);
    expect(f.hash).toBe(g.hash);
  });

  it("an event's time, kind and node each count, and so does the order", () => {
    const of = (events: [number, string, string][]) => {
      const f = new Fingerprint();
      for (const [t, k, n] of events) f.event(t, k, n);
      return f.hash;
    };
    const base = of([
      [1, 'a', 'n1'],
      [2, 'b', 'n2'],
    ]);
    const variants = [
      of([
        [1, 'a', 'n1'],
        [2.000000001, 'b', 'n2'],
      ]),
      of([
        [1, 'a', 'n1'],
        [2, 'c', 'n2'],
      ]),
      of([
        [1, 'a', 'n1'],
        [2, 'b', 'n1'],
      ]),
      of([
        [2, 'b', 'n2'],
        [1, 'a', 'n1'],
      ]),
      of([[1, 'a', 'n1']]),
      // kind and node are not interchangeable
      of([
        [1, 'n1', 'a'],
        [2, 'b', 'n2'],
      ]),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    expect(
      of([
        [1, 'a', 'n1'],
        [2, 'b', 'n2'],
      ]),
    ).toBe(base);
  });

  it('a string cache that starts over gives the same answers', () => {
    const a = new Fingerprint();
    const b = new Fingerprint();
    for (let i = 0; i < 10_000; i++) a.text(`label-${i}`);
    for (let i = 0; i < 10_000; i++) b.text(`label-${i}`);
    a.text('label-1');
    b.text('label-1');
    expect(a.hash).toBe(b.hash);
  });
});

describe("a simulation's fingerprint", () => {
  function world(extraTimer: boolean, label = 'tick') {
    const sim = new Simulation({ seed: 5 });
    const n = new Idle(sim, 'n1');
    n.start();
    n.every(100, () => n.emit('work.done'), 'work');
    // A timer that changes no state and emits no trace event: only the kernel-event fingerprint sees it.
    if (extraTimer) n.schedule(250, () => {}, label);
    sim.runFor('1s');
    return sim;
  }

  it('the same run twice hashes the same', () => {
    expect(world(true).trace.hash).toBe(world(true).trace.hash);
    expect(world(true).fingerprint.hash).toBe(world(true).trace.hash);
  });

  it('covers kernel events that leave no trace event (the old trace hash could not see them)', () => {
    const without = world(false);
    const withTimer = world(true);
    const seen = (s: Simulation) => s.trace.recent().map((e) => JSON.stringify(e));
    expect(seen(withTimer)).toEqual(seen(without));
    expect(withTimer.eventCount).toBe(without.eventCount + 1);
    expect(withTimer.trace.hash).not.toBe(without.trace.hash);
    // Same number of events, only the kind of one differs.
    expect(world(true, 'tock').trace.hash).not.toBe(withTimer.trace.hash);
  });

  it('covers the node an event belongs to', () => {
    const run = (node: string) => {
      const sim = new Simulation({ seed: 5 });
      for (const id of ['n1', 'n2']) new Idle(sim, id).start();
      sim.schedule(10, () => {}, 'x', node);
      sim.runFor('1s');
      return sim.trace.hash;
    };
    expect(run('n1')).not.toBe(run('n2'));
    expect(run('n1')).toBe(run('n1'));
  });
});
