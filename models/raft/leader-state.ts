/**
 * The leader's state for one epoch, as Kafka's `LeaderState`: the epoch start offset, what each voter and observer
 * last fetched (their end offsets count for the high watermark), the check-quorum deadline, the accumulator of
 * appends not yet in the log (KafkaRaftClient's BatchAccumulator, drained after `controller.quorum.append.linger.ms`),
 * and the Fetch requests parked until the log grows (KafkaRaftClient's fetch purgatory). Created when the node
 * wins an election, closed when it leaves the role.
 *
 * Facts: LeaderState.maybeUpdateHighWatermark / updateReplicaState / updateCheckQuorumForFollowingVoter,
 * KafkaRaftClient.onBecomeLeader, maybeAppendBatches, flushLeaderLog, handleFetchRequest, and KAFKA-10533 for
 * the flushed offset the leader counts for itself.
 */

import type {
  BeginQuorumEpochRequest,
  QuorumFetchRequest,
  QuorumFetchResponse,
  QuorumResponse,
} from '../protocol/index.ts';
import type { NodeId, Timer } from '../sim/index.ts';
import { raftWriteMs } from './config.ts';
import { nextHighWatermark } from './decisions.ts';
import type { RaftBatch } from './raft-log.ts';
import type { RoleIo } from './role-io.ts';

/** Kafka's KafkaRaftClient.MAX_FETCH_SIZE_BYTES is 1 MiB; kafkasim counts records instead (whole batches). */
const MAX_FETCH_RECORDS = 4096;

export interface ReplicaDescription {
  readonly replicaId: number;
  /** The fetch offset of its last Fetch (the leader's own: what it counts for the HW). */
  readonly endOffset: number | undefined;
  readonly lastFetchMs: number | undefined;
}

/** The leader's view of the quorum (Kafka's DescribeQuorum). */
export interface QuorumDescription {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: number;
  readonly voters: readonly ReplicaDescription[];
  readonly observers: readonly ReplicaDescription[];
}

interface ReplicaState {
  endOffset: number | undefined;
  lastFetchMs: number | undefined;
}

interface ParkedFetch {
  readonly from: NodeId;
  readonly request: QuorumFetchRequest;
  readonly reply: (response: QuorumFetchResponse) => void;
  readonly timer: Timer;
}

export class LeaderState<T> {
  readonly #io: RoleIo<T>;
  readonly epoch: number;
  /** The log end when this node won: the LeaderChange record there must commit before the HW moves. */
  readonly epochStartOffset: number;
  readonly #voters: Map<number, ReplicaState>;
  readonly #observers = new Map<number, ReplicaState>();
  /** Voters that fetched since check-quorum was last satisfied. */
  #fetchedVoters = new Set<number>();
  #checkQuorumDeadline: number;
  /** Accumulated appends (one batch each), offsets assigned, not yet in the log. */
  #pending: RaftBatch<T>[] = [];
  #pendingRecords = 0;
  /** When the oldest pending append arrived (the linger counts from it). */
  #pendingSince = 0;
  /** Drained batches being written (append and flush take kafkasim.raft.append.ms and fsync.ms). */
  #writingRecords = 0;
  #writeTimer: Timer | undefined;
  #drainTimer: Timer | undefined;
  readonly #parked = new Set<ParkedFetch>();
  /** The leader-change listeners were told: it has committed its epoch start. */
  #claimed = false;
  /** Scratch for the high-watermark computation (runs on every Fetch). */
  readonly #endOffsets: (number | undefined)[] = [];

  constructor(io: RoleIo<T>, epoch: number) {
    this.#io = io;
    this.epoch = epoch;
    this.epochStartOffset = io.log.endOffset;
    const replica = (): ReplicaState => ({ endOffset: undefined, lastFetchMs: undefined });
    this.#voters = new Map(io.voters.filter((v) => v !== io.nodeId).map((v) => [v, replica()]));
    this.#checkQuorumDeadline = io.host.sim.now + 1.5 * io.config['controller.quorum.fetch.timeout.ms'];
  }

  /** It has committed a record of its own epoch (its epoch start), so its listeners may be told. */
  get claimed(): boolean {
    return this.#claimed;
  }

  get checkQuorumDeadline(): number {
    return this.#checkQuorumDeadline;
  }

  /** Records appended but not yet in the log (in the accumulator, or being written). */
  get pendingRecords(): number {
    return this.#pendingRecords + this.#writingRecords;
  }

  /** A voter's end offset as of its last Fetch (undefined for this node and for voters not heard from). */
  endOffsetOf(voterId: number): number | undefined {
    return this.#voters.get(voterId)?.endOffset;
  }

  /**
   * KafkaRaftClient.onBecomeLeader: the LeaderChange control record at the epoch start lets the HW move without
   * waiting for user records; then BeginQuorumEpoch tells the voters.
   */
  begin(): void {
    const io = this.#io;
    const log = io.log;
    io.host.emit('raft.leader', { epoch: this.epoch, epochStartOffset: this.epochStartOffset });
    log.append([
      Object.freeze({
        baseOffset: log.endOffset,
        epoch: this.epoch,
        records: [],
        control: Object.freeze({ type: 'LeaderChange' as const, leaderId: io.nodeId, voters: io.voters }),
      }),
    ]);
    this.#flushLog();
    this.sendBeginQuorumEpoch();
  }

  /** Leaving the role: the accumulator stops, and parked fetches are handed to `answer` now. */
  close(
    answer: (from: NodeId, request: QuorumFetchRequest, reply: (r: QuorumFetchResponse) => void) => void,
  ): void {
    this.#drainTimer?.cancel();
    // A write under way when the role ends is never completed: its records were not acknowledged.
    this.#writeTimer?.cancel();
    // Parked fetches are answered now, with this node's new epoch and leader, so fetchers move on at once.
    for (const p of this.#parked) {
      p.timer.cancel();
      answer(p.from, p.request, p.reply);
    }
    this.#parked.clear();
  }

  /** BeginQuorumEpoch to every other voter (on election, then every fetch timeout / 2 from the machine). */
  sendBeginQuorumEpoch(): void {
    const io = this.#io;
    if (io.leader !== this || io.role !== 'leader') return;
    const gen = io.generation;
    const request: BeginQuorumEpochRequest = {
      type: 'BeginQuorumEpoch',
      leaderEpoch: this.epoch,
      leaderId: io.nodeId,
    };
    for (const v of this.#voters.keys()) {
      io.host.request<QuorumResponse>(
        io.addressOf(v),
        request,
        (o) => {
          if (gen === io.generation && o.ok) io.handleCommonResponse(o.response);
        },
        io.config['controller.quorum.request.timeout.ms'],
      );
    }
  }

  /** Accumulates one batch; the accumulator drains after the linger time. */
  append(records: readonly T[]): { baseOffset: number; lastOffset: number } {
    const io = this.#io;
    const baseOffset = io.log.endOffset + this.#writingRecords + this.#pendingRecords;
    // One batch per append; the caller hands the records over (they must not change afterwards).
    if (this.#pending.length === 0) this.#pendingSince = io.host.sim.now;
    this.#pending.push(Object.freeze({ baseOffset, epoch: this.epoch, records }));
    this.#pendingRecords += records.length;
    // While a write is under way the Raft thread is busy: the next drain is scheduled when it ends.
    if (!this.#drainTimer && !this.#writeTimer) this.#scheduleDrain();
    return { baseOffset, lastOffset: baseOffset + records.length - 1 };
  }

  /** The accumulator drains `append.linger.ms` after its oldest pending append (at once if that has passed). */
  #scheduleDrain(): void {
    const io = this.#io;
    // The linger less the time already waited (subtracted, not via an absolute due time, so that a drain right
    // after the first append is exactly linger.ms away).
    const waited = io.host.sim.now - this.#pendingSince;
    this.#drainTimer = io.host.schedule(
      Math.max(0, io.config['controller.quorum.append.linger.ms'] - waited),
      () => io.guarded(() => this.#drain()),
      'raft.linger',
    );
  }

  /**
   * The accumulator drains: append the batch, answer the parked fetches, then flush
   * (KafkaRaftClient.maybeAppendBatches, flushLeaderLog: "We update the end offset before flushing so that parked
   * fetches can return sooner"). With kafkasim.raft.append.ms the batch reaches the log that much later; with
   * kafkasim.raft.fsync.ms the flush takes that long, and only then does the leader count the records for itself
   * and drain again (its Raft thread is in the fsync). Followers get the records while the leader flushes.
   */
  #drain(): void {
    this.#drainTimer = undefined;
    const io = this.#io;
    if (io.leader !== this || this.#pending.length === 0) return;
    const batches = this.#pending;
    this.#pending = [];
    const records = this.#pendingRecords;
    this.#pendingRecords = 0;
    const appendMs = io.config['kafkasim.raft.append.ms'];
    const fsyncMs = raftWriteMs(io.config, io.flushEnabled) - appendMs;
    if (appendMs + fsyncMs <= 0) {
      io.log.append(batches);
      this.#flushLog();
      return;
    }
    const flushed = () => {
      this.#writeTimer = undefined;
      if (io.leader !== this) return;
      this.#flushLog();
      if (this.#pending.length > 0 && !this.#drainTimer) this.#scheduleDrain();
    };
    const appended = () => {
      this.#writingRecords = 0;
      if (io.leader !== this) return;
      io.log.append(batches);
      this.#completeParkedFetches();
      if (fsyncMs > 0) this.#writeTimer = io.host.schedule(fsyncMs, () => io.guarded(flushed), 'raft.flush');
      else flushed();
    };
    this.#writingRecords = records;
    this.#writeTimer =
      appendMs > 0 ? io.host.schedule(appendMs, () => io.guarded(appended), 'raft.write') : undefined;
    if (appendMs <= 0) appended();
  }

  #flushLog(): void {
    if (this.#io.flushEnabled) this.#io.log.flush();
    this.#maybeAdvanceHighWatermark();
    this.#completeParkedFetches();
  }

  /** What the leader counts for itself: its flushed offset (KAFKA-10533), or its log end without the fix. */
  selfEndOffset(): number {
    const log = this.#io.log;
    return this.#io.flushEnabled ? log.flushedOffset : log.endOffset;
  }

  #maybeAdvanceHighWatermark(): void {
    const io = this.#io;
    const offsets = this.#endOffsets;
    offsets.length = 0;
    offsets.push(this.selfEndOffset());
    for (const s of this.#voters.values()) offsets.push(s.endOffset);
    const next = nextHighWatermark(offsets, this.epochStartOffset, io.highWatermark);
    if (next === undefined) return;
    io.setHighWatermark(Math.min(next, io.log.endOffset));
    if (!this.#claimed && io.leader === this) {
      this.#claimed = true;
      io.maybeFireLeaderChange();
    }
  }

  #completeParkedFetches(): void {
    if (this.#parked.size === 0) return;
    const end = this.#io.log.endOffset;
    for (const p of [...this.#parked]) {
      if (p.request.fetchOffset >= end) continue;
      this.#parked.delete(p);
      p.timer.cancel();
      this.#io.handleFetch(p.from, p.request, p.reply);
    }
  }

  /**
   * KafkaRaftClient.handleFetchRequest past its epoch and role checks: a diverging fetch gets the epoch to
   * truncate to; otherwise the fetcher's position counts for the HW and it gets the batches after it, or, with
   * nothing new and `mayPark`, waits until the log grows or its maxWaitMs runs out.
   */
  serveFetch(
    from: NodeId,
    req: QuorumFetchRequest,
    reply: (r: QuorumFetchResponse) => void,
    mayPark: boolean,
  ): void {
    const io = this.#io;
    const log = io.log;
    const hw = io.highWatermark ?? -1;
    const validation = log.validateOffsetAndEpoch(req.fetchOffset, req.lastFetchedEpoch);
    if (validation.kind === 'DIVERGING') {
      reply({
        ...io.quorumResponse(0),
        highWatermark: hw,
        records: [],
        divergingEpoch: validation.diverging,
      });
      return;
    }
    this.#updateReplicaState(req.replicaId, req.fetchOffset);
    const records = log.readBatches(req.fetchOffset, log.endOffset, MAX_FETCH_RECORDS);
    if (records.length > 0 || req.maxWaitMs === 0 || !mayPark) {
      reply({ ...io.quorumResponse(0), highWatermark: io.highWatermark ?? -1, records });
      return;
    }
    // Nothing new: park the fetch until the log grows past its offset, or the wait runs out.
    const parked: ParkedFetch = {
      from,
      request: req,
      reply,
      timer: io.host.schedule(
        req.maxWaitMs,
        () => {
          if (this.#parked.delete(parked)) io.handleFetch(from, req, reply);
        },
        'raft.fetch-wait',
      ),
    };
    this.#parked.add(parked);
  }

  #updateReplicaState(replicaId: number, fetchOffset: number): void {
    const io = this.#io;
    const now = io.host.sim.now;
    const voter = this.#voters.get(replicaId);
    if (!voter) {
      if (replicaId !== io.nodeId)
        this.#observers.set(replicaId, { endOffset: fetchOffset, lastFetchMs: now });
      return;
    }
    voter.endOffset = fetchOffset;
    voter.lastFetchMs = now;
    // Check-quorum: the timer restarts each time a majority (the leader included) has fetched.
    this.#fetchedVoters.add(replicaId);
    if (this.#fetchedVoters.size + 1 >= io.majority) {
      this.#checkQuorumDeadline = now + 1.5 * io.config['controller.quorum.fetch.timeout.ms'];
      this.#fetchedVoters = new Set();
    }
    this.#maybeAdvanceHighWatermark();
  }

  describe(): QuorumDescription {
    const io = this.#io;
    const describe = (id: number, s: ReplicaState): ReplicaDescription => ({
      replicaId: id,
      endOffset: s.endOffset,
      lastFetchMs: s.lastFetchMs,
    });
    return {
      leaderId: io.nodeId,
      leaderEpoch: this.epoch,
      highWatermark: io.highWatermark ?? -1,
      voters: [
        { replicaId: io.nodeId, endOffset: this.selfEndOffset(), lastFetchMs: io.host.sim.now },
        ...[...this.#voters].map(([id, s]) => describe(id, s)),
      ],
      observers: [...this.#observers].map(([id, s]) => describe(id, s)),
    };
  }
}
