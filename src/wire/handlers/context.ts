// What a request handler gets: the connection (its simulated client node), the version, and how to answer. A
// handler turns the decoded wire request into the model's request, sends it through the simulated network, and
// turns the model's answer into the wire response of that version.
import type { BrokerRequest, ControllerRequest, GroupRequest } from '../../../models/protocol/index.ts';
import type { NodeId, RequestOutcome } from '../../../models/sim/index.ts';
import type { Message } from '../codec/message-codec.ts';
import type { WireConnection, WireSession } from '../session.ts';

export interface HandlerContext {
  readonly session: WireSession;
  readonly conn: WireConnection;
  readonly version: number;
  readonly clientId: string;
  respond(body: Message): void;
  /** Closes the connection (the target broker is down: a real client sees its connection reset). */
  drop(reason: string): void;
}

export type Handler = (ctx: HandlerContext, req: Message) => void;

/** How long a sim-side request waits at most (a real client's own timeout decides before that). */
export const DEFAULT_SIM_TIMEOUT_MS = 120_000;

/** Sends a model request to `to` (default: the broker whose listener took the connection). */
export function call<R>(
  ctx: HandlerContext,
  payload: BrokerRequest | GroupRequest,
  ok: (response: R) => void,
  options: { to?: NodeId; timeoutMs?: number } = {},
): void {
  const node = ctx.conn.node;
  const to = options.to ?? node.broker;
  if (to === undefined) return ctx.drop(`${payload.type} is answered by brokers, not by the controller`);
  node.request<R>(
    to,
    payload,
    (o: RequestOutcome<R>) => {
      if (o.ok) return ok(o.response);
      // A dead broker resets its connections; a request lost to a network fault is never answered, and the
      // client's own request.timeout.ms runs out, as with a real unreachable broker.
      if (o.error === 'disconnected') ctx.drop(`${to} is down`);
    },
    options.timeoutMs ?? DEFAULT_SIM_TIMEOUT_MS,
  );
}

/** Sends an admin request to the active controller (forwarded, KIP-590). */
export function controllerCall<R>(
  ctx: HandlerContext,
  payload: ControllerRequest,
  ok: (response: R) => void,
): void {
  ctx.conn.node.controllerCall<R>(payload, (o) => {
    if (o.ok) ok(o.response);
    // TIMEOUT: no controller answered within default.api.timeout.ms; the client times out by itself.
  });
}

/** Groups an array of `{topic, partition}`-like entries by topic, keeping first-seen order. */
export function byTopic<T>(items: readonly T[], topicOf: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = topicOf(it);
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(it);
  }
  return m;
}
