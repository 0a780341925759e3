import { describe, expect, it } from 'vitest';
import { constant, Simulation, type TraceEvent } from '../../../models/sim/index.ts';
import { type Recorder, recorders } from './recorder.ts';

const payloads = (r: Recorder) => r.messages.map((m) => m.payload);

/** Sends one message in each direction between every pair and returns which arrived, as "a>b". */
function connectivity(sim: Simulation, nodes: Recorder[]): string[] {
  for (const n of nodes) n.messages.length = 0;
  for (const from of nodes)
    for (const to of nodes) if (from !== to) from.sendMessage(to.id, `${from.id}>${to.id}`);
  sim.runFor('1s');
  return nodes.flatMap((n) => payloads(n) as string[]).sort();
}

const allPairs = (ids: string[]) =>
  ids.flatMap((a) => ids.filter((b) => b !== a).map((b) => `${a}>${b}`)).sort();

describe('Network: delivery', () => {
  it('delivers a one-way message after the link latency', () => {
    const sim = new Simulation({ defaultLatency: constant(7) });
    const [a, b] = recorders(sim, 'a', 'b');
    expect(a!.sendMessage('b', { type: 'hello' })).toBe(true);
    sim.runFor(6);
    expect(b!.messages).toEqual([]);
    sim.runFor(1);
    expect(b!.messages).toEqual([{ from: 'a', payload: { type: 'hello' }, at: 7 }]);
    expect(sim.network.stats).toEqual({ sent: 1, delivered: 1, dropped: 0 });
  });

  it('per-link latency overrides the default, one direction only', () => {
    const sim = new Simulation({ defaultLatency: constant(1) });
    const [a, b] = recorders(sim, 'a', 'b');
    sim.network.setLinkLatency('a', 'b', constant(30));
    a!.sendMessage('b', 'ab');
    b!.sendMessage('a', 'ba');
    sim.runFor('1s');
    expect(b!.messages[0]!.at).toBe(30);
    expect(a!.messages[0]!.at).toBe(1);
  });

  it('keeps FIFO order per link even when random latency would reorder messages', () => {
    const sim = new Simulation({ seed: 3, defaultLatency: { kind: 'uniform', min: 1, max: 100 } });
    const [a, b, c] = recorders(sim, 'a', 'b', 'c');
    let i = 0;
    a!.every(1, () => {
      if (i < 500) {
        a!.sendMessage('b', i);
        a!.sendMessage('c', i);
        i++;
      }
    });
    sim.runFor('2s');
    const expected = Array.from({ length: 500 }, (_, k) => k);
    expect(payloads(b!)).toEqual(expected);
    expect(payloads(c!)).toEqual(expected);
    // The latency really was random: without the FIFO rule, later messages would have overtaken earlier ones, so
    // some arrivals were held back to the previous arrival's time.
    const at = b!.messages.map((m) => m.at);
    for (let k = 1; k < at.length; k++) expect(at[k]).toBeGreaterThanOrEqual(at[k - 1]!);
    expect(at.filter((t, k) => k > 0 && t === at[k - 1]).length).toBeGreaterThan(50);
    expect(new Set(at).size).toBeGreaterThan(30);
  });

  it('a message to a node that is not registered is dropped; an unknown sender is an error', () => {
    const sim = new Simulation();
    const [a] = recorders(sim, 'a');
    a!.sendMessage('ghost', 'x');
    sim.runFor(10);
    expect(sim.network.stats.dropped).toBe(1);
    expect(() => sim.network.send('ghost', 'a', 'x')).toThrow(/unknown node "ghost"/);
  });

  it('refuses a second node with the same id', () => {
    const sim = new Simulation();
    recorders(sim, 'a');
    expect(() => recorders(sim, 'a')).toThrow(/already on the network/);
  });

  it('traces each message when traceMessages is on', () => {
    const sim = new Simulation();
    const [a] = recorders(sim, 'a', 'b');
    sim.network.traceMessages = true;
    a!.sendMessage('b', { type: 'Produce' });
    expect(sim.trace.recent('net.send')).toEqual([
      { t: 0, kind: 'net.send', node: 'a', to: 'b', type: 'Produce' },
    ]);
  });
});

describe('Network: requests', () => {
  it('delivers the response after a round trip', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    const r = a!.ask('b', { type: 'ping' });
    sim.runFor('1s');
    expect(r).toEqual({ outcome: { ok: true, response: { echo: { type: 'ping' } } }, at: 10 });
    expect(b!.requests).toEqual([{ from: 'a', payload: { type: 'ping' }, at: 5 }]);
  });

  it('times out after timeoutMs when no answer comes, and a late answer is ignored', () => {
    const sim = new Simulation({ defaultLatency: constant(5), requestTimeoutMs: 300 });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = 'never';
    const r1 = a!.ask('b', 1, 100);
    const r2 = a!.ask('b', 2);
    sim.runFor('1s');
    expect(r1).toEqual({ outcome: { ok: false, error: 'timeout' }, at: 100 });
    expect(r2).toEqual({ outcome: { ok: false, error: 'timeout' }, at: 300 });
    for (const reply of b!.pendingReplies) reply('late');
    sim.runFor('1s');
    expect(r1.outcome).toEqual({ ok: false, error: 'timeout' });
    expect(sim.network.stats.sent).toBe(2);
  });

  it('an answer just before the timeout wins; the timeout timer is cancelled', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = { afterMs: 89 };
    const r = a!.ask('b', 'q', 100);
    sim.runFor('1s');
    expect(r).toEqual({ outcome: { ok: true, response: { echo: 'q' } }, at: 99 });
    expect(sim.pendingEvents).toBe(0);
  });

  it('replying twice sends one response', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = 'never';
    const r = a!.ask('b', 'q');
    sim.runFor(5);
    b!.pendingReplies[0]!('first');
    b!.pendingReplies[0]!('second');
    sim.runFor('1s');
    expect(r.outcome).toEqual({ ok: true, response: 'first' });
    expect(sim.network.stats).toEqual({ sent: 2, delivered: 2, dropped: 0 });
  });
});

describe('Network: request timeouts and held requests at scale', () => {
  it('an answer arriving exactly at the deadline loses to the timeout, which was set before the request left', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = { afterMs: 90 };
    const r = a!.ask('b', 'q', 100);
    sim.runFor('1s');
    expect(r).toEqual({ outcome: { ok: false, error: 'timeout' }, at: 100 });
    // The timeout was an event; the late response still arrived (and was ignored).
    expect(sim.network.stats).toEqual({ sent: 2, delivered: 2, dropped: 0 });
  });

  it('requests with many different timeouts each time out at their own time, in order', () => {
    const sim = new Simulation({ defaultLatency: constant(1) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = 'never';
    // More distinct lengths than the network keeps a lane for, in an order that is not their deadlines' order.
    const timeouts = Array.from({ length: 150 }, (_, i) => 10 + ((i * 37) % 150));
    const results = timeouts.map((t) => a!.ask('b', t, t));
    const events = sim.eventCount;
    sim.runFor('1s');
    expect(results).toEqual(timeouts.map((t) => ({ outcome: { ok: false, error: 'timeout' }, at: t })));
    // One event per delivery and one per timeout, nothing else.
    expect(sim.eventCount - events).toBe(2 * timeouts.length);
    expect(sim.pendingEvents).toBe(0);
  });

  it('thousands of requests a node never answers do not stop the ones it did answer from being let go', () => {
    const sim = new Simulation({ defaultLatency: constant(1), requestTimeoutMs: 60_000 });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = 'never';
    const unanswered = Array.from({ length: 3000 }, (_, i) => a!.ask('b', i));
    sim.runFor(10);
    // Answer all but every 7th; a crash must reset exactly the rest, in the order they arrived.
    b!.pendingReplies.forEach((reply, i) => {
      if (i % 7 !== 0) reply(i);
    });
    sim.runFor(10);
    b!.crash();
    sim.runFor('1s');
    expect(unanswered.map((r) => r.outcome)).toEqual(
      unanswered.map((_, i) =>
        i % 7 === 0 ? { ok: false, error: 'disconnected' } : { ok: true, response: i },
      ),
    );
    expect(sim.pendingEvents).toBe(0);
  });

  it('a request that timed out is not reset by a later crash of the node that held it', () => {
    const sim = new Simulation({ defaultLatency: constant(1) });
    const [a, b] = recorders(sim, 'a', 'b');
    b!.replyPolicy = 'never';
    const r = a!.ask('b', 'q', 50);
    sim.runFor(100);
    const events = sim.eventCount;
    b!.crash();
    sim.runFor(100);
    expect(r).toEqual({ outcome: { ok: false, error: 'timeout' }, at: 50 });
    expect(sim.eventCount).toBe(events);
  });
});

describe('Network: faults', () => {
  it('dropOutbound drops one direction; the other direction still works', () => {
    const sim = new Simulation({ defaultLatency: constant(2) });
    const nodes = recorders(sim, 'a', 'b', 'c');
    const [a, b] = nodes;
    sim.network.dropOutbound('a', ['b']);
    expect(sim.network.reachable('a', 'b')).toBe(false);
    expect(sim.network.reachable('b', 'a')).toBe(true);
    expect(connectivity(sim, nodes)).toEqual(allPairs(['a', 'b', 'c']).filter((p) => p !== 'a>b'));
    // b's request reaches a, but a's answer travels a -> b and is dropped: b sees a timeout.
    const r = b!.ask('a', 'q', 50);
    const fromA = a!.ask('b', 'q', 50);
    sim.runFor('1s');
    expect(a!.requests.map((q) => q.from)).toEqual(['b']);
    expect(r.outcome).toEqual({ ok: false, error: 'timeout' });
    expect(fromA.outcome).toEqual({ ok: false, error: 'timeout' });
    expect(b!.requests).toEqual([]);
  });

  it('dropOutbound to several nodes, added up over calls', () => {
    const sim = new Simulation();
    const nodes = recorders(sim, 'a', 'b', 'c', 'd');
    sim.network.dropOutbound('a', ['b']);
    sim.network.dropOutbound('a', ['c', 'd']);
    expect(connectivity(sim, nodes)).toEqual(
      allPairs(['a', 'b', 'c', 'd']).filter((p) => !p.startsWith('a>')),
    );
  });

  it('partition(groups) isolates the groups; unlisted nodes form one more group', () => {
    const sim = new Simulation();
    const nodes = recorders(sim, 'a', 'b', 'c', 'd', 'e', 'f');
    sim.network.partition([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(connectivity(sim, nodes)).toEqual(['a>b', 'b>a', 'c>d', 'd>c', 'e>f', 'f>e']);
  });

  it('isolate(node) cuts all its traffic; others still talk', () => {
    const sim = new Simulation();
    const nodes = recorders(sim, 'a', 'b', 'c');
    sim.network.isolate('a');
    expect(connectivity(sim, nodes)).toEqual(['b>c', 'c>b']);
    const r = nodes[1]!.ask('a', 'q', 100);
    sim.runFor('1s');
    expect(r.outcome).toEqual({ ok: false, error: 'timeout' });
  });

  it('heal() restores everything: isolation, outbound drops and partitions', () => {
    const sim = new Simulation();
    const nodes = recorders(sim, 'a', 'b', 'c', 'd');
    sim.network.isolate('a');
    sim.network.dropOutbound('b', ['c']);
    sim.network.partition([['a', 'b', 'c'], ['d']]);
    expect(connectivity(sim, nodes)).toEqual(['c>b']);
    sim.network.heal();
    expect(connectivity(sim, nodes)).toEqual(allPairs(['a', 'b', 'c', 'd']));
    const r = nodes[0]!.ask('d', 'q');
    sim.runFor('1s');
    expect(r.outcome?.ok).toBe(true);
  });

  it('messages already in flight when a partition starts are dropped on arrival', () => {
    const sim = new Simulation({ defaultLatency: constant(10) });
    const [a, b] = recorders(sim, 'a', 'b');
    a!.sendMessage('b', 'in flight');
    sim.runFor(5);
    sim.network.partition([['a'], ['b']]);
    sim.runFor('1s');
    expect(b!.messages).toEqual([]);
    expect(sim.network.stats.dropped).toBe(1);
  });

  it('fault changes are traced', () => {
    const sim = new Simulation();
    recorders(sim, 'a', 'b');
    const kinds: TraceEvent[] = [];
    sim.trace.subscribe((e) => kinds.push(e));
    sim.network.isolate('a');
    sim.network.dropOutbound('a', ['b']);
    sim.network.partition([['a'], ['b']]);
    sim.network.heal();
    sim.network.setExtraDelay('b', 5);
    expect(kinds).toEqual([
      { t: 0, kind: 'net.isolate', target: 'a' },
      { t: 0, kind: 'net.drop-outbound', from: 'a', to: ['b'] },
      { t: 0, kind: 'net.partition', groups: [['a'], ['b']] },
      { t: 0, kind: 'net.heal' },
      { t: 0, kind: 'net.slow', node: 'b', extraDelayMs: 5 },
    ]);
  });
});

describe('Network: random drops', () => {
  function dropRun(seed: number, p: number) {
    const sim = new Simulation({ seed });
    const [a, b] = recorders(sim, 'a', 'b');
    sim.network.setDropProbability(p);
    for (let i = 0; i < 10_000; i++) a!.sendMessage('b', i);
    sim.runFor('1s');
    return { delivered: payloads(b!) as number[], stats: sim.network.stats };
  }

  it('drops roughly the requested fraction', () => {
    const { delivered, stats } = dropRun(1, 0.3);
    expect(delivered.length / 10_000).toBeGreaterThan(0.67);
    expect(delivered.length / 10_000).toBeLessThan(0.73);
    expect(stats.sent).toBe(10_000);
    expect(stats.delivered + stats.dropped).toBe(10_000);
    expect(stats.delivered).toBe(delivered.length);
  });

  it('drops the same messages for the same seed, and different ones for another seed', () => {
    const first = dropRun(1, 0.3).delivered;
    expect(dropRun(1, 0.3).delivered).toEqual(first);
    expect(dropRun(2, 0.3).delivered).not.toEqual(first);
  });

  it('0 turns drops off, 1 drops everything, and out-of-range values are refused', () => {
    expect(dropRun(1, 0).delivered.length).toBe(10_000);
    expect(dropRun(1, 1).delivered.length).toBe(0);
    const sim = new Simulation();
    expect(() => sim.network.setDropProbability(1.5)).toThrow(RangeError);
    expect(() => sim.network.setDropProbability(Number.NaN)).toThrow(RangeError);
  });

  it('heal() does not turn random drops off', () => {
    const sim = new Simulation();
    const [a, b] = recorders(sim, 'a', 'b');
    sim.network.setDropProbability(1);
    sim.network.heal();
    a!.sendMessage('b', 'x');
    sim.runFor(10);
    expect(b!.messages).toEqual([]);
  });
});

describe('Network: slow nodes', () => {
  it('setExtraDelay adds to every message to and from the node; 0 removes it', () => {
    const sim = new Simulation({ defaultLatency: constant(5) });
    const [a, b, c] = recorders(sim, 'a', 'b', 'c');
    sim.network.setExtraDelay('b', 20);
    a!.sendMessage('b', 'to slow');
    b!.sendMessage('c', 'from slow');
    a!.sendMessage('c', 'unaffected');
    sim.runFor('1s');
    expect(b!.messages[0]!.at).toBe(25);
    expect(c!.messages.map((m) => [m.payload, m.at])).toEqual([
      ['unaffected', 5],
      ['from slow', 25],
    ]);
    // Both ends slow: both delays count. A request pays the extra delay both ways.
    sim.network.setExtraDelay('c', 100);
    const t0 = sim.now;
    b!.sendMessage('c', 'both slow');
    const r = a!.ask('b', 'q');
    sim.runFor('1s');
    expect(c!.messages.at(-1)!.at - t0).toBe(125);
    expect(r.at! - t0).toBe(50);
    sim.network.setExtraDelay('b', 0);
    sim.network.setExtraDelay('c', 0);
    const t1 = sim.now;
    a!.sendMessage('b', 'healthy again');
    sim.runFor('1s');
    expect(b!.messages.at(-1)!.at - t1).toBe(5);
  });
});
