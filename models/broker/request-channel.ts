// The broker's socket layer (Kafka's SocketServer/RequestChannel): requests from one connection are processed
// one at a time, in order; the channel is muted from a request's arrival until its response is sent. That is
// what keeps an idempotent producer's pipelined batches in order. Clients talk to their group coordinator over
// a connection of its own (Java and librdkafka both do), so a parked JoinGroup never holds up their fetches.

import type { BrokerRequest } from '../protocol/index.ts';
import { isGroupRequest } from '../protocol/index.ts';
import type { NodeId } from '../sim/index.ts';

type Reply = (response: unknown, sendDelayMs?: number) => void;

interface Connection {
  queue: { payload: BrokerRequest; reply: Reply }[];
  busy: boolean;
}

export class RequestChannel {
  private connections = new Map<string, Connection>();

  constructor(
    /** The broker's node: a response from an earlier incarnation is never sent. */
    private readonly node: { readonly incarnation: number },
    /** Handles one request; `done` sends its response. */
    private readonly handle: (req: BrokerRequest, done: Reply) => void,
  ) {}

  reset(): void {
    this.connections = new Map();
  }

  receive(from: NodeId, payload: unknown, reply: Reply): void {
    const key = isGroupRequest(payload) ? `${from}/coordinator` : from;
    let conn = this.connections.get(key);
    if (!conn) this.connections.set(key, (conn = { queue: [], busy: false }));
    if (conn.busy) conn.queue.push({ payload: payload as BrokerRequest, reply });
    else this.serve(conn, payload as BrokerRequest, reply);
  }

  private next(conn: Connection): void {
    const item = conn.queue.shift();
    if (!item) {
      conn.busy = false;
      return;
    }
    this.serve(conn, item.payload, item.reply);
  }

  private serve(conn: Connection, payload: BrokerRequest, reply: Reply): void {
    conn.busy = true;
    const node = this.node;
    const incarnation = node.incarnation;
    this.handle(payload, (response, sendDelayMs) => {
      if (node.incarnation !== incarnation) return;
      reply(response, sendDelayMs);
      this.next(conn);
    });
  }
}
