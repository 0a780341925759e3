/**
 * A graceful shutdown of a Raft node, as Kafka's KafkaRaftClient.GracefulShutdown: it ends (`onDone`) once
 * another leader is known, or when it times out, and the host then stops. It ends from an event of its own,
 * never inside the role transition that made it possible.
 */

import type { SimNode } from '../sim/index.ts';

export class GracefulShutdown {
  readonly #host: SimNode;
  readonly #onDone: () => void;
  /** False once the client dropped it (a restart): it must not end then. */
  readonly #isCurrent: (shutdown: GracefulShutdown) => boolean;
  #done = false;

  constructor(
    host: SimNode,
    timeoutMs: number,
    onDone: () => void,
    isCurrent: (shutdown: GracefulShutdown) => boolean,
  ) {
    this.#host = host;
    this.#onDone = onDone;
    this.#isCurrent = isCurrent;
    host.schedule(timeoutMs, () => this.#finish(), 'raft.shutdown-timeout');
  }

  get done(): boolean {
    return this.#done;
  }

  /** Ends it (from the next event) when `canEnd`: an observer, a single voter, or a known remote leader. */
  endWhen(canEnd: boolean): void {
    if (this.#done || !canEnd) return;
    // Outside the current event: the host stops, which must not happen inside a role transition.
    this.#host.schedule(0, () => this.#finish(), 'raft.shutdown-done');
  }

  #finish(): void {
    if (this.#done || !this.#isCurrent(this)) return;
    this.#done = true;
    this.#onDone();
  }
}
