// Kernel throughput: timer events per second, delivered network messages per second, and a bare binary heap
// running the same timer workload as the floor the kernel is compared against. Every task runs a fixed number of
// events per call, so events/s = ops/s (hz) x events per op; the rates are also measured directly and printed
// after each task as "<task>: N million events/s" so that nobody has to do the multiplication.
// Targets (from the kernel issue): >= 3 million timer events/s and >= 1 million messages/s on one core.
// Round trips (two messages each, and a timeout that never fires) show the cost of the request path.
import { bench, describe } from 'vitest';
import { type NodeId, SimNode, Simulation } from '../../models/sim/index.ts';

const EVENTS_PER_OP = 1_000_000;
const CONCURRENT_TIMERS = 1_000;
const NODES = 4;
const MESSAGES_IN_FLIGHT = 1_000;
// Benches run 1M events per call, so the default 500 ms window would take only a couple of samples.
// (vitest's bench mode runs no afterAll hooks, so each task prints its rate from its own teardown.)
const options = (rate: Rate) => ({
  time: 3_000,
  iterations: 5,
  warmupIterations: 3,
  warmupTime: 0,
  setup: () => rate.reset(),
  teardown: (_task: unknown, mode: 'warmup' | 'run') => {
    if (mode === 'run') rate.report();
  },
});

/** Accumulates events and wall time over a task's measured runs, and prints the rate. */
class Rate {
  private events = 0;
  private ms = 0;
  constructor(
    readonly label: string,
    readonly unit: string,
  ) {}
  reset(): void {
    this.events = 0;
    this.ms = 0;
  }
  measure(run: () => number): void {
    const t0 = performance.now();
    const n = run();
    this.ms += performance.now() - t0;
    this.events += n;
  }
  report(): void {
    const perSecond = this.events / (this.ms / 1000);
    console.log(
      `${this.label}: ${(perSecond / 1e6).toFixed(2)} million ${this.unit}/s (${this.events.toLocaleString('en')} in ${this.ms.toFixed(0)} ms)`,
    );
  }
}

// Intervals between 1 and 100.9 ms with a fractional part, so the heap really reorders and ties are uncommon.
const interval = (i: number) => 1 + ((i * 7919) % 1000) / 10;

function timerSimulation(): Simulation {
  const sim = new Simulation({ seed: 1 });
  for (let i = 0; i < CONCURRENT_TIMERS; i++) {
    const every = interval(i);
    const tick = () => {
      sim.schedule(every, tick);
    };
    sim.schedule(every, tick);
  }
  return sim;
}

/** The same workload as timerSimulation(), through a node's incarnation-guarded periodic timers. */
class Ticker extends SimNode {
  ticks = 0;
  protected override onStart(): void {
    for (let i = 0; i < CONCURRENT_TIMERS; i++) this.every(interval(i), () => this.ticks++);
  }
}

/** Forwards every message it receives to the next peer, so the number of messages in flight stays constant. */
class Relay extends SimNode {
  peers: NodeId[] = [];
  private next = 0;
  protected override onMessage(_from: NodeId, payload: unknown): void {
    const peers = this.peers;
    this.next = this.next + 1 === peers.length ? 0 : this.next + 1;
    this.sendMessage(peers[this.next]!, payload);
  }
}

function messageSimulation(): Simulation {
  const sim = new Simulation({ seed: 1, defaultLatency: { kind: 'lognormal', median: 2, sigma: 0.5 } });
  const ids = Array.from({ length: NODES }, (_, i) => `n${i}`);
  const relays = ids.map((id) => new Relay(sim, id));
  for (const r of relays) {
    r.peers = ids.filter((id) => id !== r.id);
    r.start();
  }
  for (let i = 0; i < MESSAGES_IN_FLIGHT; i++)
    relays[i % NODES]!.sendMessage(ids[(i + 1) % NODES]!, { type: 'm', i });
  return sim;
}

/** Answers every request at once; as a client, keeps REQUESTS_IN_FLIGHT / NODES requests outstanding. */
class Echo extends SimNode {
  peers: NodeId[] = [];
  answered = 0;
  private next = 0;
  protected override onRequest(_from: NodeId, payload: unknown, reply: (r: unknown) => void): void {
    reply(payload);
  }
  ask(): void {
    const peers = this.peers;
    this.next = this.next + 1 === peers.length ? 0 : this.next + 1;
    this.request(peers[this.next]!, { type: 'echo' }, (outcome) => {
      if (outcome.ok) this.answered++;
      this.ask();
    });
  }
}

function requestSimulation(): { sim: Simulation; nodes: Echo[] } {
  const sim = new Simulation({ seed: 1, defaultLatency: { kind: 'lognormal', median: 2, sigma: 0.5 } });
  const ids = Array.from({ length: NODES }, (_, i) => `n${i}`);
  const nodes = ids.map((id) => new Echo(sim, id));
  for (const n of nodes) {
    n.peers = ids.filter((id) => id !== n.id);
    n.start();
  }
  for (let i = 0; i < MESSAGES_IN_FLIGHT; i++) nodes[i % NODES]!.ask();
  return { sim, nodes };
}

/** The floor: a binary min-heap of (time, seq, fn) and nothing else (no cancellation, no clock, no guards). */
class BareHeap {
  private readonly heap: { time: number; seq: number; fn: () => void }[] = [];
  private seq = 0;
  now = 0;
  push(time: number, fn: () => void): void {
    const heap = this.heap;
    const ev = { time, seq: this.seq++, fn };
    let i = heap.length;
    heap.push(ev);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (parent.time < time || (parent.time === time && parent.seq < ev.seq)) break;
      heap[i] = parent;
      i = p;
    }
    heap[i] = ev;
  }
  run(events: number): void {
    const heap = this.heap;
    for (let k = 0; k < events && heap.length > 0; k++) {
      const top = heap[0]!;
      const last = heap.pop()!;
      const n = heap.length;
      if (n > 0) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= n) break;
          let c = l;
          let child = heap[l]!;
          const r = l + 1;
          if (r < n) {
            const rc = heap[r]!;
            if (rc.time < child.time || (rc.time === child.time && rc.seq < child.seq)) {
              c = r;
              child = rc;
            }
          }
          if (last.time < child.time || (last.time === child.time && last.seq < child.seq)) break;
          heap[i] = child;
          i = c;
        }
        heap[i] = last;
      }
      this.now = top.time;
      top.fn();
    }
  }
}

function bareHeap(): BareHeap {
  const q = new BareHeap();
  for (let i = 0; i < CONCURRENT_TIMERS; i++) {
    const every = interval(i);
    const tick = () => q.push(q.now + every, tick);
    q.push(every, tick);
  }
  return q;
}

describe(`timers: ${CONCURRENT_TIMERS} self-rescheduling timers, ${EVENTS_PER_OP.toLocaleString('en')} events per op`, () => {
  const kernel = new Rate('Simulation.schedule timers', 'timer events');
  const node = new Rate('SimNode.every timers (incarnation-guarded)', 'timer events');
  const floor = new Rate('bare binary heap baseline', 'events');

  const sim = timerSimulation();
  bench(
    'Simulation.schedule',
    () =>
      kernel.measure(() => {
        const before = sim.eventCount;
        sim.runToCompletion({ maxEvents: EVENTS_PER_OP });
        return sim.eventCount - before;
      }),
    options(kernel),
  );

  const nodeSim = new Simulation({ seed: 1 });
  new Ticker(nodeSim, 'ticker').start();
  bench(
    'SimNode.every',
    () =>
      node.measure(() => {
        const before = nodeSim.eventCount;
        nodeSim.runToCompletion({ maxEvents: EVENTS_PER_OP });
        return nodeSim.eventCount - before;
      }),
    options(node),
  );

  const heap = bareHeap();
  bench(
    'bare binary heap',
    () =>
      floor.measure(() => {
        heap.run(EVENTS_PER_OP);
        return EVENTS_PER_OP;
      }),
    options(floor),
  );
});

describe(`network: request/response round trips between ${NODES} nodes (timeout armed for each), ${EVENTS_PER_OP.toLocaleString('en')} events per op`, () => {
  const rate = new Rate('Network.request round trips', 'round trips');

  const { sim, nodes } = requestSimulation();
  const answered = () => nodes.reduce((n, e) => n + e.answered, 0);
  bench(
    'Network.request',
    () =>
      rate.measure(() => {
        const before = answered();
        sim.runToCompletion({ maxEvents: EVENTS_PER_OP });
        return answered() - before;
      }),
    options(rate),
  );
});

describe(`network: one-way sends between ${NODES} nodes, lognormal latency, ${EVENTS_PER_OP.toLocaleString('en')} messages per op`, () => {
  const rate = new Rate('Network.send delivered messages', 'messages');

  const sim = messageSimulation();
  bench(
    'Network.send',
    () =>
      rate.measure(() => {
        const before = sim.network.stats.delivered;
        sim.runToCompletion({ maxEvents: EVENTS_PER_OP });
        return sim.network.stats.delivered - before;
      }),
    options(rate),
  );
});
