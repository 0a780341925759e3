/**
 * A KRaft client: the component a host node embeds to be a member (voter or observer) of the Raft quorum that
 * replicates one log, like Kafka's KafkaRaftClient. The roles and their timers are the quorum machine's
 * (quorum-machine.ts); each role's state is its own class, created on entering the role, as Kafka's QuorumState
 * holds an EpochState: LeaderState (accumulator, replica states, high watermark, parked fetches), FollowerState
 * (fetching), NomineeState (a Candidate's or Prospective's votes), ResignedState (EndQuorumEpoch) and
 * UnattachedState (finding the leader). This class holds the quorum-state file, the log and the high watermark,
 * serves the requests of other members, and tells its listeners about commits and leader changes.
 *
 * The host forwards its lifecycle (`start` from onStart, `crash` from onCrash, `close` from onStop) and the
 * quorum requests it receives (`handleRequest`). Everything durable is in the host's `disk`.
 *
 * Facts: KIP-595 (the protocol), KAFKA-10533 (flush); KafkaRaftClient's handle*Request/Response and
 * maybeHandleCommonResponse, as noted where used.
 */

import type { Actor } from 'xstate';
import {
  type BeginQuorumEpochRequest,
  type EndQuorumEpochRequest,
  Errors,
  isRaftRequest,
  NO_LEADER_ID,
  type QuorumFetchRequest,
  type QuorumFetchResponse,
  type QuorumResponse,
  type VoteRequest,
  type VoteResponse,
} from '../protocol/index.ts';
import type { NodeId, SimNode } from '../sim/index.ts';
import { parseQuorumVoters, type QuorumConfig, resolveQuorumConfig } from './config.ts';
import {
  canGrantVote,
  isLogUpToDate,
  majority,
  type QuorumRole,
  successorsByDescendingFetchOffset,
} from './decisions.ts';
import { FollowerState } from './follower-state.ts';
import { GracefulShutdown } from './graceful-shutdown.ts';
import { LeaderState, type QuorumDescription } from './leader-state.ts';
import { NomineeState } from './nominee-state.ts';
import { startOsWriteback } from './os-writeback.ts';
import {
  type QuorumContext,
  type QuorumEnvironment,
  type QuorumEvent,
  type QuorumMachine,
  quorumMachine,
} from './quorum-machine.ts';
import { type ElectionState, initialState, NO_ELECTION, QuorumStateStore } from './quorum-state.ts';
import { type LeaderAndEpoch, NotLeaderError, type RaftClientOptions } from './raft-client-options.ts';
import { type RaftEntry, RaftLog } from './raft-log.ts';
import { ResignedState } from './resigned-state.ts';
import type { RoleIo } from './role-io.ts';
import { UnattachedState } from './unattached-state.ts';

export type { QuorumDescription, ReplicaDescription } from './leader-state.ts';
export { type LeaderAndEpoch, NotLeaderError, type RaftClientOptions } from './raft-client-options.ts';

export class RaftClient<T = unknown> {
  readonly nodeId: number;
  readonly voters: readonly number[];
  readonly config: QuorumConfig;
  readonly isVoter: boolean;
  readonly addressOf: (replicaId: number) => NodeId;
  readonly store: QuorumStateStore;
  readonly #host: SimNode;
  readonly #logKey: string;
  readonly #flushEnabled: boolean;
  readonly #followerFlushes: boolean;
  readonly #majority: number;
  readonly #env: QuorumEnvironment;
  #actor: Actor<QuorumMachine> | undefined;
  #role: QuorumRole | 'down' = 'down';
  #ctx: QuorumContext | undefined;
  #generation = 0;
  #highWatermark: number | undefined;
  #fetchDeadline = 0;
  readonly #io: RoleIo<T>;
  /** The current role's state (Kafka's EpochState), created when the role is entered. */
  #state:
    | LeaderState<T>
    | FollowerState<T>
    | NomineeState<T>
    | ResignedState<T>
    | UnattachedState<T>
    | undefined;
  #shutdown: GracefulShutdown | undefined;
  #lastLeaderAndEpoch: LeaderAndEpoch | undefined;
  #commitListeners: ((highWatermark: number) => void)[] = [];
  #leaderListeners: ((leader: LeaderAndEpoch) => void)[] = [];

  constructor(host: SimNode, options: RaftClientOptions) {
    this.#host = host;
    this.nodeId = options.nodeId;
    this.config = resolveQuorumConfig(options.config);
    const configured = parseQuorumVoters(this.config['controller.quorum.voters']).map((v) => v.id);
    const voters = options.voters ?? configured;
    if (voters.length === 0)
      throw new Error('a Raft client needs voters (options.voters or controller.quorum.voters)');
    if (new Set(voters).size !== voters.length) throw new Error(`duplicate voter ids in ${voters.join(',')}`);
    this.voters = Object.freeze([...voters]);
    this.isVoter = this.voters.includes(this.nodeId);
    this.#majority = majority(this.voters.length);
    this.addressOf = options.addressOf ?? ((id) => `raft-${id}`);
    const prefix = options.diskKey ?? 'raft';
    this.#logKey = `${prefix}/log`;
    this.store = new QuorumStateStore(host.disk, `${prefix}/quorum-state`);
    this.#flushEnabled = this.config['kafkasim.raft.flush.enable'];
    this.#followerFlushes = this.#flushEnabled && (this.isVoter || options.followersAlwaysFlush === true);
    this.#env = this.#environment();
    this.#io = this.#roleIo();
  }

  // ---- views -------------------------------------------------------------------------------------------------

  /** The replicated log (on the node's disk: it outlives crashes, minus what was not flushed). */
  get log(): RaftLog<T> {
    let log = this.#host.disk.get(this.#logKey) as RaftLog<T> | undefined;
    if (!log) {
      log = new RaftLog<T>();
      this.#host.disk.set(this.#logKey, log);
    }
    return log;
  }

  /** 'down' while the host is not running. */
  get role(): QuorumRole | 'down' {
    return this.#role;
  }

  get epoch(): number {
    return this.#ctx?.epoch ?? this.store.read()?.epoch ?? 0;
  }

  /** The leader of the current epoch, if known (this node when it leads). */
  get leaderId(): number | undefined {
    return this.#role === 'down' ? undefined : this.#ctx?.leaderId;
  }

  get votedId(): number | undefined {
    return this.#ctx?.votedId;
  }

  get isLeader(): boolean {
    return this.#role === 'leader';
  }

  /** The high watermark this node knows; undefined for a new leader until it commits its epoch start. */
  get highWatermark(): number | undefined {
    return this.#role === 'down' ? undefined : this.#highWatermark;
  }

  /** The leader's epoch start offset (undefined when not leading). */
  get epochStartOffset(): number | undefined {
    return this.#leader?.epochStartOffset;
  }

  /** The next offset `append` assigns on the leader; the log end elsewhere. */
  get endOffset(): number {
    return this.log.endOffset + (this.#leader?.pendingRecords ?? 0);
  }

  get isShuttingDown(): boolean {
    return this.#shutdown?.done === false;
  }

  /** The stored election state (what the quorum-state file says). */
  get electionState(): ElectionState | undefined {
    return this.store.read();
  }

  /**
   * The committed end: the log's high watermark. A new leader has none of its own yet, but what was committed
   * stays committed.
   */
  get committedEnd(): number {
    return this.#role === 'down' ? 0 : this.log.highWatermark;
  }

  /** Committed records from `fromOffset`, at most `max`. Control records included (their `record` is undefined). */
  readCommitted(fromOffset: number, max = Number.POSITIVE_INFINITY): RaftEntry<T>[] {
    return this.log.read(fromOffset, this.committedEnd, max);
  }

  /** Calls `fn` for each committed record from `fromOffset` (control records too), without allocating. */
  forEachCommitted(fromOffset: number, fn: Parameters<RaftLog<T>['forEachRecord']>[2]): void {
    this.log.forEachRecord(fromOffset, this.committedEnd, fn);
  }

  /** Called with the new high watermark whenever it advances; returns the unsubscribe function. */
  onCommit(listener: (highWatermark: number) => void): () => void {
    this.#commitListeners = [...this.#commitListeners, listener];
    return () => {
      this.#commitListeners = this.#commitListeners.filter((l) => l !== listener);
    };
  }

  /**
   * Called when the (epoch, leader) this node knows changes. The local leader is announced only once it has
   * committed its epoch start, so that its listeners have seen every record committed before (Kafka fires
   * handleLeaderChange for the leader after the listener reached the epoch start offset).
   */
  onLeaderChange(listener: (leader: LeaderAndEpoch) => void): () => void {
    this.#leaderListeners = [...this.#leaderListeners, listener];
    return () => {
      this.#leaderListeners = this.#leaderListeners.filter((l) => l !== listener);
    };
  }

  describeQuorum(): QuorumDescription | undefined {
    const l = this.#leader;
    if (!l || this.#role !== 'leader') return undefined;
    return l.describe();
  }

  // ---- lifecycle ---------------------------------------------------------------------------------------------

  /** From the host's onStart: reopen the log (losing what was not flushed) and resume from the stored state. */
  start(): void {
    const log = this.log;
    const lost = log.reopen();
    if (lost > 0) this.#host.emit('raft.unflushed-lost', { entries: lost, endOffset: log.endOffset });
    this.#generation++;
    this.#highWatermark = undefined;
    this.#state = undefined;
    this.#shutdown = undefined;
    this.#lastLeaderAndEpoch = undefined;
    const input = {
      env: this.#env,
      ...initialState(this.store.read() ?? NO_ELECTION, log.lastFetchedEpoch, {
        nodeId: this.nodeId,
        isVoter: this.isVoter,
        preVote: this.config['kafkasim.raft.pre.vote.enable'],
      }),
    };
    this.#ctx = undefined;
    this.#role = 'unattached';
    if (!this.#flushEnabled) startOsWriteback(this.#host, this.config, () => this.log);
    this.#actor = this.#host.spawn(quorumMachine, { input });
  }

  /** From the host's onCrash: volatile state is gone, and so is every unflushed entry. */
  crash(): void {
    this.#goDown();
    const lost = this.log.reopen();
    if (lost > 0) this.#host.emit('raft.unflushed-lost', { entries: lost, endOffset: this.log.endOffset });
  }

  /**
   * From the host's onStop (a clean shutdown, while the host is still up): a leader resigns and tells the
   * voters (EndQuorumEpoch), and the log is flushed as Kafka's close() does.
   */
  close(): void {
    if (this.#role === 'leader') this.#actor?.send({ type: 'RESIGN', successors: this.#successors() });
    this.log.flush();
    this.#goDown();
  }

  /**
   * Kafka's graceful shutdown: a leader resigns (EndQuorumEpoch to its successors); `onDone` runs once another
   * leader is known, or after `timeoutMs`. The host then stops.
   */
  shutdown(timeoutMs: number, onDone: () => void): void {
    if (this.#shutdown) return;
    this.#shutdown = new GracefulShutdown(this.#host, timeoutMs, onDone, (s) => this.#shutdown === s);
    if (this.#role === 'leader') this.#actor?.send({ type: 'RESIGN', successors: this.#successors() });
    this.#checkShutdown();
  }

  #checkShutdown(): void {
    const remoteLeader = this.#ctx?.leaderId !== undefined && this.#ctx.leaderId !== this.nodeId;
    this.#shutdown?.endWhen(!this.isVoter || this.voters.length === 1 || remoteLeader);
  }

  #goDown(): void {
    this.#generation++;
    this.#role = 'down';
    this.#actor = undefined;
    this.#state = undefined;
  }

  get #leader(): LeaderState<T> | undefined {
    return this.#state instanceof LeaderState ? this.#state : undefined;
  }

  get #follower(): FollowerState<T> | undefined {
    return this.#state instanceof FollowerState ? this.#state : undefined;
  }

  // ---- the role machine --------------------------------------------------------------------------------------

  #environment(): QuorumEnvironment {
    const stream = this.#host.random('raft');
    return {
      localId: this.nodeId,
      voters: this.voters,
      config: this.config,
      now: () => this.#host.sim.now,
      nextInt: (bound) => stream.int(0, bound - 1),
      persist: (state) => this.store.write(state),
      enter: (role, context) => this.#guarded(() => this.#enter(role, context)),
      fetchTimeoutRemainingMs: () => this.#fetchDeadline - this.#host.sim.now,
      checkQuorumRemainingMs: () => (this.#leader?.checkQuorumDeadline ?? 0) - this.#host.sim.now,
      successors: () => this.#successors(),
      isShuttingDown: () => this.isShuttingDown,
      sendBeginQuorumEpoch: () => this.#guarded(() => this.#leader?.sendBeginQuorumEpoch()),
    };
  }

  /** What a role's state may use of this client (role-io.ts). */
  #roleIo(): RoleIo<T> {
    const client = this;
    return {
      nodeId: this.nodeId,
      voters: this.voters,
      config: this.config,
      host: this.#host,
      flushEnabled: this.#flushEnabled,
      followerFlushes: this.#followerFlushes,
      majority: this.#majority,
      get log() {
        return client.log;
      },
      get epoch() {
        return client.epoch;
      },
      get generation() {
        return client.#generation;
      },
      get role() {
        return client.#role;
      },
      get context() {
        return client.#ctx;
      },
      get leader() {
        return client.#leader;
      },
      get highWatermark() {
        return client.#highWatermark;
      },
      get fetchDeadline() {
        return client.#fetchDeadline;
      },
      set fetchDeadline(deadline: number) {
        client.#fetchDeadline = deadline;
      },
      get machineRunning() {
        return client.#actor !== undefined;
      },
      addressOf: this.addressOf,
      send: (event) => this.#send(event),
      votes: () => this.#actor!.getSnapshot().context,
      guarded: (fn) => this.#guarded(fn),
      quorumResponse: (errorCode) => this.#quorumResponse(errorCode),
      handleCommonResponse: (r) => this.#handleCommonResponse(r),
      handleFetch: (from, request, reply) => this.#handleFetch(from, request, reply, false),
      setHighWatermark: (hw) => this.#setHighWatermark(hw),
      maybeFireLeaderChange: () => this.#maybeFireLeaderChange(),
    };
  }

  /**
   * xstate keeps an error thrown by an action to itself (the actor just stops); a failure inside a role change is
   * re-thrown from the next kernel event instead, so that the run fails with the seed and time.
   */
  #guarded(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.#host.sim.schedule(
        0,
        () => {
          throw e;
        },
        'raft.failure',
      );
    }
  }

  #send(event: QuorumEvent): void {
    this.#actor?.send(event);
  }

  #enter(role: QuorumRole, context: QuorumContext): void {
    const previous = this.#role;
    this.#role = role;
    this.#ctx = context;
    this.#generation++;
    const leader = this.#leader;
    this.#state = undefined;
    if (previous === 'leader' && role !== 'leader' && leader) {
      leader.close((from, request, reply) => this.#handleFetch(from, request, reply, false));
    }
    this.#host.emit('raft.role', { role, epoch: context.epoch, leaderId: context.leaderId ?? null });
    // A new leader has no high watermark until it commits a record of its own epoch.
    if (role === 'leader') this.#highWatermark = undefined;
    const io = this.#io;
    const state =
      role === 'leader'
        ? new LeaderState(io, context.epoch)
        : role === 'follower'
          ? new FollowerState(io)
          : role === 'resigned'
            ? new ResignedState(io)
            : role === 'unattached'
              ? new UnattachedState(io)
              : new NomineeState(io, role === 'prospective');
    this.#state = state;
    state.begin();
    this.#maybeFireLeaderChange();
    this.#checkShutdown();
  }

  /** Learnt an epoch (and maybe its leader) from a request or a response. */
  #observe(epoch: number, leaderId: number | undefined): void {
    const ctx = this.#ctx;
    if (!ctx) return;
    if (
      epoch > ctx.epoch ||
      (epoch === ctx.epoch &&
        leaderId !== undefined &&
        leaderId !== this.nodeId &&
        ctx.leaderId === undefined)
    ) {
      this.#send({ type: 'OBSERVE', epoch, leaderId });
    }
  }

  #quorumResponse(errorCode: number): QuorumResponse {
    return { errorCode, leaderEpoch: this.epoch, leaderId: this.leaderId ?? NO_LEADER_ID };
  }

  /**
   * KafkaRaftClient.maybeHandleCommonResponse: a response from an older epoch is stale; one from a newer
   * epoch, or a fencing / not-leader error, may move this node on. Returns true when the caller should not
   * handle the response further.
   */
  #handleCommonResponse(r: QuorumResponse): boolean {
    const ctx = this.#ctx!;
    const leaderId = r.leaderId >= 0 ? r.leaderId : undefined;
    if (r.leaderEpoch < ctx.epoch || r.errorCode === Errors.UNKNOWN_LEADER_EPOCH.code) return true;
    if (
      r.leaderEpoch > ctx.epoch ||
      r.errorCode === Errors.FENCED_LEADER_EPOCH.code ||
      r.errorCode === Errors.NOT_LEADER_OR_FOLLOWER.code
    ) {
      this.#observe(r.leaderEpoch, leaderId);
      return true;
    }
    if (leaderId !== undefined && ctx.leaderId === undefined && leaderId !== this.nodeId) {
      this.#observe(r.leaderEpoch, leaderId);
      return true;
    }
    return false;
  }

  // ---- requests from other members ---------------------------------------------------------------------------

  /** Serves a quorum request; returns false when `payload` is not one (the host handles it). */
  handleRequest(from: NodeId, payload: unknown, reply: (response: unknown) => void): boolean {
    if (!isRaftRequest(payload)) return false;
    if (this.#role === 'down' || !this.#ctx) return true;
    switch (payload.type) {
      case 'Vote':
        reply(this.#handleVote(payload));
        break;
      case 'BeginQuorumEpoch':
        reply(this.#handleBeginQuorumEpoch(payload));
        break;
      case 'EndQuorumEpoch':
        reply(this.#handleEndQuorumEpoch(payload));
        break;
      case 'Fetch':
        this.#handleFetch(from, payload, reply as (r: QuorumFetchResponse) => void, true);
        break;
    }
    return true;
  }

  #handleVote(req: VoteRequest): VoteResponse {
    const denied = (errorCode: number): VoteResponse => ({
      ...this.#quorumResponse(errorCode),
      voteGranted: false,
    });
    if (req.candidateEpoch < this.epoch) return denied(Errors.FENCED_LEADER_EPOCH.code);
    const illegalEpoch = req.preVote
      ? req.lastOffsetEpoch > req.candidateEpoch
      : req.lastOffsetEpoch >= req.candidateEpoch;
    if (illegalEpoch || req.lastOffset < 0 || !this.voters.includes(req.candidateId))
      return denied(Errors.INVALID_REQUEST.code);
    if (req.candidateEpoch > this.epoch) this.#observe(req.candidateEpoch, undefined);
    if (!this.isVoter) return denied(0);
    const ctx = this.#ctx!;
    const upToDate = isLogUpToDate(
      { offset: req.lastOffset, epoch: req.lastOffsetEpoch },
      this.log.endOffsetAndEpoch,
    );
    const granted = canGrantVote(
      {
        role: this.#role as QuorumRole,
        votedId: ctx.votedId,
        hasFetchedFromLeader: this.#follower?.hasFetchedFromLeader ?? false,
      },
      req.candidateId,
      upToDate,
      req.preVote,
    );
    if (granted && !req.preVote && ctx.votedId === undefined) {
      // The vote is persisted (and the election timer reset) before the grant leaves this node.
      this.#send({ type: 'GRANT_VOTE', candidateId: req.candidateId });
    }
    return { ...this.#quorumResponse(0), voteGranted: granted };
  }

  #handleBeginQuorumEpoch(req: BeginQuorumEpochRequest): QuorumResponse {
    if (req.leaderEpoch < this.epoch) return this.#quorumResponse(Errors.FENCED_LEADER_EPOCH.code);
    this.#observe(req.leaderEpoch, req.leaderId);
    return this.#quorumResponse(0);
  }

  #handleEndQuorumEpoch(req: EndQuorumEpochRequest): QuorumResponse {
    if (req.leaderEpoch < this.epoch) return this.#quorumResponse(Errors.FENCED_LEADER_EPOCH.code);
    this.#observe(req.leaderEpoch, req.leaderId);
    if (this.#role === 'follower' && this.#ctx!.leaderId === req.leaderId) {
      if (this.#follower!.onEndQuorumEpoch(req.preferredSuccessors))
        this.#send({ type: 'FETCH_DEADLINE_CHANGED' });
    }
    return this.#quorumResponse(0);
  }

  #handleFetch(
    from: NodeId,
    req: QuorumFetchRequest,
    reply: (r: QuorumFetchResponse) => void,
    mayPark: boolean,
  ): void {
    const fail = (errorCode: number) =>
      reply({ ...this.#quorumResponse(errorCode), highWatermark: -1, records: [] });
    const epoch = this.epoch;
    if (req.currentLeaderEpoch < epoch) return fail(Errors.FENCED_LEADER_EPOCH.code);
    if (req.currentLeaderEpoch > epoch) return fail(Errors.UNKNOWN_LEADER_EPOCH.code);
    const l = this.#leader;
    if (this.#role !== 'leader' || !l) return fail(Errors.NOT_LEADER_OR_FOLLOWER.code);
    if (
      req.fetchOffset < 0 ||
      req.lastFetchedEpoch < 0 ||
      req.lastFetchedEpoch > req.currentLeaderEpoch ||
      req.maxWaitMs < 0
    )
      return fail(Errors.INVALID_REQUEST.code);
    l.serveFetch(from, req, reply, mayPark);
  }

  // ---- elections and the leader's appends -------------------------------------------------------------------

  #successors(): number[] {
    const l = this.#leader;
    return successorsByDescendingFetchOffset(
      this.voters.map((id) => ({ id, endOffset: l?.endOffsetOf(id) })),
      this.nodeId,
    );
  }

  /** Proposes records; they commit when the high watermark passes them. Throws NotLeaderError elsewhere. */
  append(records: readonly T[]): { baseOffset: number; lastOffset: number } {
    const l = this.#leader;
    if (this.#role !== 'leader' || !l || this.isShuttingDown)
      throw new NotLeaderError(this.epoch, this.leaderId);
    if (records.length === 0) throw new Error('append needs at least one record');
    return l.append(records);
  }

  // ---- commit and leader-change notifications ---------------------------------------------------------------

  #setHighWatermark(hw: number): void {
    this.log.updateHighWatermark(hw);
    this.#highWatermark = hw;
    for (const l of this.#commitListeners) l(hw);
  }

  #maybeFireLeaderChange(): void {
    const ctx = this.#ctx;
    if (!ctx) return;
    let current: LeaderAndEpoch;
    if (this.#role === 'leader') {
      if (!this.#leader?.claimed) return;
      current = { epoch: ctx.epoch, leaderId: this.nodeId };
    } else {
      current = { epoch: ctx.epoch, leaderId: ctx.leaderId === this.nodeId ? undefined : ctx.leaderId };
    }
    const last = this.#lastLeaderAndEpoch;
    if (last && last.epoch === current.epoch && last.leaderId === current.leaderId) return;
    this.#lastLeaderAndEpoch = current;
    for (const l of this.#leaderListeners) l(current);
  }
}
