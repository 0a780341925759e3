/**
 * A Candidate's or a Prospective's vote requests, as Kafka's `NomineeState` (which CandidateState and, with
 * KIP-996, ProspectiveState implement): a Vote to every other voter, retried after
 * `controller.quorum.retry.backoff.ms` until the voter answers; the machine counts the answers (Kafka's
 * EpochElection) and decides. A Prospective asks for pre-votes in its current epoch, a Candidate for votes in
 * the epoch it started.
 *
 * Facts: KafkaRaftClient.maybeSendVoteRequests / buildVoteRequest / handleVoteResponse, KIP-996.
 */

import type { VoteRequest, VoteResponse } from '../protocol/index.ts';
import type { RoleIo } from './role-io.ts';

export class NomineeState<T> {
  readonly #io: RoleIo<T>;
  readonly #preVote: boolean;
  readonly #gen: number;
  readonly #epoch: number;

  constructor(io: RoleIo<T>, preVote: boolean) {
    this.#io = io;
    this.#preVote = preVote;
    this.#gen = io.generation;
    this.#epoch = io.context!.epoch;
  }

  /** A Vote request to every other voter. */
  begin(): void {
    const io = this.#io;
    for (const v of io.voters) if (v !== io.nodeId) this.#requestVote(v, false);
  }

  /** `retrying`: a later attempt, when the machine's count (read outside a transition) says who answered. */
  #requestVote(voter: number, retrying: boolean): void {
    const io = this.#io;
    const gen = this.#gen;
    const epoch = this.#epoch;
    const preVote = this.#preVote;
    if (gen !== io.generation || !io.machineRunning) return;
    if (retrying) {
      const votes = io.votes();
      if (votes.granted.includes(voter) || votes.rejected.includes(voter)) return;
    }
    const log = io.log;
    const request: VoteRequest = {
      type: 'Vote',
      candidateEpoch: epoch,
      candidateId: io.nodeId,
      lastOffsetEpoch: log.lastFetchedEpoch,
      lastOffset: log.endOffset,
      preVote,
    };
    const retry = () =>
      io.host.schedule(
        io.config['controller.quorum.retry.backoff.ms'],
        () => this.#requestVote(voter, true),
        'raft.vote-retry',
      );
    io.host.request<VoteResponse>(
      io.addressOf(voter),
      request,
      (o) => {
        if (gen !== io.generation) return;
        if (!o.ok) return void retry();
        if (io.handleCommonResponse(o.response)) return;
        if (o.response.errorCode !== 0) return void retry();
        io.send({ type: 'VOTE_RESULT', epoch, from: voter, granted: o.response.voteGranted, preVote });
      },
      io.config['controller.quorum.request.timeout.ms'],
    );
  }
}
