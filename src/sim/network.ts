// The network: nodes exchange one-way messages and request/response pairs. Each message is one event, delivered
// after a latency drawn from its link's distribution, in FIFO order per link (like a TCP connection). Faults are
// filters: a node's traffic dropped, a node's outbound traffic to a set dropped (asymmetric partition), the nodes
// split into groups, random drops, extra delay for a slow node. A request whose answer does not come back within
// its timeout resolves as a timeout; a request to a node that is down resolves as `disconnected` after a round
// trip (the connection is refused), which is how clients notice a crashed broker quickly.
import { type Distribution, sample } from './distribution.ts';
import type { RandomStream } from './rng.ts';
import type { Simulation } from './simulation.ts';

export type NodeId = string;

/** What the network delivers to; SimNode implements it. */
export interface Endpoint {
  readonly id: NodeId;
  readonly up: boolean;
  readonly incarnation: number;
  deliver(from: NodeId, payload: unknown): void;
  /** `reply`'s optional delay is time the answer spends leaving the node (e.g. a busy NIC), added to latency. */
  serve(from: NodeId, payload: unknown, reply: (response: unknown, sendDelayMs?: number) => void): void;
}

export type RequestOutcome<R> = { ok: true; response: R } | { ok: false; error: 'timeout' | 'disconnected' };

interface Held {
  reset: () => void;
  live: boolean;
}

interface Link {
  lastDelivery: number;
  latency: Distribution | undefined;
}

interface SenderState {
  endpoint: Endpoint;
  rng: RandomStream;
  links: Map<NodeId, Link>;
}

export interface NetworkStats {
  sent: number;
  delivered: number;
  dropped: number;
}

export class Network {
  defaultLatency: Distribution;
  requestTimeoutMs: number;
  /** Emit a `net.send` trace event per message (verbose; off by default). */
  traceMessages = false;
  readonly stats: NetworkStats = { sent: 0, delivered: 0, dropped: 0 };
  private readonly nodes = new Map<NodeId, SenderState>();
  private readonly isolated = new Set<NodeId>();
  private readonly outboundDrops = new Map<NodeId, Set<NodeId>>();
  private groups: Map<NodeId, number> | undefined;
  private dropProbability = 0;
  private readonly extraDelay = new Map<NodeId, number>();
  private filtered = false;
  private readonly dropRng: RandomStream;

  constructor(
    private readonly sim: Simulation,
    options: { defaultLatency: Distribution; requestTimeoutMs: number },
  ) {
    this.defaultLatency = options.defaultLatency;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.dropRng = sim.rng.stream('network/drop');
  }

  register(endpoint: Endpoint): void {
    if (this.nodes.has(endpoint.id))
      throw new Error(`a node with id "${endpoint.id}" is already on the network`);
    this.nodes.set(endpoint.id, {
      endpoint,
      rng: this.sim.rng.stream(`${endpoint.id}/net`),
      links: new Map(),
    });
  }

  has(id: NodeId): boolean {
    return this.nodes.has(id);
  }

  nodeIds(): NodeId[] {
    return [...this.nodes.keys()];
  }

  /** Latency for messages from `from` to `to` (one direction; call twice for both). */
  setLinkLatency(from: NodeId, to: NodeId, latency: Distribution): void {
    this.link(this.state(from), to).latency = latency;
  }

  // ---- faults ------------------------------------------------------------------------------------------------

  /** Drops all traffic to and from `node` until heal(). */
  isolate(node: NodeId): void {
    this.isolated.add(node);
    this.refilter('net.isolate', { target: node });
  }

  /** Drops messages from `from` to each of `to` (asymmetric: the other direction still works). */
  dropOutbound(from: NodeId, to: readonly NodeId[]): void {
    let set = this.outboundDrops.get(from);
    if (!set) this.outboundDrops.set(from, (set = new Set()));
    for (const t of to) set.add(t);
    this.refilter('net.drop-outbound', { from, to: [...to] });
  }

  /** Splits the network: nodes talk only within their group. Nodes not listed form one more group together. */
  partition(groups: readonly (readonly NodeId[])[]): void {
    const map = new Map<NodeId, number>();
    groups.forEach((g, i) => {
      for (const n of g) map.set(n, i);
    });
    this.groups = map;
    this.refilter('net.partition', { groups: groups.map((g) => [...g]) });
  }

  /** Removes isolation, outbound drops and partitions (not random drops or slow nodes). */
  heal(): void {
    this.isolated.clear();
    this.outboundDrops.clear();
    this.groups = undefined;
    this.refilter('net.heal', {});
  }

  /** Drops each message independently with probability p (0 turns it off). */
  setDropProbability(p: number): void {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`drop probability must be within [0, 1], got ${p}`);
    this.dropProbability = p;
    this.refilter('net.drop-probability', { p });
  }

  /** Adds `ms` to every message to and from `node` (a slow node); 0 removes it. */
  setExtraDelay(node: NodeId, ms: number): void {
    if (ms > 0) this.extraDelay.set(node, ms);
    else this.extraDelay.delete(node);
    this.sim.trace.emit('net.slow', node, { extraDelayMs: ms });
  }

  /** True when a message from `from` to `to` would pass the fault filters right now. */
  reachable(from: NodeId, to: NodeId): boolean {
    if (!this.filtered) return true;
    if (this.isolated.has(from) || this.isolated.has(to)) return false;
    if (this.outboundDrops.get(from)?.has(to)) return false;
    if (this.groups && (this.groups.get(from) ?? -1) !== (this.groups.get(to) ?? -1)) return false;
    return true;
  }

  private refilter(kind: string, fields: Record<string, unknown>): void {
    this.filtered =
      this.isolated.size > 0 ||
      this.outboundDrops.size > 0 ||
      this.groups !== undefined ||
      this.dropProbability > 0;
    this.sim.trace.emit(kind, undefined, fields);
  }

  // ---- traffic -----------------------------------------------------------------------------------------------

  /** Sends a one-way message. Returns false when it was dropped at once. */
  send(from: NodeId, to: NodeId, payload: unknown): boolean {
    return this.transmit(from, to, payload, (target) => target.deliver(from, payload), undefined);
  }

  /**
   * Sends a request; `callback` gets the response, or a timeout, or `disconnected` when the target is down. The
   * callback never runs if the sender crashed (or restarted) in between.
   */
  request<R = unknown>(
    from: NodeId,
    to: NodeId,
    payload: unknown,
    callback: (outcome: RequestOutcome<R>) => void,
    timeoutMs: number = this.requestTimeoutMs,
  ): void {
    const sender = this.state(from).endpoint;
    const incarnation = sender.incarnation;
    let done = false;
    const finish = (outcome: RequestOutcome<R>) => {
      if (done) return;
      done = true;
      timer.cancel();
      if (sender.up && sender.incarnation === incarnation) callback(outcome);
    };
    const timer = this.sim.schedule(
      timeoutMs,
      () => finish({ ok: false, error: 'timeout' }),
      'net.request-timeout',
    );
    this.transmit(
      from,
      to,
      payload,
      (target) => {
        const targetIncarnation = target.incarnation;
        let replied = false;
        // While the target holds the request, its crash resets the connection: the sender hears of it.
        const held: Held = {
          reset: () => {
            if (replied || done) return;
            replied = true;
            this.sim.schedule(
              sample(this.link(this.state(to), from).latency ?? this.defaultLatency, this.dropRng),
              () => finish({ ok: false, error: 'disconnected' }),
              'net.reset',
            );
          },
          live: true,
        };
        this.hold(to, held);
        target.serve(from, payload, (response, sendDelayMs) => {
          if (replied || done || !target.up || target.incarnation !== targetIncarnation) return;
          replied = true;
          held.live = false;
          this.transmit(
            to,
            from,
            response,
            () => finish({ ok: true, response: response as R }),
            undefined,
            sendDelayMs,
          );
        });
      },
      () => finish({ ok: false, error: 'disconnected' }),
    );
  }

  /** Requests each node holds (received, not answered): a list with lazy removal, compacted as it grows. */
  private readonly held = new Map<NodeId, Held[]>();

  private hold(id: NodeId, h: Held): void {
    let list = this.held.get(id);
    if (!list) this.held.set(id, (list = []));
    if (list.length >= 1024 && list.length % 1024 === 0) {
      const live = list.filter((x) => x.live);
      list.length = 0;
      list.push(...live);
    }
    list.push(h);
  }

  /**
   * A node went down: every request it was holding (received, not yet answered) resets, so each sender sees
   * `disconnected` after a network delay, as a client sees a closed connection when a process dies.
   */
  nodeDown(id: NodeId): void {
    const list = this.held.get(id);
    if (!list || list.length === 0) return;
    this.held.set(id, []);
    for (const h of list) if (h.live) h.reset();
  }

  private state(id: NodeId): SenderState {
    const s = this.nodes.get(id);
    if (!s) throw new Error(`unknown node "${id}" (not registered on the network)`);
    return s;
  }

  private link(sender: SenderState, to: NodeId): Link {
    let l = sender.links.get(to);
    if (!l) sender.links.set(to, (l = { lastDelivery: 0, latency: undefined }));
    return l;
  }

  private transmit(
    from: NodeId,
    to: NodeId,
    payload: unknown,
    onArrive: (target: Endpoint) => void,
    onRefused: (() => void) | undefined,
    extraDelayMs = 0,
  ): boolean {
    const sender = this.state(from);
    if (!sender.endpoint.up) return false;
    this.stats.sent++;
    if (this.traceMessages) this.sim.trace.emit('net.send', from, { to, type: messageType(payload) });
    if (
      this.filtered &&
      (!this.reachable(from, to) || (this.dropProbability > 0 && this.dropRng.chance(this.dropProbability)))
    ) {
      this.stats.dropped++;
      return false;
    }
    const link = this.link(sender, to);
    let delay = sample(link.latency ?? this.defaultLatency, sender.rng) + extraDelayMs;
    if (this.extraDelay.size > 0) delay += (this.extraDelay.get(from) ?? 0) + (this.extraDelay.get(to) ?? 0);
    let at = this.sim.now + delay;
    if (at < link.lastDelivery) at = link.lastDelivery;
    link.lastDelivery = at;
    this.sim.scheduleAt(
      at,
      () => {
        const target = this.nodes.get(to)?.endpoint;
        if (this.filtered && !this.reachable(from, to)) {
          this.stats.dropped++;
          return;
        }
        if (!target?.up) {
          this.stats.dropped++;
          if (onRefused) this.sim.schedule(delay, onRefused, 'net.refused');
          return;
        }
        this.stats.delivered++;
        onArrive(target);
      },
      'net.deliver',
    );
    return true;
  }
}

function messageType(payload: unknown): string | undefined {
  if (payload && typeof payload === 'object' && 'type' in payload)
    return String((payload as { type: unknown }).type);
  return undefined;
}
