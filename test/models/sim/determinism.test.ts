import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../models/sim/index.ts';
import { pingWorld } from './ping-workload.ts';

function run(seed: number | string) {
  const world = pingWorld({ seed });
  const events: TraceEvent[] = [];
  world.sim.trace.subscribe((e) => events.push(e));
  world.sim.runFor('8s');
  return { ...world, events, hash: world.sim.trace.hash };
}

describe('determinism', () => {
  it('the workload really exercises timers, random latency, drops, the partition and the crash', () => {
    const { responses, events, nodes, sim } = run(42);
    expect(responses.ok).toBeGreaterThan(300);
    // Partition (2s..3s) and random drops give timeouts; the crash of n3 (4s..5s) gives refused connections.
    expect(responses.timeout).toBeGreaterThan(10);
    expect(responses.disconnected).toBeGreaterThan(3);
    const rtts = new Set(events.filter((e) => e.kind === 'ping.response' && e.ok).map((e) => e.rtt));
    expect(rtts.size).toBeGreaterThan(100);
    expect(events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['net.partition', 'net.heal', 'node.crash', 'node.start']),
    );
    expect(nodes[2]!.incarnation).toBe(2);
    expect(sim.network.stats.dropped).toBeGreaterThan(0);
  });

  it('the same seed twice gives the same trace, event for event, and the same hash', () => {
    const a = run(42);
    const b = run(42);
    expect(a.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(b.hash).toBe(a.hash);
    expect(b.events).toEqual(a.events);
    expect(b.sim.eventCount).toBe(a.sim.eventCount);
  });

  it('a different seed gives a different hash', () => {
    const a = run(42);
    const hashes = new Set([a.hash, run(43).hash, run('42x').hash, run(7).hash]);
    expect(hashes.size).toBe(4);
  });

  it('the hash does not depend on the trace buffer size', () => {
    const small = pingWorld({ seed: 42, traceBufferSize: 3 });
    small.sim.runFor('8s');
    expect(small.sim.trace.hash).toBe(run(42).hash);
  });
});
