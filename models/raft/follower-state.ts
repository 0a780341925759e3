/**
 * A follower's (or observer's) state for one epoch and leader, as Kafka's `FollowerState`: the fetch deadline
 * (the fetch timer: a voter that hears nothing from its leader before it starts an election), whether it has
 * fetched from this leader yet (a follower that has grants no pre-vote, KIP-996), and the one Fetch it has in
 * flight. It pulls the leader's log: appends what comes back (flushing first when it must), truncates when the
 * leader says its log diverged, and takes the leader's high watermark up to its own log end.
 *
 * Facts: KafkaRaftClient.pollFollower / maybeSendFetchOrFetchSnapshot / handleFetchResponse / appendAsFollower,
 * FollowerState.updateHighWatermark, and KAFKA-10533 ("the leader only requires that voters have flushed their
 * log before sending a Fetch request").
 */

import { METADATA_TOPIC, type QuorumFetchRequest, type QuorumFetchResponse } from '../protocol/index.ts';
import { InvariantViolation } from '../sim/index.ts';
import { raftWriteMs } from './config.ts';
import { strictExponentialElectionBackoffMs } from './decisions.ts';
import type { RoleIo } from './role-io.ts';

export class FollowerState<T> {
  readonly #io: RoleIo<T>;
  /** It has fetched successfully from its leader since it started following. */
  hasFetchedFromLeader = false;
  #fetchInFlight = false;

  constructor(io: RoleIo<T>) {
    this.#io = io;
    this.fetchDeadline = io.host.sim.now + io.config['controller.quorum.fetch.timeout.ms'];
  }

  /** When the fetch timer expires (virtual ms); the client keeps it (RoleIo.fetchDeadline). */
  get fetchDeadline(): number {
    return this.#io.fetchDeadline;
  }

  set fetchDeadline(deadline: number) {
    this.#io.fetchDeadline = deadline;
  }

  /** Starts following: the first Fetch to the leader. */
  begin(): void {
    this.fetch(undefined);
  }

  /** Sends the next Fetch to the leader (or, with `target`, to another voter to learn of a newer leader). */
  fetch(target: number | undefined): void {
    const io = this.#io;
    const ctx = io.context;
    if (!ctx || this.#fetchInFlight || io.role !== 'follower') return;
    const destination = target ?? ctx.leaderId;
    if (destination === undefined || destination === io.nodeId) return;
    const gen = io.generation;
    const log = io.log;
    const toLeader = destination === ctx.leaderId;
    const request: QuorumFetchRequest = {
      type: 'Fetch',
      topic: METADATA_TOPIC,
      replicaId: io.nodeId,
      currentLeaderEpoch: ctx.epoch,
      fetchOffset: log.endOffset,
      lastFetchedEpoch: log.lastFetchedEpoch,
      maxWaitMs: toLeader ? io.config['kafkasim.raft.fetch.max.wait.ms'] : 0,
    };
    const backoff = (next: number | undefined) =>
      io.host.schedule(
        io.config['controller.quorum.retry.backoff.ms'],
        () => {
          if (gen === io.generation) this.fetch(next);
        },
        'raft.fetch-backoff',
      );
    this.#fetchInFlight = true;
    io.host.request<QuorumFetchResponse<T>>(
      io.addressOf(destination),
      request,
      (o) => {
        if (gen !== io.generation) return;
        this.#fetchInFlight = false;
        if (!o.ok) {
          // The leader does not answer: ask another voter whether there is a new leader, then try it again.
          const others = io.voters.filter((v) => v !== io.nodeId && v !== destination);
          return void backoff(
            toLeader && others.length > 0 ? io.host.random('raft/bootstrap').pick(others) : undefined,
          );
        }
        const r = o.response;
        if (io.handleCommonResponse(r) || r.errorCode !== 0 || !toLeader) {
          if (gen === io.generation) backoff(undefined);
          return;
        }
        // Writing what came back takes kafkasim.raft.append.ms (and fsync.ms when this node flushes) on the Raft
        // thread: the records are in the log, and the next Fetch leaves, only after that.
        const writeMs =
          r.records.length > 0 && !r.divergingEpoch ? raftWriteMs(io.config, io.followerFlushes) : 0;
        if (writeMs > 0) {
          io.host.schedule(
            writeMs,
            () =>
              io.guarded(() => {
                if (gen !== io.generation) return;
                this.#onFetchResponse(r);
                if (gen === io.generation) this.fetch(undefined);
              }),
            'raft.follower-write',
          );
          return;
        }
        this.#onFetchResponse(r);
        if (gen === io.generation) this.fetch(undefined);
      },
      io.config['controller.quorum.request.timeout.ms'],
    );
  }

  /**
   * Its leader resigned naming `successors`: the most up-to-date successor starts an election at once, the others
   * back off exponentially (KafkaRaftClient.strictExponentialElectionBackoffMs). True when the deadline moved.
   */
  onEndQuorumEpoch(successors: readonly number[]): boolean {
    const io = this.#io;
    const position = successors.indexOf(io.nodeId);
    const backoff = strictExponentialElectionBackoffMs(
      position < 0 ? successors.length : position,
      successors.length,
      io.config['controller.quorum.election.backoff.max.ms'],
    );
    const deadline = io.host.sim.now + backoff;
    if (deadline >= this.fetchDeadline) return false;
    this.fetchDeadline = deadline;
    return true;
  }

  #onFetchResponse(r: QuorumFetchResponse<T>): void {
    const io = this.#io;
    const log = io.log;
    if (r.divergingEpoch) {
      const hw = Math.max(io.highWatermark ?? 0, log.highWatermark);
      if (r.divergingEpoch.offset < hw) {
        throw new InvariantViolation(
          'NoCommittedTruncation',
          `node ${io.nodeId}: the leader asked for truncation to offset ${r.divergingEpoch.offset}, below the ` +
            `high watermark ${hw}`,
          io.host.sim.context(),
        );
      }
      const offset = log.truncationOffsetFor(r.divergingEpoch);
      io.host.emit('raft.truncate', { from: log.endOffset, to: offset, epoch: io.epoch });
      log.truncateTo(offset);
    } else {
      if (r.records.length > 0) {
        log.append(r.records);
        // "The leader only requires that voters have flushed their log before sending a Fetch request."
        if (io.followerFlushes) log.flush();
      }
      if (r.highWatermark >= 0) this.#updateHighWatermark(Math.min(log.endOffset, r.highWatermark));
    }
    this.hasFetchedFromLeader = true;
    this.fetchDeadline = io.host.sim.now + io.config['controller.quorum.fetch.timeout.ms'];
  }

  #updateHighWatermark(hw: number): void {
    const io = this.#io;
    // The log remembers the high watermark across a leadership of this node that never committed.
    const current = Math.max(io.highWatermark ?? 0, io.log.highWatermark);
    if (hw < current) {
      throw new InvariantViolation(
        'MonotonicHighWatermark',
        `node ${io.nodeId}: the high watermark would move back from ${current} to ${hw}`,
        io.host.sim.context(),
      );
    }
    if (hw !== io.highWatermark) io.setHighWatermark(hw);
  }
}
