/**
 * A KRaft client: the component a host node embeds to be a member (voter or observer) of the Raft quorum that
 * replicates one log, like Kafka's KafkaRaftClient. The roles and timers are the quorum machine's; this class
 * does the I/O around it: the quorum-state file, the replicated log and its flush point, Vote /
 * BeginQuorumEpoch / EndQuorumEpoch, pull replication by Fetch (parked fetches, diverging epochs, truncation),
 * the leader's accumulator and high watermark, and commit / leader-change notifications.
 *
 * The host forwards its lifecycle (`start` from onStart, `crash` from onCrash, `close` from onStop) and the
 * quorum requests it receives (`handleRequest`). Everything durable is in the host's `disk`.
 *
 * Facts: kraft.md §1 (flush, HW), §3 (states, votes, replication, defaults); KafkaRaftClient's
 * handle*Request/Response, maybeHandleCommonResponse, pollLeader/pollFollower and the fetch purgatory for the
 * request-level details, as noted where used.
 */

import type { Actor } from 'xstate';
import {
  type BeginQuorumEpochRequest,
  type EndQuorumEpochRequest,
  Errors,
  isRaftRequest,
  METADATA_TOPIC,
  NO_LEADER_ID,
  type QuorumFetchRequest,
  type QuorumFetchResponse,
  type QuorumResponse,
  type VoteRequest,
  type VoteResponse,
} from '../protocol/index.ts';
import {
  ExitCode,
  InvariantViolation,
  KafkasimError,
  type NodeId,
  type SimNode,
  type Timer,
} from '../sim/index.ts';
import { parseQuorumVoters, type QuorumConfig, resolveQuorumConfig } from './config.ts';
import {
  canGrantVote,
  isLogUpToDate,
  majority,
  nextHighWatermark,
  type QuorumRole,
  strictExponentialElectionBackoffMs,
  successorsByDescendingFetchOffset,
} from './decisions.ts';
import {
  type QuorumContext,
  type QuorumEnvironment,
  type QuorumInput,
  type QuorumMachine,
  quorumMachine,
} from './quorum-machine.ts';
import { type ElectionState, NO_ELECTION, QuorumStateStore } from './quorum-state.ts';
import { type LeaderChangeMessage, type RaftBatch, type RaftEntry, RaftLog } from './raft-log.ts';

export interface RaftClientOptions {
  /** This replica's id (`node.id` in Kafka). */
  nodeId: number;
  /** The voter ids; when absent, read from `controller.quorum.voters`. */
  voters?: readonly number[];
  config?: Partial<QuorumConfig>;
  /** The network node of a replica. Default `raft-<id>`. */
  addressOf?: (replicaId: number) => NodeId;
  /** Prefix of the disk keys (`<prefix>/log`, `<prefix>/quorum-state`). Default `raft`. */
  diskKey?: string;
  /**
   * Observers flush after each append too (Kafka's followersAlwaysFlush: true for controllers, false for
   * brokers). Voters always flush when the flush guarantees are on. Default false.
   */
  followersAlwaysFlush?: boolean;
}

export interface LeaderAndEpoch {
  readonly epoch: number;
  readonly leaderId: number | undefined;
}

/** Thrown by `append` on a node that is not the leader (Kafka's NotLeaderException). */
export class NotLeaderError extends KafkasimError {
  readonly code = 'NOT_LEADER';
  readonly exitCode = ExitCode.internal;
  override name = 'NotLeaderError';
  constructor(
    readonly epoch: number,
    readonly leaderId: number | undefined,
  ) {
    super(
      `This node is not the leader of the metadata quorum (epoch ${epoch}, leader ${leaderId ?? 'unknown'}).`,
    );
  }
}

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

interface LeaderData<T> {
  readonly epoch: number;
  readonly epochStartOffset: number;
  readonly voters: Map<number, ReplicaState>;
  readonly observers: Map<number, ReplicaState>;
  /** Voters that fetched since check-quorum was last satisfied. */
  fetchedVoters: Set<number>;
  checkQuorumDeadline: number;
  /** Accumulated appends (one batch each), offsets assigned, not yet in the log. */
  pending: RaftBatch<T>[];
  pendingRecords: number;
  drainTimer: Timer | undefined;
  readonly parked: Set<ParkedFetch>;
  /** The leader-change listeners were told: it has committed its epoch start. */
  claimed: boolean;
  /** Scratch for the high-watermark computation (runs on every Fetch). */
  readonly endOffsets: (number | undefined)[];
}

/** Kafka's KafkaRaftClient.MAX_FETCH_SIZE_BYTES is 1 MiB; kafkasim counts records instead (whole batches). */
const MAX_FETCH_RECORDS = 4096;

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
  #leader: LeaderData<T> | undefined;
  #fetchDeadline = 0;
  #hasFetchedFromLeader = false;
  #fetchInFlight = false;
  /** Voters an unattached node is asking who leads. */
  #probing = new Set<number>();
  #unackedEndQuorum = new Set<number>();
  #shutdown: { readonly onDone: () => void; done: boolean } | undefined;
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
    return this.#shutdown !== undefined && !this.#shutdown.done;
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
  forEachCommitted(
    fromOffset: number,
    fn: (
      offset: number,
      record: T | undefined,
      epoch: number,
      control: LeaderChangeMessage | undefined,
    ) => void,
  ): void {
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
    const describe = (id: number, s: ReplicaState): ReplicaDescription => ({
      replicaId: id,
      endOffset: s.endOffset,
      lastFetchMs: s.lastFetchMs,
    });
    return {
      leaderId: this.nodeId,
      leaderEpoch: l.epoch,
      highWatermark: this.#highWatermark ?? -1,
      voters: [
        { replicaId: this.nodeId, endOffset: this.#selfEndOffset(), lastFetchMs: this.#host.sim.now },
        ...[...l.voters].map(([id, s]) => describe(id, s)),
      ],
      observers: [...l.observers].map(([id, s]) => describe(id, s)),
    };
  }

  // ---- lifecycle ---------------------------------------------------------------------------------------------

  /** From the host's onStart: reopen the log (losing what was not flushed) and resume from the stored state. */
  start(): void {
    const log = this.log;
    const lost = log.reopen();
    if (lost > 0) this.#host.emit('raft.unflushed-lost', { entries: lost, endOffset: log.endOffset });
    this.#generation++;
    this.#highWatermark = undefined;
    this.#leader = undefined;
    this.#fetchInFlight = false;
    this.#hasFetchedFromLeader = false;
    this.#shutdown = undefined;
    this.#lastLeaderAndEpoch = undefined;
    this.#unackedEndQuorum = new Set();
    const input = {
      env: this.#env,
      ...this.#initialState(this.store.read() ?? NO_ELECTION, log.lastFetchedEpoch),
    };
    this.#ctx = undefined;
    this.#role = 'unattached';
    if (!this.#flushEnabled) {
      // Before KAFKA-10533 nothing flushed on the append path; dirty pages reached the disk by OS writeback: the
      // flusher wakes every vm.dirty_writeback_centisecs and writes what has been dirty for vm.dirty_expire_centisecs.
      // Each wake notes the log end; a later wake writes back up to the end noted at least `expire` ms before.
      const expire = this.config['kafkasim.raft.os.dirty.expire.ms'];
      const noted: { t: number; end: number }[] = [];
      this.#host.every(
        this.config['kafkasim.raft.os.writeback.ms'],
        () => {
          const now = this.#host.sim.now;
          noted.push({ t: now, end: this.log.endOffset });
          let upTo = -1;
          while (noted.length > 0 && noted[0]!.t <= now - expire) upTo = noted.shift()!.end;
          if (upTo >= 0) this.log.flushTo(upTo);
        },
        'raft.writeback',
      );
    }
    this.#actor = this.#host.spawn(quorumMachine, { input });
  }

  /** QuorumState.initialize: where a (re)started node begins. */
  #initialState(stored: ElectionState, logEpoch: number): Omit<QuorumInput, 'env'> {
    if (stored.epoch < logEpoch) {
      return {
        initial: 'unattached',
        election: { epoch: logEpoch, leaderId: undefined, votedId: undefined },
      };
    }
    // A node that led its stored epoch restarts Resigned in it: it must not vote again in that epoch, and its
    // (offset, epoch) pairs stay unique even though it may have lost unflushed data.
    if (stored.leaderId === this.nodeId) return { initial: 'resigned', election: stored };
    if (this.isVoter && stored.votedId === this.nodeId && stored.leaderId === undefined) {
      return {
        initial: this.config['kafkasim.raft.pre.vote.enable'] ? 'prospective' : 'candidate',
        election: stored,
      };
    }
    if (stored.leaderId !== undefined) return { initial: 'follower', election: stored };
    return { initial: 'unattached', election: stored };
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
    const shutdown = { onDone, done: false };
    this.#shutdown = shutdown;
    this.#host.schedule(timeoutMs, () => this.#finishShutdown(shutdown), 'raft.shutdown-timeout');
    if (this.#role === 'leader') this.#actor?.send({ type: 'RESIGN', successors: this.#successors() });
    this.#checkShutdown();
  }

  #checkShutdown(): void {
    const s = this.#shutdown;
    if (!s || s.done) return;
    const remoteLeader = this.#ctx?.leaderId !== undefined && this.#ctx.leaderId !== this.nodeId;
    if (!this.isVoter || this.voters.length === 1 || remoteLeader) {
      // Outside the current event: the host stops, which must not happen inside a role transition.
      this.#host.schedule(0, () => this.#finishShutdown(s), 'raft.shutdown-done');
    }
  }

  #finishShutdown(s: { readonly onDone: () => void; done: boolean }): void {
    if (s.done || this.#shutdown !== s) return;
    s.done = true;
    s.onDone();
  }

  #goDown(): void {
    this.#generation++;
    this.#role = 'down';
    this.#actor = undefined;
    this.#leader = undefined;
    this.#fetchInFlight = false;
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
      sendBeginQuorumEpoch: () => this.#guarded(() => this.#sendBeginQuorumEpoch()),
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

  #send(event: Parameters<Actor<QuorumMachine>['send']>[0]): void {
    this.#actor?.send(event);
  }

  #enter(role: QuorumRole, context: QuorumContext): void {
    const previous = this.#role;
    this.#role = role;
    this.#ctx = context;
    this.#generation++;
    this.#fetchInFlight = false;
    this.#probing = new Set();
    if (previous === 'leader' && role !== 'leader') this.#stepDown();
    this.#host.emit('raft.role', { role, epoch: context.epoch, leaderId: context.leaderId ?? null });
    switch (role) {
      case 'leader':
        this.#becomeLeader(context);
        break;
      case 'follower':
        this.#fetchDeadline = this.#host.sim.now + this.config['controller.quorum.fetch.timeout.ms'];
        this.#hasFetchedFromLeader = false;
        this.#fetch(undefined);
        break;
      case 'candidate':
        this.#sendVoteRequests(false);
        break;
      case 'prospective':
        this.#sendVoteRequests(true);
        break;
      case 'resigned':
        this.#host.emit('raft.resign', {
          epoch: context.epoch,
          successors: [...context.preferredSuccessors],
        });
        this.#unackedEndQuorum = new Set(this.voters.filter((v) => v !== this.nodeId));
        for (const v of this.#unackedEndQuorum) this.#sendEndQuorumEpoch(v, this.#generation);
        break;
      case 'unattached':
        this.#discover(this.#generation);
        break;
    }
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
        hasFetchedFromLeader: this.#hasFetchedFromLeader,
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
      // The most up-to-date successor starts an election at once, the others back off exponentially.
      const position = req.preferredSuccessors.indexOf(this.nodeId);
      const backoff = strictExponentialElectionBackoffMs(
        position < 0 ? req.preferredSuccessors.length : position,
        req.preferredSuccessors.length,
        this.config['controller.quorum.election.backoff.max.ms'],
      );
      const deadline = this.#host.sim.now + backoff;
      if (deadline < this.#fetchDeadline) {
        this.#fetchDeadline = deadline;
        this.#send({ type: 'FETCH_DEADLINE_CHANGED' });
      }
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
    const log = this.log;
    const hw = this.#highWatermark ?? -1;
    const validation = log.validateOffsetAndEpoch(req.fetchOffset, req.lastFetchedEpoch);
    if (validation.kind === 'DIVERGING') {
      reply({
        ...this.#quorumResponse(0),
        highWatermark: hw,
        records: [],
        divergingEpoch: validation.diverging,
      });
      return;
    }
    this.#updateReplicaState(req.replicaId, req.fetchOffset);
    const records = log.readBatches(req.fetchOffset, log.endOffset, MAX_FETCH_RECORDS);
    if (records.length > 0 || req.maxWaitMs === 0 || !mayPark) {
      reply({ ...this.#quorumResponse(0), highWatermark: this.#highWatermark ?? -1, records });
      return;
    }
    // Nothing new: park the fetch until the log grows past its offset, or the wait runs out.
    const parked: ParkedFetch = {
      from,
      request: req,
      reply,
      timer: this.#host.schedule(
        req.maxWaitMs,
        () => {
          if (l.parked.delete(parked)) this.#handleFetch(from, req, reply, false);
        },
        'raft.fetch-wait',
      ),
    };
    l.parked.add(parked);
  }

  #updateReplicaState(replicaId: number, fetchOffset: number): void {
    const l = this.#leader!;
    const now = this.#host.sim.now;
    const voter = l.voters.get(replicaId);
    if (!voter) {
      if (replicaId !== this.nodeId) l.observers.set(replicaId, { endOffset: fetchOffset, lastFetchMs: now });
      return;
    }
    voter.endOffset = fetchOffset;
    voter.lastFetchMs = now;
    // Check-quorum: the timer restarts each time a majority (the leader included) has fetched.
    l.fetchedVoters.add(replicaId);
    if (l.fetchedVoters.size + 1 >= this.#majority) {
      l.checkQuorumDeadline = now + 1.5 * this.config['controller.quorum.fetch.timeout.ms'];
      l.fetchedVoters = new Set();
    }
    this.#maybeAdvanceLeaderHighWatermark();
  }

  // ---- elections ---------------------------------------------------------------------------------------------

  #sendVoteRequests(preVote: boolean): void {
    const gen = this.#generation;
    const epoch = this.#ctx!.epoch;
    for (const v of this.voters) if (v !== this.nodeId) this.#requestVote(v, preVote, gen, epoch, false);
  }

  /** `retrying`: a later attempt, when the actor's snapshot (read outside a transition) says who answered. */
  #requestVote(voter: number, preVote: boolean, gen: number, epoch: number, retrying: boolean): void {
    if (gen !== this.#generation || !this.#actor) return;
    if (retrying) {
      const ctx = this.#actor.getSnapshot().context;
      if (ctx.granted.includes(voter) || ctx.rejected.includes(voter)) return;
    }
    const log = this.log;
    const request: VoteRequest = {
      type: 'Vote',
      candidateEpoch: epoch,
      candidateId: this.nodeId,
      lastOffsetEpoch: log.lastFetchedEpoch,
      lastOffset: log.endOffset,
      preVote,
    };
    const retry = () =>
      this.#host.schedule(
        this.config['controller.quorum.retry.backoff.ms'],
        () => this.#requestVote(voter, preVote, gen, epoch, true),
        'raft.vote-retry',
      );
    this.#host.request<VoteResponse>(
      this.addressOf(voter),
      request,
      (o) => {
        if (gen !== this.#generation) return;
        if (!o.ok) return void retry();
        if (this.#handleCommonResponse(o.response)) return;
        if (o.response.errorCode !== 0) return void retry();
        this.#send({ type: 'VOTE_RESULT', epoch, from: voter, granted: o.response.voteGranted, preVote });
      },
      this.config['controller.quorum.request.timeout.ms'],
    );
  }

  #successors(): number[] {
    const l = this.#leader;
    return successorsByDescendingFetchOffset(
      this.voters.map((id) => ({ id, endOffset: l?.voters.get(id)?.endOffset })),
      this.nodeId,
    );
  }

  #sendEndQuorumEpoch(voter: number, gen: number): void {
    if (gen !== this.#generation || !this.#unackedEndQuorum.has(voter)) return;
    const ctx = this.#ctx!;
    const request: EndQuorumEpochRequest = {
      type: 'EndQuorumEpoch',
      leaderEpoch: ctx.epoch,
      leaderId: this.nodeId,
      preferredSuccessors: ctx.preferredSuccessors,
    };
    this.#host.request<QuorumResponse>(
      this.addressOf(voter),
      request,
      (o) => {
        if (gen !== this.#generation) return;
        if (o.ok && this.#handleCommonResponse(o.response)) return;
        if (o.ok && o.response.errorCode === 0) {
          this.#unackedEndQuorum.delete(voter);
          return;
        }
        this.#host.schedule(
          this.config['controller.quorum.retry.backoff.ms'],
          () => this.#sendEndQuorumEpoch(voter, gen),
          'raft.end-quorum-retry',
        );
      },
      this.config['controller.quorum.request.timeout.ms'],
    );
  }

  // ---- leader ------------------------------------------------------------------------------------------------

  #becomeLeader(ctx: QuorumContext): void {
    const log = this.log;
    const now = this.#host.sim.now;
    const replica = (): ReplicaState => ({ endOffset: undefined, lastFetchMs: undefined });
    const l: LeaderData<T> = {
      epoch: ctx.epoch,
      epochStartOffset: log.endOffset,
      voters: new Map(this.voters.filter((v) => v !== this.nodeId).map((v) => [v, replica()])),
      observers: new Map(),
      fetchedVoters: new Set(),
      checkQuorumDeadline: now + 1.5 * this.config['controller.quorum.fetch.timeout.ms'],
      pending: [],
      pendingRecords: 0,
      drainTimer: undefined,
      parked: new Set(),
      claimed: false,
      endOffsets: [],
    };
    this.#leader = l;
    // A new leader has no high watermark until it commits a record of its own epoch.
    this.#highWatermark = undefined;
    this.#host.emit('raft.leader', { epoch: ctx.epoch, epochStartOffset: l.epochStartOffset });
    // The LeaderChange record at the epoch start lets the HW move without waiting for user records.
    log.append([
      Object.freeze({
        baseOffset: log.endOffset,
        epoch: ctx.epoch,
        records: [],
        control: Object.freeze({ type: 'LeaderChange' as const, leaderId: this.nodeId, voters: this.voters }),
      }),
    ]);
    this.#flushLeaderLog();
    this.#sendBeginQuorumEpoch();
  }

  #stepDown(): void {
    const l = this.#leader;
    this.#leader = undefined;
    if (!l) return;
    l.drainTimer?.cancel();
    // Parked fetches are answered now, with this node's new epoch and leader, so fetchers move on at once.
    for (const p of l.parked) {
      p.timer.cancel();
      this.#handleFetch(p.from, p.request, p.reply, false);
    }
    l.parked.clear();
  }

  #sendBeginQuorumEpoch(): void {
    const l = this.#leader;
    if (!l || this.#role !== 'leader') return;
    const gen = this.#generation;
    const request: BeginQuorumEpochRequest = {
      type: 'BeginQuorumEpoch',
      leaderEpoch: l.epoch,
      leaderId: this.nodeId,
    };
    for (const v of l.voters.keys()) {
      this.#host.request<QuorumResponse>(
        this.addressOf(v),
        request,
        (o) => {
          if (gen === this.#generation && o.ok) this.#handleCommonResponse(o.response);
        },
        this.config['controller.quorum.request.timeout.ms'],
      );
    }
  }

  /** Proposes records; they commit when the high watermark passes them. Throws NotLeaderError elsewhere. */
  append(records: readonly T[]): { baseOffset: number; lastOffset: number } {
    const l = this.#leader;
    if (this.#role !== 'leader' || !l || this.isShuttingDown)
      throw new NotLeaderError(this.epoch, this.leaderId);
    if (records.length === 0) throw new Error('append needs at least one record');
    const baseOffset = this.log.endOffset + l.pendingRecords;
    // One batch per append; the caller hands the records over (they must not change afterwards).
    l.pending.push(Object.freeze({ baseOffset, epoch: l.epoch, records }));
    l.pendingRecords += records.length;
    if (!l.drainTimer) {
      l.drainTimer = this.#host.schedule(
        this.config['controller.quorum.append.linger.ms'],
        () => this.#guarded(() => this.#drain(l)),
        'raft.linger',
      );
    }
    return { baseOffset, lastOffset: baseOffset + records.length - 1 };
  }

  /** The accumulator drains: append the batch, then flush (KafkaRaftClient.maybeAppendBatches). */
  #drain(l: LeaderData<T>): void {
    l.drainTimer = undefined;
    if (this.#leader !== l || l.pending.length === 0) return;
    const batches = l.pending;
    l.pending = [];
    l.pendingRecords = 0;
    this.log.append(batches);
    this.#flushLeaderLog();
  }

  #flushLeaderLog(): void {
    if (this.#flushEnabled) this.log.flush();
    this.#maybeAdvanceLeaderHighWatermark();
    this.#completeParkedFetches();
  }

  /** What the leader counts for itself: its flushed offset (KAFKA-10533), or its log end without the fix. */
  #selfEndOffset(): number {
    return this.#flushEnabled ? this.log.flushedOffset : this.log.endOffset;
  }

  #maybeAdvanceLeaderHighWatermark(): void {
    const l = this.#leader!;
    const offsets = l.endOffsets;
    offsets.length = 0;
    offsets.push(this.#selfEndOffset());
    for (const s of l.voters.values()) offsets.push(s.endOffset);
    const next = nextHighWatermark(offsets, l.epochStartOffset, this.#highWatermark);
    if (next === undefined) return;
    this.#setHighWatermark(Math.min(next, this.log.endOffset));
    if (!l.claimed && this.#leader === l) {
      l.claimed = true;
      this.#maybeFireLeaderChange();
    }
  }

  #completeParkedFetches(): void {
    const l = this.#leader;
    if (!l || l.parked.size === 0) return;
    const end = this.log.endOffset;
    for (const p of [...l.parked]) {
      if (p.request.fetchOffset >= end) continue;
      l.parked.delete(p);
      p.timer.cancel();
      this.#handleFetch(p.from, p.request, p.reply, false);
    }
  }

  // ---- follower and observer ---------------------------------------------------------------------------------

  /**
   * An unattached node asks the voters who leads (KafkaRaftClient.maybeSendFetchToAnyBootstrap): every retry
   * backoff, a Fetch to a random voter it is not already waiting for, so that one dead voter cannot stall it.
   */
  #discover(gen: number): void {
    if (gen !== this.#generation || this.#role !== 'unattached') return;
    const ctx = this.#ctx!;
    const probing = this.#probing;
    const candidates = this.voters.filter((v) => v !== this.nodeId && !probing.has(v));
    if (candidates.length > 0) {
      const voter = this.#host.random('raft/bootstrap').pick(candidates);
      probing.add(voter);
      const log = this.log;
      const request: QuorumFetchRequest = {
        type: 'Fetch',
        topic: METADATA_TOPIC,
        replicaId: this.nodeId,
        currentLeaderEpoch: ctx.epoch,
        fetchOffset: log.endOffset,
        lastFetchedEpoch: log.lastFetchedEpoch,
        maxWaitMs: 0,
      };
      this.#host.request<QuorumFetchResponse<T>>(
        this.addressOf(voter),
        request,
        (o) => {
          probing.delete(voter);
          if (gen === this.#generation && o.ok) this.#handleCommonResponse(o.response);
        },
        this.config['controller.quorum.request.timeout.ms'],
      );
    }
    this.#host.schedule(
      this.config['controller.quorum.retry.backoff.ms'],
      () => this.#discover(gen),
      'raft.discover',
    );
  }

  #fetch(target: number | undefined): void {
    const ctx = this.#ctx;
    if (!ctx || this.#fetchInFlight || this.#role !== 'follower') return;
    const destination = target ?? ctx.leaderId;
    if (destination === undefined || destination === this.nodeId) return;
    const gen = this.#generation;
    const log = this.log;
    const toLeader = destination === ctx.leaderId;
    const request: QuorumFetchRequest = {
      type: 'Fetch',
      topic: METADATA_TOPIC,
      replicaId: this.nodeId,
      currentLeaderEpoch: ctx.epoch,
      fetchOffset: log.endOffset,
      lastFetchedEpoch: log.lastFetchedEpoch,
      maxWaitMs: toLeader ? this.config['kafkasim.raft.fetch.max.wait.ms'] : 0,
    };
    const backoff = (next: number | undefined) =>
      this.#host.schedule(
        this.config['controller.quorum.retry.backoff.ms'],
        () => {
          if (gen === this.#generation) this.#fetch(next);
        },
        'raft.fetch-backoff',
      );
    this.#fetchInFlight = true;
    this.#host.request<QuorumFetchResponse<T>>(
      this.addressOf(destination),
      request,
      (o) => {
        if (gen !== this.#generation) return;
        this.#fetchInFlight = false;
        if (!o.ok) {
          // The leader does not answer: ask another voter whether there is a new leader, then try it again.
          const others = this.voters.filter((v) => v !== this.nodeId && v !== destination);
          return void backoff(
            toLeader && others.length > 0 ? this.#host.random('raft/bootstrap').pick(others) : undefined,
          );
        }
        const r = o.response;
        if (this.#handleCommonResponse(r) || r.errorCode !== 0 || !toLeader) {
          if (gen === this.#generation) backoff(undefined);
          return;
        }
        this.#onFetchResponse(r);
        if (gen === this.#generation) this.#fetch(undefined);
      },
      this.config['controller.quorum.request.timeout.ms'],
    );
  }

  #onFetchResponse(r: QuorumFetchResponse<T>): void {
    const log = this.log;
    if (r.divergingEpoch) {
      const hw = Math.max(this.#highWatermark ?? 0, log.highWatermark);
      if (r.divergingEpoch.offset < hw) {
        throw new InvariantViolation(
          'NoCommittedTruncation',
          `node ${this.nodeId}: the leader asked for truncation to offset ${r.divergingEpoch.offset}, below the ` +
            `high watermark ${hw}`,
          this.#host.sim.context(),
        );
      }
      const offset = log.truncationOffsetFor(r.divergingEpoch);
      this.#host.emit('raft.truncate', { from: log.endOffset, to: offset, epoch: this.epoch });
      log.truncateTo(offset);
    } else {
      if (r.records.length > 0) {
        log.append(r.records);
        // "The leader only requires that voters have flushed their log before sending a Fetch request."
        if (this.#followerFlushes) log.flush();
      }
      if (r.highWatermark >= 0) this.#updateFollowerHighWatermark(Math.min(log.endOffset, r.highWatermark));
    }
    this.#hasFetchedFromLeader = true;
    this.#fetchDeadline = this.#host.sim.now + this.config['controller.quorum.fetch.timeout.ms'];
  }

  #updateFollowerHighWatermark(hw: number): void {
    // The log remembers the high watermark across a leadership of this node that never committed.
    const current = Math.max(this.#highWatermark ?? 0, this.log.highWatermark);
    if (hw < current) {
      throw new InvariantViolation(
        'MonotonicHighWatermark',
        `node ${this.nodeId}: the high watermark would move back from ${current} to ${hw}`,
        this.#host.sim.context(),
      );
    }
    if (hw !== this.#highWatermark) this.#setHighWatermark(hw);
  }

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
