// The network: nodes exchange one-way messages and request/response pairs. Each message is one event, delivered
// after a latency drawn from its link's distribution, in FIFO order per link (like a TCP connection). Faults are
// filters: a node's traffic dropped, a node's outbound traffic to a set dropped (asymmetric partition), the nodes
// split into groups, random drops, extra delay for a slow node. A request whose answer does not come back within
// its timeout resolves as a timeout; a request to a node that is down resolves as `disconnected` after a round
// trip (the connection is refused), which is how clients notice a crashed broker quickly.
import { type Distribution, sample } from './distribution.ts';
import type { Lane, LaneEntry, Timer } from './event-queue.ts';
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

/**
 * What a request interceptor decides for one request as it reaches its target: answer it at once in the target's
 * place (`reply`), serve another payload, rewrite the answer, add time before the answer leaves, or serve it and
 * never answer (the sender times out). Scripted fault injection is built on this; the kernel knows no request.
 */
export interface RequestInterception {
  reply?: unknown;
  payload?: unknown;
  transform?: (response: unknown) => unknown;
  delayMs?: number;
  dropResponse?: boolean;
}
export type RequestInterceptor = (
  from: NodeId,
  to: NodeId,
  payload: unknown,
) => RequestInterception | undefined;

interface Link {
  lastDelivery: number;
  latency: Distribution | undefined;
  /** Messages put on this link (a viewer animates traffic from the differences; not part of the fingerprint). */
  sent: number;
}

/** Messages sent from one node to another so far. */
export interface LinkCount {
  from: NodeId;
  to: NodeId;
  sent: number;
}

interface SenderState {
  endpoint: Endpoint;
  rng: RandomStream;
  links: Map<NodeId, Link>;
  /** Requests this node holds (received, not answered), oldest first from `heldHead`; answered ones drop off lazily. */
  held: (PendingRequest | undefined)[];
  heldHead: number;
  heldTail: number;
}

/** A one-way message in flight. */
class Transit {
  constructor(
    readonly from: NodeId,
    readonly to: NodeId,
    readonly payload: unknown,
  ) {}
}

/**
 * One request, from send to outcome: the record both legs are delivered with, the entry of its timeout lane and
 * of its target's held list. Plain fields instead of closures keep a request/response pair to a handful of objects.
 */
class PendingRequest implements LaneEntry {
  time = 0;
  seq = 0;
  queued = false;
  /** Set once the outcome is decided (answer, timeout, refusal or reset): nothing else may happen after. */
  done = false;
  /** Set once the target answered or its crash reset the connection. */
  replied = false;
  /** The request leg's latency: a refusal comes back after as long. */
  delay = 0;
  holder: SenderState | undefined = undefined;
  target: Endpoint | undefined = undefined;
  targetIncarnation = 0;
  response: unknown = undefined;
  /** The timeout when there are too many distinct timeout lengths for lanes. */
  timer: Timer | undefined = undefined;
  /** The node its timeout event belongs to: the sender. */
  get node(): NodeId {
    return this.from;
  }
  constructor(
    readonly from: NodeId,
    readonly to: NodeId,
    readonly payload: unknown,
    public callback: ((outcome: RequestOutcome<never>) => void) | undefined,
    readonly sender: Endpoint,
    readonly incarnation: number,
    readonly lane: Lane<PendingRequest> | undefined,
  ) {}
}

/** Distinct timeout lengths that get a lane each; beyond, a request's timeout is an ordinary timer. */
const MAX_TIMEOUT_LANES = 64;

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
  private interceptor: RequestInterceptor | undefined;

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
      held: [],
      heldHead: 0,
      heldTail: 0,
    });
  }

  has(id: NodeId): boolean {
    return this.nodes.has(id);
  }

  /** Messages sent on every link that carried any, in the order the nodes and links were first used. */
  linkCounts(): LinkCount[] {
    const out: LinkCount[] = [];
    for (const [from, s] of this.nodes) for (const [to, l] of s.links) out.push({ from, to, sent: l.sent });
    return out;
  }

  nodeIds(): NodeId[] {
    return [...this.nodes.keys()];
  }

  /** Latency for messages from `from` to `to` (one direction; call twice for both). */
  setLinkLatency(from: NodeId, to: NodeId, latency: Distribution): void {
    this.link(this.state(from), to).latency = latency;
  }

  // ---- faults ------------------------------------------------------------------------------------------------

  /** Consulted for every request that reaches a live target (undefined removes it; costs nothing when unset). */
  setRequestInterceptor(interceptor: RequestInterceptor | undefined): void {
    this.interceptor = interceptor;
  }

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
    return (
      this.launch(this.state(from), to, payload, 0, this.arriveMessage, new Transit(from, to, payload)) >= 0
    );
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
    const state = this.state(from);
    const sender = state.endpoint;
    if (!(timeoutMs >= 0))
      throw new RangeError(`schedule: delay must be >= 0, got ${timeoutMs} (net.request-timeout)`);
    const lane = this.timeoutLane(timeoutMs);
    const r = new PendingRequest(
      from,
      to,
      payload,
      callback as (outcome: RequestOutcome<never>) => void,
      sender,
      sender.incarnation,
      lane,
    );
    // The timeout takes its place in the event order before the request leg, as a timer scheduled here would.
    if (lane) lane.add(this.sim.now + timeoutMs, r);
    else
      r.timer = this.sim.scheduleCallAt(
        this.sim.now + timeoutMs,
        this.timeOut,
        r,
        'net.request-timeout',
        from,
      );
    r.delay = this.launch(state, to, payload, 0, this.arriveRequest, r);
  }

  /** The lane of every request timeout of this length (their deadlines come in the order they are set). */
  private timeoutLane(timeoutMs: number): Lane<PendingRequest> | undefined {
    let lane = this.timeoutLanes.get(timeoutMs);
    if (lane === undefined && this.timeoutLanes.size < MAX_TIMEOUT_LANES) {
      lane = this.sim.lane(this.timeOut, 'net.request-timeout');
      this.timeoutLanes.set(timeoutMs, lane);
    }
    return lane;
  }

  private readonly timeoutLanes = new Map<number, Lane<PendingRequest>>();

  private finish(r: PendingRequest, outcome: RequestOutcome<unknown>): void {
    if (r.done) return;
    r.done = true;
    if (r.lane) r.lane.withdraw(r);
    else r.timer!.cancel();
    const callback = r.callback!;
    r.callback = undefined;
    if (r.sender.up && r.sender.incarnation === r.incarnation) callback(outcome as RequestOutcome<never>);
  }

  private readonly timeOut = (r: PendingRequest): void => this.finish(r, { ok: false, error: 'timeout' });
  private readonly disconnect = (r: PendingRequest): void =>
    this.finish(r, { ok: false, error: 'disconnected' });

  /** Where a message arrives: dropped if a fault cut the link meanwhile, or if the target is down. */
  private arrival(from: NodeId, to: NodeId): SenderState | undefined {
    const target = this.nodes.get(to);
    if (this.filtered && !this.reachable(from, to)) {
      this.stats.dropped++;
      return undefined;
    }
    if (!target?.endpoint.up) {
      this.stats.dropped++;
      return undefined;
    }
    this.stats.delivered++;
    return target;
  }

  private readonly arriveMessage = (m: Transit): void => {
    this.arrival(m.from, m.to)?.endpoint.deliver(m.from, m.payload);
  };

  private readonly arriveRequest = (r: PendingRequest): void => {
    const to = r.to;
    const state = this.nodes.get(to);
    if (this.filtered && !this.reachable(r.from, to)) {
      this.stats.dropped++;
      return;
    }
    if (!state?.endpoint.up) {
      // The target is down: the connection is refused, and the sender hears of it after as long again.
      this.stats.dropped++;
      this.sim.scheduleCallAt(this.sim.now + r.delay, this.disconnect, r, 'net.refused', r.from);
      return;
    }
    this.stats.delivered++;
    const target = state.endpoint;
    r.target = target;
    r.targetIncarnation = target.incarnation;
    r.holder = state;
    this.hold(state, r);
    const x = this.interceptor?.(r.from, to, r.payload);
    if (x === undefined) {
      target.serve(r.from, r.payload, (response, sendDelayMs) => this.answer(r, response, sendDelayMs));
      return;
    }
    if (x.reply !== undefined) return this.answer(r, x.reply, x.delayMs);
    target.serve(r.from, x.payload ?? r.payload, (response, sendDelayMs) => {
      if (!x.dropResponse)
        return this.answer(
          r,
          x.transform ? x.transform(response) : response,
          (sendDelayMs ?? 0) + (x.delayMs ?? 0),
        );
      if (r.replied || r.done) return;
      r.replied = true;
      this.release(r.holder!);
    });
  };

  private answer(r: PendingRequest, response: unknown, sendDelayMs: number | undefined): void {
    const target = r.target!;
    if (r.replied || r.done || !target.up || target.incarnation !== r.targetIncarnation) return;
    r.replied = true;
    this.release(r.holder!);
    r.response = response;
    this.launch(this.state(r.to), r.from, response, sendDelayMs ?? 0, this.arriveResponse, r);
  }

  private readonly arriveResponse = (r: PendingRequest): void => {
    if (this.arrival(r.to, r.from) !== undefined) this.finish(r, { ok: true, response: r.response });
  };

  private hold(state: SenderState, r: PendingRequest): void {
    const list = state.held;
    let tail = state.heldTail;
    // A request that is never answered must not keep every later one alive: drop the answered ones now and then.
    if (tail >= 1024 && tail % 1024 === 0) {
      let n = 0;
      for (let i = state.heldHead; i < tail; i++) {
        const h = list[i]!;
        if (!h.replied && !h.done) list[n++] = h;
      }
      list.fill(undefined, n, tail);
      state.heldHead = 0;
      tail = n;
    }
    // Slots are reused, not given up, as the list empties and refills all the time.
    if (tail < list.length) list[tail] = r;
    else list.push(r);
    state.heldTail = tail + 1;
  }

  /** Answered (or given up) requests leave the front of the holder's list; answers mostly come in order. */
  private release(state: SenderState): void {
    const list = state.held;
    const tail = state.heldTail;
    let head = state.heldHead;
    while (head < tail && (list[head]!.replied || list[head]!.done)) list[head++] = undefined;
    if (head === tail) {
      head = 0;
      state.heldTail = 0;
    }
    state.heldHead = head;
  }

  /**
   * A node went down: every request it was holding (received, not yet answered) resets, so each sender sees
   * `disconnected` after a network delay, as a client sees a closed connection when a process dies.
   */
  nodeDown(id: NodeId): void {
    const state = this.nodes.get(id);
    if (!state) return;
    const list = state.held;
    const head = state.heldHead;
    const tail = state.heldTail;
    if (tail === head) return;
    state.held = [];
    state.heldHead = 0;
    state.heldTail = 0;
    for (let i = head; i < tail; i++) {
      const r = list[i]!;
      if (r.replied || r.done) continue;
      r.replied = true;
      const back = this.link(this.state(r.to), r.from).latency ?? this.defaultLatency;
      const at = this.sim.now + sample(back, this.dropRng);
      this.sim.scheduleCallAt(at, this.disconnect, r, 'net.reset', r.from);
    }
  }

  private state(id: NodeId): SenderState {
    const s = this.nodes.get(id);
    if (!s) throw new Error(`unknown node "${id}" (not registered on the network)`);
    return s;
  }

  private link(sender: SenderState, to: NodeId): Link {
    let l = sender.links.get(to);
    if (!l) sender.links.set(to, (l = { lastDelivery: 0, latency: undefined, sent: 0 }));
    return l;
  }

  /**
   * Puts a message on the wire: `arrive(arg)` runs when it lands. Returns its latency, or -1 when it was dropped
   * at once (sender down, or a fault filter).
   */
  private launch<A>(
    sender: SenderState,
    to: NodeId,
    payload: unknown,
    extraDelayMs: number,
    arrive: (arg: A) => void,
    arg: A,
  ): number {
    if (!sender.endpoint.up) return -1;
    const from = sender.endpoint.id;
    this.stats.sent++;
    if (this.traceMessages) this.sim.trace.emit('net.send', from, { to, type: messageType(payload) });
    if (
      this.filtered &&
      (!this.reachable(from, to) || (this.dropProbability > 0 && this.dropRng.chance(this.dropProbability)))
    ) {
      this.stats.dropped++;
      return -1;
    }
    const link = this.link(sender, to);
    link.sent++;
    let delay = sample(link.latency ?? this.defaultLatency, sender.rng) + extraDelayMs;
    if (this.extraDelay.size > 0) delay += (this.extraDelay.get(from) ?? 0) + (this.extraDelay.get(to) ?? 0);
    let at = this.sim.now + delay;
    if (at < link.lastDelivery) at = link.lastDelivery;
    link.lastDelivery = at;
    this.sim.scheduleCallAt(at, arrive, arg, 'net.deliver', to);
    return delay;
  }
}

function messageType(payload: unknown): string | undefined {
  if (payload && typeof payload === 'object' && 'type' in payload)
    return String((payload as { type: unknown }).type);
  return undefined;
}
