// The live trace's Server-Sent Events clients, bounded: at most MAX_CLIENTS at once (more are refused with 429),
// each with at most MAX_BUFFERED_BYTES waiting in its socket buffer. Past that a client's events are dropped (it
// is told how many when it catches up), and a client whose buffer stays full for STALL_MS (one that does not
// read) is disconnected. One subscription to the trace serves every client, and each event is serialised once,
// so the cost of a burst (a 10,000-partition create) does not grow with the number of clients, and memory stays
// at most MAX_CLIENTS x MAX_BUFFERED_BYTES whatever they do. A client's writes are corked until the current turn
// of the event loop ends, so the events of one pacer slice (or one request's burst) leave in one write: one
// socket write and one chunk for the page to read instead of one per event.
import type { ServerResponse } from 'node:http';
import type { TraceEvent } from '../../../models/sim/index.ts';
import type { SimHost } from '../host.ts';
import type { World } from '../world.ts';

export interface SseLimits {
  maxClients: number;
  maxBufferedBytes: number;
  stallMs: number;
  keepaliveMs: number;
}

export const SSE_LIMITS: Readonly<SseLimits> = {
  maxClients: 64,
  /** Bytes waiting to be sent to one client before its events are dropped. */
  maxBufferedBytes: 1024 * 1024,
  /** A client whose buffer stays full this long (wall ms) is disconnected. */
  stallMs: 5_000,
  keepaliveMs: 15_000,
};

/** Bytes a corked client gathers before they are written without waiting for the end of the turn. */
const FLUSH_BYTES = 64 * 1024;

interface Client {
  raw: ServerResponse;
  /** The kind prefixes it wants (any of them); undefined for every event. */
  prefixes: readonly string[] | undefined;
  dropped: number;
  /** Wall time (performance.now) at which its buffer filled up; undefined while it keeps up. */
  stalledSince: number | undefined;
  lastKeepalive: number;
}

export class TraceStreams {
  private readonly clients = new Set<Client>();
  private unsubscribe: (() => void) | undefined;
  private readonly offWorld: () => void;
  private readonly timer: NodeJS.Timeout;
  /** Clients disconnected for not reading. */
  droppedClients = 0;
  /** Events left out of some client's stream because it was too far behind. */
  droppedEvents = 0;
  private readonly limits: SseLimits;
  /** Clients corked in this turn of the event loop (uncorked together at its end). */
  private readonly corked = new Set<Client>();

  constructor(
    private readonly host: SimHost,
    limits: Partial<SseLimits> = {},
  ) {
    this.limits = { ...SSE_LIMITS, ...limits };
    this.offWorld = host.onWorldChange((world) => this.onWorld(world));
    this.timer = setInterval(() => this.sweep(), Math.min(1000, this.limits.stallMs));
    this.timer.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** The most bytes any client had waiting after a write (tests check it against the bound). */
  peakBuffered = 0;

  /** True when the cap is reached (the caller answers 429). */
  get full(): boolean {
    return this.clients.size >= this.limits.maxClients;
  }

  /** Serves a hijacked response as an event stream until it closes. */
  add(raw: ServerResponse, prefixes: readonly string[] | undefined): void {
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(': kafkasim trace stream\nretry: 1000\n\n');
    const client: Client = {
      raw,
      prefixes,
      dropped: 0,
      stalledSince: undefined,
      lastKeepalive: performance.now(),
    };
    this.clients.add(client);
    if (this.unsubscribe === undefined)
      this.unsubscribe = this.host.sim.trace.subscribe((e) => this.onEvent(e));
    const remove = () => this.remove(client);
    raw.on('close', remove);
    raw.on('error', remove);
  }

  /** Ends every stream (the server closes). */
  close(): void {
    clearInterval(this.timer);
    this.offWorld();
    for (const c of [...this.clients]) {
      c.raw.end();
      this.remove(c);
    }
  }

  private remove(client: Client): void {
    if (!this.clients.delete(client)) return;
    this.corked.delete(client);
    if (this.clients.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }

  private write(client: Client, text: string): void {
    const raw = client.raw;
    if (raw.writableLength > this.limits.maxBufferedBytes) {
      client.dropped++;
      this.droppedEvents++;
      client.stalledSince ??= performance.now();
      return;
    }
    if (!this.corked.has(client)) {
      if (this.corked.size === 0) process.nextTick(() => this.uncork());
      this.corked.add(client);
      raw.cork();
    }
    if (client.dropped > 0) {
      raw.write(`event: dropped\ndata: ${JSON.stringify({ dropped: client.dropped })}\n\n`);
      client.dropped = 0;
    }
    raw.write(text);
    if (raw.writableLength > this.peakBuffered) this.peakBuffered = raw.writableLength;
    // A burst (a 10,000-partition create) goes out as it grows, not only at the end of the turn: what waits in
    // the socket's buffer is what the kernel has not taken, as without corking.
    if (raw.writableLength >= FLUSH_BYTES) {
      raw.uncork();
      this.corked.delete(client);
    }
  }

  private uncork(): void {
    for (const c of this.corked) if (!c.raw.destroyed) c.raw.uncork();
    this.corked.clear();
  }

  private onEvent(e: TraceEvent): void {
    let text: string | undefined;
    for (const c of this.clients) {
      if (c.prefixes !== undefined && !c.prefixes.some((p) => e.kind.startsWith(p))) continue;
      text ??= `event: trace\ndata: ${JSON.stringify(e)}\n\n`;
      this.write(c, text);
    }
  }

  private onWorld(world: World): void {
    this.unsubscribe?.();
    this.unsubscribe = this.clients.size > 0 ? world.sim.trace.subscribe((e) => this.onEvent(e)) : undefined;
    const text = `event: world\ndata: ${JSON.stringify({ cluster_id: world.clusterId, seed: world.sim.seed })}\n\n`;
    for (const c of this.clients) this.write(c, text);
  }

  /** Keepalives, and disconnecting clients that stopped reading. */
  private sweep(): void {
    const now = performance.now();
    for (const c of [...this.clients]) {
      // Behind since it first lost events, until its buffer is empty again (a reader catches up in a moment).
      if (c.raw.writableLength > this.limits.maxBufferedBytes) c.stalledSince ??= now;
      else if (c.raw.writableLength === 0) c.stalledSince = undefined;
      if (c.stalledSince !== undefined && now - c.stalledSince >= this.limits.stallMs) {
        this.droppedClients++;
        c.raw.destroy();
        this.remove(c);
        continue;
      }
      if (now - c.lastKeepalive >= this.limits.keepaliveMs) {
        c.lastKeepalive = now;
        this.write(c, ': keepalive\n\n');
      }
    }
  }
}
