// A small workload that touches every part of the kernel that randomness flows through: per-node timers with
// random first delays, requests to randomly picked peers over a lognormal-latency network with random drops,
// a partition and a heal, and a crash and restart mid-run. Every response (or failure) is a trace event, so the
// trace hash covers the outcome of every draw.
import { type NodeId, SimNode, Simulation, type SimulationOptions } from '../../../models/sim/index.ts';

export const PEERS = ['n1', 'n2', 'n3', 'n4'] as const;

export class Pinger extends SimNode {
  /** Volatile: rebuilt on every start. */
  outstanding = 0;
  lastRtt = 0;

  protected override onStart(): void {
    this.outstanding = 0;
    this.disk.set('starts', ((this.disk.get('starts') as number | undefined) ?? 0) + 1);
    const peerRng = this.random('peer');
    const first = this.random('timer').uniform(1, 50);
    this.every(
      50,
      () => {
        const peers = PEERS.filter((p) => p !== this.id);
        const to = peerRng.pick(peers);
        const sentAt = this.sim.now;
        this.outstanding++;
        this.request<{ seq: number }>(
          to,
          { type: 'ping' },
          (o) => {
            this.outstanding--;
            this.lastRtt = this.sim.now - sentAt;
            this.emit('ping.response', {
              to,
              ok: o.ok,
              error: o.ok ? undefined : o.error,
              rtt: Math.round(this.lastRtt * 1000) / 1000,
            });
          },
          200,
        );
      },
      'ping',
      first,
    );
  }

  protected override onRequest(_from: NodeId, _payload: unknown, reply: (r: unknown) => void): void {
    const served = ((this.disk.get('served') as number | undefined) ?? 0) + 1;
    this.disk.set('served', served);
    reply({ seq: served });
  }
}

export interface PingWorld {
  sim: Simulation;
  nodes: Pinger[];
  responses: { ok: number; timeout: number; disconnected: number };
}

/** Builds the world and schedules the faults; run it with sim.runFor(...). */
export function pingWorld(options: SimulationOptions): PingWorld {
  const sim = new Simulation({
    defaultLatency: { kind: 'lognormal', median: 2, sigma: 0.6 },
    ...options,
  });
  const nodes = PEERS.map((id) => new Pinger(sim, id));
  const responses = { ok: 0, timeout: 0, disconnected: 0 };
  sim.trace.subscribe((e) => {
    if (e.kind !== 'ping.response') return;
    if (e.ok) responses.ok++;
    else responses[e.error as 'timeout' | 'disconnected']++;
  });
  for (const n of nodes) n.start();
  sim.network.setDropProbability(0.02);
  sim.schedule(2_000, () =>
    sim.network.partition([
      ['n1', 'n2'],
      ['n3', 'n4'],
    ]),
  );
  sim.schedule(3_000, () => sim.network.heal());
  sim.schedule(4_000, () => nodes[2]!.crash());
  sim.schedule(5_000, () => nodes[2]!.start());
  return { sim, nodes, responses };
}
