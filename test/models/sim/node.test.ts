import { describe, expect, it } from 'vitest';
import { constant, type NodeId, SimNode, Simulation } from '../../../models/sim/index.ts';
import { Recorder, recorders } from './recorder.ts';

/** A node whose volatile state is rebuilt on start and whose `disk` keeps what it "fsynced". */
class Counter extends SimNode {
  volatile: string[] = [];
  hooks: string[] = [];
  ticks = 0;
  protected override onStart(): void {
    this.volatile = [];
    this.hooks.push(`start#${this.incarnation}`);
  }
  protected override onCrash(): void {
    this.hooks.push('crash');
  }
  protected override onStop(): void {
    this.hooks.push(`stop(up=${this.up})`);
  }
  protected override onMessage(_from: NodeId, payload: unknown): void {
    this.volatile.push(String(payload));
    this.disk.set('last', payload);
  }
}

describe('SimNode lifecycle', () => {
  it('start, crash, restart: incarnation goes up and only disk survives', () => {
    const sim = new Simulation({ defaultLatency: constant(1) });
    const [peer] = recorders(sim, 'peer');
    const n = new Counter(sim, 'n');
    expect(n.status).toBe('new');
    n.start();
    expect(n.incarnation).toBe(1);
    peer!.sendMessage('n', 'm1');
    sim.runFor(10);
    expect(n.volatile).toEqual(['m1']);
    n.crash();
    expect(n.status).toBe('crashed');
    expect(n.up).toBe(false);
    n.start();
    expect(n.incarnation).toBe(2);
    expect(n.volatile).toEqual([]);
    expect(n.disk.get('last')).toBe('m1');
    n.restart();
    expect(n.incarnation).toBe(3);
    expect(n.hooks).toEqual(['start#1', 'crash', 'start#2', 'crash', 'start#3']);
    const own = sim.trace.recent('node.').filter((e) => e.node === 'n');
    expect(own.map((e) => [e.kind, e.incarnation])).toEqual([
      ['node.start', 1],
      ['node.crash', undefined],
      ['node.start', 2],
      ['node.crash', undefined],
      ['node.start', 3],
    ]);
  });

  it('stop() runs onStop while still up, then goes down; crash or stop of a down node does nothing', () => {
    const sim = new Simulation();
    const n = new Counter(sim, 'n');
    n.start();
    n.stop();
    expect(n.status).toBe('stopped');
    n.crash();
    n.stop();
    expect(n.status).toBe('stopped');
    expect(n.hooks).toEqual(['start#1', 'stop(up=true)']);
    n.start();
    expect(n.up).toBe(true);
    expect(() => n.start()).toThrow(/already up/);
  });

  it('a crashed node receives nothing: its handlers are not called', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    a!.sendMessage('b', 'before');
    b!.crash();
    a!.sendMessage('b', 'during');
    const r = a!.ask('b', 'request during');
    sim.runFor('1s');
    expect(b!.messages).toEqual([]);
    expect(b!.requests).toEqual([]);
    // A request to it resolves `disconnected` after a round trip (the connection is refused).
    expect(r).toEqual({ outcome: { ok: false, error: 'disconnected' }, at: 10 });
  });

  it('a crashed node sends nothing', () => {
    const sim = new Simulation();
    const [a, b] = recorders(sim, 'a', 'b');
    a!.crash();
    expect(a!.sendMessage('b', 'x')).toBe(false);
    sim.runFor(10);
    expect(b!.messages).toEqual([]);
  });

  it("a node's timers and periodic tasks never run after it crashes, not even after a restart", () => {
    const sim = new Simulation();
    const n = new Counter(sim, 'n');
    n.start();
    const log: string[] = [];
    n.schedule(100, () => log.push('one-shot'));
    n.every(10, () => log.push(`tick@${sim.now}`));
    sim.runFor(25);
    expect(log).toEqual(['tick@10', 'tick@20']);
    n.crash();
    sim.runFor(50);
    n.start();
    sim.runFor(500);
    expect(log).toEqual(['tick@10', 'tick@20']);
    // A timer set by the new incarnation runs.
    n.schedule(1, () => log.push('new incarnation'));
    sim.runFor(1);
    expect(log.at(-1)).toBe('new incarnation');
  });

  it('every() starts after firstDelay, keeps going until cancelled, and refuses a non-positive interval', () => {
    const sim = new Simulation();
    const n = new Counter(sim, 'n');
    n.start();
    const at: number[] = [];
    const p = n.every(10, () => at.push(sim.now), 'tick', 3);
    sim.runFor(35);
    expect(at).toEqual([3, 13, 23, 33]);
    p.cancel();
    sim.runFor(100);
    expect(at).toEqual([3, 13, 23, 33]);
    // Cancelling from inside the callback stops it too.
    let k = 0;
    const q = n.every(5, () => {
      if (++k === 2) q.cancel();
    });
    sim.runFor(100);
    expect(k).toBe(2);
    expect(() => n.every(0, () => {})).toThrow(RangeError);
  });

  it('pending request callbacks never run after the sender crashes, even once it is back', () => {
    const outcomes = (crash: boolean) => {
      const sim = new Simulation({ defaultLatency: constant(5) });
      const [a, , silent] = recorders(sim, 'a', 'echo', 'silent');
      silent!.replyPolicy = 'never';
      new Recorder(sim, 'down'); // registered, never started: refuses connections
      const asks = [a!.ask('echo', 'q'), a!.ask('silent', 'q', 50), a!.ask('down', 'q')];
      sim.runFor(3);
      if (crash) {
        a!.crash();
        sim.runFor(2);
        a!.start();
      }
      sim.runFor('1s');
      return asks.map((r) => r.outcome);
    };
    // Without the crash, each would resolve: a response, a timeout, a refused connection.
    expect(outcomes(false)).toEqual([
      { ok: true, response: { echo: 'q' } },
      { ok: false, error: 'timeout' },
      { ok: false, error: 'disconnected' },
    ]);
    expect(outcomes(true)).toEqual([undefined, undefined, undefined]);
  });

  it('a reply from before a crash is not sent, even after a restart', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = 'never';
    const r = a!.ask('b', 'q', 1_000);
    sim.runFor(10);
    expect(b!.requests).toHaveLength(1);
    b!.restart();
    b!.pendingReplies[0]!('from the old incarnation');
    sim.runFor('2s');
    // The crash reset the connection: the sender hears `disconnected`, never the stale reply.
    expect(r.outcome).toEqual({ ok: false, error: 'disconnected' });
    expect(sim.network.stats.sent).toBe(1);
  });

  it('a request held by a node that crashes before answering resolves as disconnected', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = { afterMs: 20 };
    const r = a!.ask('b', 'q', 500);
    sim.runFor(10);
    b!.crash();
    sim.runFor('1s');
    // The connection resets at the crash (t=10) and the sender learns of it one link latency later.
    expect(r).toEqual({ outcome: { ok: false, error: 'disconnected' }, at: 15 });
  });

  it("random(name) is the node's own stream in the simulation's Rng", () => {
    const sim = new Simulation({ seed: 5 });
    const n = new Counter(sim, 'broker-2');
    expect(n.random('net')).toBe(sim.rng.stream('broker-2/net'));
  });

  it('emit() traces from the node', () => {
    const sim = new Simulation();
    const n = new Counter(sim, 'n');
    sim.runFor(7);
    n.emit('custom.thing', { x: 1 });
    expect(sim.trace.recent('custom')).toEqual([{ t: 7, kind: 'custom.thing', node: 'n', x: 1 }]);
  });
});
