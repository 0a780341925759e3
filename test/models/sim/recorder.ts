// A test node that records what reaches it and answers requests according to a policy.
import { type NodeId, type RequestOutcome, SimNode, type Simulation } from '../../../models/sim/index.ts';

export interface Received {
  from: NodeId;
  payload: unknown;
  at: number;
}

export type ReplyPolicy = 'echo' | 'never' | { afterMs: number };

export class Recorder extends SimNode {
  readonly messages: Received[] = [];
  readonly requests: Received[] = [];
  replyPolicy: ReplyPolicy = 'echo';
  /** The reply functions of requests served while `replyPolicy` was 'never', to answer by hand. */
  readonly pendingReplies: ((response: unknown) => void)[] = [];

  protected override onMessage(from: NodeId, payload: unknown): void {
    this.messages.push({ from, payload, at: this.sim.now });
  }

  protected override onRequest(from: NodeId, payload: unknown, reply: (response: unknown) => void): void {
    this.requests.push({ from, payload, at: this.sim.now });
    const policy = this.replyPolicy;
    if (policy === 'echo') reply({ echo: payload });
    else if (policy === 'never') this.pendingReplies.push(reply);
    else this.schedule(policy.afterMs, () => reply({ echo: payload }));
  }

  /** Sends a request and records its outcome with the time it resolved. */
  ask(to: NodeId, payload: unknown, timeoutMs?: number): { outcome?: RequestOutcome<unknown>; at?: number } {
    const result: { outcome?: RequestOutcome<unknown>; at?: number } = {};
    this.request(
      to,
      payload,
      (outcome) => {
        if (result.outcome) throw new Error('request callback called twice');
        result.outcome = outcome;
        result.at = this.sim.now;
      },
      timeoutMs,
    );
    return result;
  }
}

/** Starts one Recorder per id. */
export function recorders(sim: Simulation, ...ids: NodeId[]): Recorder[] {
  return ids.map((id) => {
    const r = new Recorder(sim, id);
    r.start();
    return r;
  });
}
