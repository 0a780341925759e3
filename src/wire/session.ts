// The simulation side of the Kafka listeners: every real connection is a WireClient node, every request frame is
// decoded and handed to the same broker, coordinator and controller code the simulated clients use, and every
// answer is encoded back in request order (clients pipeline; Kafka answers a connection in order). Nothing here
// touches a socket: connect, receive and disconnect are applied at the current virtual time by the listener
// (through the request log) or by a replay, and the frames go to a sink that a replay leaves out.
import { brokerNodeId } from '../../models/protocol/index.ts';
import { DeliveryTracker } from '../cluster/delivery-check.ts';
import type { Cluster } from '../cluster/index.ts';
import { WireDecodeError } from './codec/bytes.ts';
import { decodeRequest, encodeResponse, type RequestFrame } from './codec/frame.ts';
import type { Message } from './codec/message-codec.ts';
import { API_SCHEMAS } from './generated/index.ts';
import { HANDLERS, type HandlerContext } from './handlers/index.ts';
import { ApiKey, apiName, apiVersionsBody, isSupported } from './supported-apis.ts';
import { WireClient } from './wire-client.ts';

export interface WireAddress {
  host: string;
  port: number;
}

/** Where a connection's frames go (a socket); a replay has none. */
export interface ConnectionSink {
  write(frame: Buffer): void;
  close(reason: string): void;
}

export interface WireConnection {
  readonly id: string;
  readonly node: WireClient;
  /** The broker whose listener accepted it; undefined for the controller's listener. */
  readonly brokerId: number | undefined;
  clientId: string;
  sink: ConnectionSink | undefined;
  closed: boolean;
  /** Answers not yet written, oldest first: a slot per request that expects one. */
  readonly pending: { frame: Buffer | undefined }[];
}

export interface WireSessionOptions {
  clusterId: string;
  /** The advertised address of a broker's listener. */
  addressOf(brokerId: number): WireAddress | undefined;
  /** Receives a line when a connection is closed for a reason (bad bytes, an API this listener cannot answer). */
  log?: (line: string) => void;
}

const UNSUPPORTED_VERSION = 35;

export class WireSession {
  readonly connections = new Map<string, WireConnection>();
  private readonly trackers = new Map<string, DeliveryTracker>();
  /** Per producing client: a batch's identity (topic, partition, CRC, count) -> its first record index. */
  private readonly batchIndex = new Map<string, Map<string, number>>();
  private readonly acked = new Map<string, Set<number>>();

  constructor(
    readonly cluster: Cluster,
    readonly options: WireSessionOptions,
  ) {}

  get clusterId(): string {
    return this.options.clusterId;
  }

  addressOf(brokerId: number): WireAddress | undefined {
    return this.options.addressOf(brokerId);
  }

  connect(id: string, brokerId: number | undefined, sink?: ConnectionSink): WireConnection {
    if (this.connections.has(id)) throw new Error(`wire connection ${id} exists`);
    const cluster = this.cluster;
    const node = new WireClient(
      cluster.sim,
      `wire-${id}`,
      brokerId !== undefined ? brokerNodeId(brokerId) : undefined,
      cluster.controllers.map((c) => c.id),
      cluster.bootstrap(),
    );
    node.start();
    const conn: WireConnection = { id, node, brokerId, clientId: '', sink, closed: false, pending: [] };
    this.connections.set(id, conn);
    return conn;
  }

  disconnect(id: string): void {
    const conn = this.connections.get(id);
    if (!conn) return;
    conn.closed = true;
    conn.sink = undefined;
    conn.node.stop();
    this.connections.delete(id);
  }

  /** Attaches a socket to a connection (a replayed connection has none). */
  attach(id: string, sink: ConnectionSink): void {
    const conn = this.connections.get(id);
    if (conn) conn.sink = sink;
  }

  /** One request frame (the bytes after the size) from a connection. */
  receive(id: string, bytes: Buffer): void {
    const conn = this.connections.get(id);
    if (!conn || conn.closed) return;
    let frame: RequestFrame;
    try {
      frame = decodeRequest(bytes);
    } catch (e) {
      if (!(e instanceof WireDecodeError)) throw e;
      return this.close(conn, `malformed request: ${e.message}`);
    }
    if (frame.clientId && frame.clientId !== conn.clientId) {
      conn.clientId = frame.clientId;
      this.cluster.requestFaults.alias(conn.node.id, frame.clientId);
    }
    const controller = conn.brokerId === undefined;
    if (frame.apiKey === ApiKey.ApiVersions) {
      // KIP-511: a version this broker does not know is answered with v0 and UNSUPPORTED_VERSION, so the client
      // learns the ranges and retries with one it shares.
      const ok = !frame.unsupported && isSupported(frame.apiKey, frame.apiVersion, controller);
      const version = ok ? frame.apiVersion : 0;
      const slot = this.slot(conn);
      return this.fill(
        conn,
        slot,
        encodeResponse(
          ApiKey.ApiVersions,
          version,
          frame.correlationId,
          apiVersionsBody(controller, ok ? 0 : UNSUPPORTED_VERSION),
        ),
      );
    }
    const handler = HANDLERS[frame.apiKey];
    if (frame.unsupported || !handler || !isSupported(frame.apiKey, frame.apiVersion, controller)) {
      return this.refuse(conn, frame, controller);
    }
    const expectsResponse = !(frame.apiKey === ApiKey.Produce && frame.body!.acks === 0);
    const slot = expectsResponse ? this.slot(conn) : undefined;
    const ctx: HandlerContext = {
      session: this,
      conn,
      version: frame.apiVersion,
      clientId: frame.clientId ?? '',
      respond: (body: Message) => {
        if (!slot) return;
        let bytes: Buffer;
        try {
          bytes = encodeResponse(frame.apiKey, frame.apiVersion, frame.correlationId, body);
        } catch (e) {
          // A model answer this version cannot carry: the client hears of it as a closed connection, the
          // simulation goes on.
          return this.close(
            conn,
            `cannot answer ${apiName(frame.apiKey)} v${frame.apiVersion}: ${(e as Error).message}`,
          );
        }
        this.fill(conn, slot, bytes);
      },
      drop: (reason: string) => this.close(conn, reason),
    };
    handler(ctx, frame.body!);
  }

  /**
   * A request this listener does not serve at that version. Kafka cannot parse such a request and closes the
   * connection; where the version is one the codec can still answer and the response has a top-level error
   * code, it is answered UNSUPPORTED_VERSION instead, so the client hears why.
   */
  private refuse(conn: WireConnection, frame: RequestFrame, controller: boolean): void {
    const api = API_SCHEMAS[frame.apiKey];
    const what = `${apiName(frame.apiKey)} v${frame.apiVersion}`;
    if (!frame.unsupported && api?.response.fields.some((f) => f.name === 'errorCode')) {
      const slot = this.slot(conn);
      return this.fill(
        conn,
        slot,
        encodeResponse(frame.apiKey, frame.apiVersion, frame.correlationId, {
          errorCode: UNSUPPORTED_VERSION,
        }),
      );
    }
    this.close(
      conn,
      controller && api && !frame.unsupported
        ? `${what} is not served by the controller's listener`
        : `unsupported request ${what} (see ApiVersions for what this listener serves)`,
    );
  }

  private slot(conn: WireConnection): { frame: Buffer | undefined } {
    const s = { frame: undefined };
    conn.pending.push(s);
    return s;
  }

  private fill(conn: WireConnection, slot: { frame: Buffer | undefined }, frame: Buffer): void {
    slot.frame = frame;
    const pending = conn.pending;
    while (pending.length > 0 && pending[0]!.frame !== undefined) {
      const f = pending.shift()!.frame!;
      if (!conn.closed) conn.sink?.write(f);
    }
  }

  /** Closes a connection (the socket; the node stops when the listener applies the disconnect). */
  close(conn: WireConnection, reason: string): void {
    if (conn.closed) return;
    conn.closed = true;
    this.options.log?.(
      `kafka listener: closing connection ${conn.id} (${conn.clientId || 'no client id'}): ${reason}`,
    );
    conn.sink?.close(reason);
  }

  // ---- delivery accounting for real producers ----------------------------------------------------------------

  /** The tracker of a producing client (by client.id), registered with the cluster's delivery reports. */
  tracker(clientId: string): DeliveryTracker {
    let t = this.trackers.get(clientId);
    if (!t) {
      t = new DeliveryTracker(clientId);
      this.trackers.set(clientId, t);
      this.cluster.trackDelivery(clientId, t);
    }
    return t;
  }

  /**
   * The record indices of a client's batch: the same batch sent again (a retry: same topic, partition, CRC and
   * count) gets the same indices, so a retry that lands twice shows as a duplicate and not as new records.
   */
  recordIndex(clientId: string, identity: string, count: number): number {
    let m = this.batchIndex.get(clientId);
    if (!m) this.batchIndex.set(clientId, (m = new Map()));
    const known = m.get(identity);
    if (known !== undefined) return known;
    const t = this.tracker(clientId);
    const index = t.sent;
    t.sent += count;
    m.set(identity, index);
    return index;
  }

  /** Notes an acknowledged batch once, however many times its retries were acknowledged. */
  acknowledge(
    clientId: string,
    topic: string,
    partition: number,
    baseOffset: number,
    index: number,
    count: number,
  ): void {
    let s = this.acked.get(clientId);
    if (!s) this.acked.set(clientId, (s = new Set()));
    if (s.has(index)) return;
    s.add(index);
    const time = this.cluster.sim.now;
    this.tracker(clientId).note({
      topic,
      partition,
      baseOffset,
      count,
      runs: [{ index, count, time }],
      time,
    });
  }
}
