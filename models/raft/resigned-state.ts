/**
 * A resigned leader's state, as Kafka's `ResignedState`: the voters that have not yet acknowledged its
 * EndQuorumEpoch (sent at once, then retried after `controller.quorum.retry.backoff.ms` until each answers) and the
 * successors it names, by descending fetch offset, so that the most up-to-date one starts the next election
 * first. The machine's election timer ends the role.
 *
 * Facts: KafkaRaftClient.maybeSendEndQuorumEpoch / handleEndQuorumEpochResponse, ResignedState.
 */

import type { EndQuorumEpochRequest, QuorumResponse } from '../protocol/index.ts';
import type { RoleIo } from './role-io.ts';

export class ResignedState<T> {
  readonly #io: RoleIo<T>;
  readonly #gen: number;
  readonly #unacknowledged: Set<number>;

  constructor(io: RoleIo<T>) {
    this.#io = io;
    this.#gen = io.generation;
    this.#unacknowledged = new Set(io.voters.filter((v) => v !== io.nodeId));
  }

  begin(): void {
    const io = this.#io;
    const ctx = io.context!;
    io.host.emit('raft.resign', { epoch: ctx.epoch, successors: [...ctx.preferredSuccessors] });
    for (const v of this.#unacknowledged) this.#sendEndQuorumEpoch(v);
  }

  #sendEndQuorumEpoch(voter: number): void {
    const io = this.#io;
    const gen = this.#gen;
    if (gen !== io.generation || !this.#unacknowledged.has(voter)) return;
    const ctx = io.context!;
    const request: EndQuorumEpochRequest = {
      type: 'EndQuorumEpoch',
      leaderEpoch: ctx.epoch,
      leaderId: io.nodeId,
      preferredSuccessors: ctx.preferredSuccessors,
    };
    io.host.request<QuorumResponse>(
      io.addressOf(voter),
      request,
      (o) => {
        if (gen !== io.generation) return;
        if (o.ok && io.handleCommonResponse(o.response)) return;
        if (o.ok && o.response.errorCode === 0) {
          this.#unacknowledged.delete(voter);
          return;
        }
        io.host.schedule(
          io.config['controller.quorum.retry.backoff.ms'],
          () => this.#sendEndQuorumEpoch(voter),
          'raft.end-quorum-retry',
        );
      },
      io.config['controller.quorum.request.timeout.ms'],
    );
  }
}
