/**
 * An unattached node's search for the leader, as Kafka's `UnattachedState` with
 * KafkaRaftClient.maybeSendFetchToAnyBootstrap: every `controller.quorum.retry.backoff.ms`, a Fetch to a random
 * voter it is not already waiting for (so that one dead voter cannot stall it); an answer that names a leader or a
 * newer epoch moves it on. The vote it gave and its election timer are the machine's.
 */

import { METADATA_TOPIC, type QuorumFetchRequest, type QuorumFetchResponse } from '../protocol/index.ts';
import type { RoleIo } from './role-io.ts';

export class UnattachedState<T> {
  readonly #io: RoleIo<T>;
  readonly #gen: number;
  /** Voters it is asking who leads. */
  readonly #probing = new Set<number>();

  constructor(io: RoleIo<T>) {
    this.#io = io;
    this.#gen = io.generation;
  }

  begin(): void {
    this.#discover();
  }

  #discover(): void {
    const io = this.#io;
    const gen = this.#gen;
    if (gen !== io.generation || io.role !== 'unattached') return;
    const ctx = io.context!;
    const probing = this.#probing;
    const candidates = io.voters.filter((v) => v !== io.nodeId && !probing.has(v));
    if (candidates.length > 0) {
      const voter = io.host.random('raft/bootstrap').pick(candidates);
      probing.add(voter);
      const log = io.log;
      const request: QuorumFetchRequest = {
        type: 'Fetch',
        topic: METADATA_TOPIC,
        replicaId: io.nodeId,
        currentLeaderEpoch: ctx.epoch,
        fetchOffset: log.endOffset,
        lastFetchedEpoch: log.lastFetchedEpoch,
        maxWaitMs: 0,
      };
      io.host.request<QuorumFetchResponse<T>>(
        io.addressOf(voter),
        request,
        (o) => {
          probing.delete(voter);
          if (gen === io.generation && o.ok) io.handleCommonResponse(o.response);
        },
        io.config['controller.quorum.request.timeout.ms'],
      );
    }
    io.host.schedule(
      io.config['controller.quorum.retry.backoff.ms'],
      () => this.#discover(),
      'raft.discover',
    );
  }
}
