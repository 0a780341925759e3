// The Kafka listeners: one TCP port per simulated broker (so that clients follow leaders to the right broker) and
// one for the controller, loopback by default. A socket is framed (int32 size, at most socket.request.max.bytes)
// and every connect, request frame and disconnect is applied to the simulation at the current virtual time, in
// arrival order, through the host's request log, so that a recorded run replays with the same trace hash. A
// crashed broker's listener refuses new connections and resets open ones, as a dead process's port does.
import { createServer, type Server, type Socket } from 'node:net';
import type { Cluster } from '../cluster/index.ts';
import { type ConnectionSink, type WireAddress, WireSession } from './session.ts';
import { apiName } from './supported-apis.ts';

/** Kafka's socket.request.max.bytes default: a larger size prefix closes the connection (InvalidReceiveException). */
export const MAX_REQUEST_BYTES = 104_857_600;

/** What the listeners need of a served simulation (SimHost is one). */
export interface WireHost {
  readonly cluster: Cluster;
  readonly halted: string | undefined;
  mutate<T>(
    request: { method: string; url: string; body?: unknown },
    apply: () => T,
    options?: { settle?: boolean },
  ): Promise<T>;
  onWorldChange(listener: () => void): () => void;
}

export interface KafkaListenerOptions {
  /** The first broker's port; brokers in id order take the next ports, then the controller. 0 picks free ports. */
  kafkaPort: number;
  /** Address to bind (default 127.0.0.1: loopback only). */
  host?: string;
  /** Host name clients are told to connect to (Metadata, FindCoordinator); default: the bound host. */
  advertisedHost?: string;
  /** Ports clients are told, by broker id (default: the bound ports), e.g. behind a port forward. */
  advertisedPorts?: Record<number, number>;
  /** Lines about closed connections (bad bytes, unserved APIs). */
  log?: (line: string) => void;
}

export interface ListenerAddresses {
  /** Broker id -> the port its listener is bound to. */
  brokers: Record<number, number>;
  controller: number;
  /** `host:port,...` of every broker: a client's bootstrap.servers. */
  bootstrap: string;
}

/** The request log's method for what the listeners apply. */
export const WIRE_LOG_METHOD = 'KAFKA';

export class KafkaListener {
  private readonly servers: Server[] = [];
  private readonly sockets = new Map<string, { socket: Socket; brokerId: number | undefined }>();
  private nextConnection = 0;
  private session!: WireSession;
  private monitor: NodeJS.Timeout | undefined;
  private readonly ports = new Map<number, number>();
  private controllerPort = -1;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly host: WireHost,
    private readonly options: KafkaListenerOptions,
  ) {}

  get addresses(): ListenerAddresses {
    const bindHost = this.advertisedHost;
    const brokers = Object.fromEntries(this.ports);
    return {
      brokers,
      controller: this.controllerPort,
      bootstrap: [...this.ports.values()].map((p) => `${bindHost}:${p}`).join(','),
    };
  }

  private get advertisedHost(): string {
    return this.options.advertisedHost ?? this.options.host ?? '127.0.0.1';
  }

  private newSession(): WireSession {
    return new WireSession(this.host.cluster, {
      clusterId: clusterIdOf(this.host),
      addressOf: (id) => this.addressOf(id),
      ...(this.options.log ? { log: this.options.log } : {}),
    });
  }

  addressOf(brokerId: number): WireAddress | undefined {
    const port = this.options.advertisedPorts?.[brokerId] ?? this.ports.get(brokerId);
    return port === undefined ? undefined : { host: this.advertisedHost, port };
  }

  async start(): Promise<ListenerAddresses> {
    this.session = this.newSession();
    const bind = this.options.host ?? '127.0.0.1';
    const ids = [...this.host.cluster.brokers.keys()].sort((a, b) => a - b);
    const base = this.options.kafkaPort;
    let i = 0;
    for (const id of ids) {
      this.ports.set(id, await this.listenOne(bind, base === 0 ? 0 : base + i++, id));
    }
    this.controllerPort = await this.listenOne(bind, base === 0 ? 0 : base + i, undefined);
    this.monitor = setInterval(() => this.resetDeadBrokers(), 20);
    this.monitor.unref();
    this.unsubscribe = this.host.onWorldChange(() => {
      for (const { socket } of this.sockets.values()) socket.destroy();
      this.sockets.clear();
      this.session = this.newSession();
    });
    return this.addresses;
  }

  private listenOne(bind: string, port: number, brokerId: number | undefined): Promise<number> {
    const server = createServer((socket) => this.accept(socket, brokerId));
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: bind, port }, () => {
        server.off('error', reject);
        const a = server.address();
        resolve(typeof a === 'object' && a ? a.port : port);
      });
    });
  }

  private brokerUp(brokerId: number | undefined): boolean {
    if (brokerId === undefined) return this.host.cluster.controllers.some((c) => c.up);
    return this.host.cluster.brokers.get(brokerId)?.up === true;
  }

  /** A dead broker's port resets its connections (clients see a closed connection and go elsewhere). */
  private resetDeadBrokers(): void {
    for (const { socket, brokerId } of this.sockets.values()) if (!this.brokerUp(brokerId)) socket.destroy();
  }

  /**
   * Applies a connect, request or disconnect through the host (in arrival order, recorded). One the host refuses
   * (the simulation halted, the server is closing, the request log is full) closes the connection with the reason.
   */
  private apply(socket: Socket, url: string, body: unknown, fn: () => void): void {
    this.host.mutate({ method: WIRE_LOG_METHOD, url, body }, fn, { settle: false }).catch((e: unknown) => {
      this.options.log?.(`kafka listener: closing a connection: ${(e as Error).message}`);
      socket.destroy();
    });
  }

  private accept(socket: Socket, brokerId: number | undefined): void {
    if (!this.brokerUp(brokerId) || this.host.halted !== undefined) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const id = `${++this.nextConnection}`;
    const session = this.session;
    const sink: ConnectionSink = {
      write: (frame) => {
        if (!socket.destroyed) socket.write(frame);
      },
      close: () => socket.destroy(),
    };
    this.sockets.set(id, { socket, brokerId });
    this.apply(socket, '/kafka/connect', { connection: id, listener: brokerId ?? 'controller' }, () => {
      session.connect(id, brokerId, sink);
    });
    let buffered: Buffer[] = [];
    let length = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered.push(chunk);
      length += chunk.length;
      let data = buffered.length === 1 ? buffered[0]! : Buffer.concat(buffered, length);
      let at = 0;
      while (data.length - at >= 4) {
        const size = data.readInt32BE(at);
        if (size < 0 || size > MAX_REQUEST_BYTES) {
          this.options.log?.(
            `kafka listener: closing connection ${id}: a request of ${size} bytes (socket.request.max.bytes is ${MAX_REQUEST_BYTES})`,
          );
          socket.destroy();
          return;
        }
        if (data.length - at - 4 < size) break;
        const frame = Buffer.from(data.subarray(at + 4, at + 4 + size));
        at += 4 + size;
        this.apply(socket, '/kafka/request', describeFrame(id, frame), () => session.receive(id, frame));
      }
      data = data.subarray(at);
      buffered = data.length > 0 ? [data] : [];
      length = data.length;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.sockets.delete(id);
      if (this.session === session)
        this.apply(socket, '/kafka/disconnect', { connection: id }, () => session.disconnect(id));
    });
  }

  async close(): Promise<void> {
    if (this.monitor) clearInterval(this.monitor);
    this.unsubscribe?.();
    for (const { socket } of this.sockets.values()) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** The request log's body for a frame: readable fields, and the exact bytes a replay decodes again. */
function describeFrame(connection: string, frame: Buffer) {
  const apiKey = frame.length >= 2 ? frame.readInt16BE(0) : -1;
  return {
    connection,
    api: apiName(apiKey),
    version: frame.length >= 4 ? frame.readInt16BE(2) : -1,
    frame: frame.toString('base64'),
  };
}

function clusterIdOf(host: WireHost): string {
  const h = host as { world?: { clusterId?: string } };
  return h.world?.clusterId ?? 'kafkasim';
}

/** Applies a recorded listener entry to a replayed simulation (no sockets: answers go nowhere). */
export class WireReplay {
  private session: WireSession | undefined;
  private cluster: Cluster | undefined;

  constructor(private readonly host: { readonly cluster: Cluster }) {}

  apply(url: string, body: { connection: string; listener?: number | 'controller'; frame?: string }): void {
    if (this.cluster !== this.host.cluster) {
      this.cluster = this.host.cluster;
      this.session = new WireSession(this.cluster, { clusterId: 'replay', addressOf: () => undefined });
    }
    const session = this.session!;
    if (url === '/kafka/connect')
      session.connect(body.connection, body.listener === 'controller' ? undefined : body.listener);
    else if (url === '/kafka/request')
      session.receive(body.connection, Buffer.from(body.frame ?? '', 'base64'));
    else if (url === '/kafka/disconnect') session.disconnect(body.connection);
    else throw new Error(`not a Kafka listener entry: ${url}`);
  }
}
