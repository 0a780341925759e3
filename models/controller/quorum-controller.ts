/**
 * The active (or, in a Raft quorum, standby) controller as a simulated node: Kafka's `QuorumController`.
 *
 * It keeps two images: the committed one (what brokers can read) and the latest one (committed plus records appended
 * but not yet committed), so that each request is validated against the controller's own pending changes, as Kafka's
 * timeline data structures do. A request's records are appended as one batch and its response is sent when that batch
 * commits (QuorumController's ControllerWriteEvent completes its future once the records are committed); a request
 * that writes nothing is answered once everything appended before it is durable.
 *
 * Soft state that only the active controller has, and loses when it crashes: broker registrations' sessions and
 * heartbeats (cluster-control.ts, Kafka's ClusterControlManager), MetadataFetch requests parked until something
 * commits, and shared-mode moves waiting for ElectLeaders (stream-handover.ts). The decisions that turn a request
 * into records are the control managers' (topic-control.ts, reassignment-control.ts, leadership.ts, ...).
 */

import {
  emptyImage,
  isActiveBroker,
  LocalMetadataLog,
  type MetadataImage,
  type MetadataLog,
  type MetadataRecord,
  NO_LEADER,
  newTopicId,
  replay,
} from '../metadata/index.ts';
import type {
  ControllerRequest,
  MetadataFetchRequest,
  MetadataFetchResponse,
  NotControllerResponse,
} from '../protocol/index.ts';
import { type QuorumConfig, RaftClient, RaftMetadataLog } from '../raft/index.ts';
import { type NodeId, SimNode, type Simulation, type Timer } from '../sim/index.ts';
import { alterPartition } from './alter-partition.ts';
import { ClusterControl, type ClusterControlHost } from './cluster-control.ts';
import { type ControllerConfig, resolveControllerConfig, type StorageMode } from './config.ts';
import { incrementalAlterConfigs } from './config-control.ts';
import {
  type Appended,
  type ControlContext,
  type ControlResult,
  errorResult,
  NO_ERROR,
  type PendingElection,
} from './control-context.ts';
import { checkPartitionStates } from './invariants.ts';
import type { ClusterStats } from './leader-selector.ts';
import { electLeaders } from './leadership.ts';
import { alterPartitionReassignments, listPartitionReassignments } from './reassignment-control.ts';
import { StreamHandover } from './stream-handover.ts';
import { createPartitions, createTopics, deleteTopics } from './topic-control.ts';

export interface QuorumControllerOptions {
  /** Overrides of Kafka's defaults (and kafkasim's own keys). */
  config?: Partial<ControllerConfig>;
  storageMode?: StorageMode;
  /** Default: a LocalMetadataLog on the simulation with `kafkasim.metadata.commit.ms`. */
  metadataLog?: MetadataLog;
  /** Register the `controller.partition-state` invariant over the latest image. Default false. */
  checkInvariants?: boolean;
  /**
   * Makes this controller a voter of a KRaft metadata quorum: the metadata log is the Raft log, the active
   * controller is the Raft leader, and the others replay committed records as standbys and answer
   * NOT_CONTROLLER. Absent: a single controller on a LocalMetadataLog.
   */
  quorum?: ControllerQuorumOptions;
}

export interface ControllerQuorumOptions {
  /** This controller's `node.id` (Kafka's examples use 3000, 3001, 3002). */
  nodeId: number;
  voters: readonly number[];
  /** The network node of a voter. */
  addressOf: (voterId: number) => NodeId;
  /** `controller.quorum.*` overrides. */
  config?: Partial<QuorumConfig>;
}

interface Parked {
  readonly fetchOffset: number;
  readonly reply: (response: MetadataFetchResponse) => void;
  readonly timer: Timer;
}

/**
 * Serves a request type that is not built in, for a component living on the controller node (AutoMQ's
 * auto-balancer receives its metrics this way). Called only while the controller serves requests.
 */
export type ControllerRequestHandler = (
  from: NodeId,
  request: { readonly type: string },
  reply: (response: unknown) => void,
) => void;

/** 'start': the node (re)started; 'active' / 'inactive': it became, or stopped being, the active controller. */
export type ControllerLifecycleEvent = 'start' | 'active' | 'inactive';

/** What `write` hears when its batch committed (anything else is the NOT_CONTROLLER answer). */
const DURABLE = Symbol('durable');

export class QuorumController extends SimNode {
  readonly config: ControllerConfig;
  readonly storageMode: StorageMode;
  readonly metadataLog: MetadataLog;
  /** The Raft client when this controller is a quorum voter. */
  readonly raft: RaftClient<MetadataRecord> | undefined;
  #committed: MetadataImage = emptyImage();
  #latest: MetadataImage = emptyImage();
  #ready = false;
  #catchUpTo = -1;
  #queued: (() => void)[] = [];
  #durableWaiters: { offset: number; fn: () => void; lost?: (response: unknown) => void }[] = [];
  #parked = new Set<Parked>();
  readonly #handover: StreamHandover;
  readonly #clusterControl: ClusterControl;
  #unsubscribe: (() => void) | undefined;
  #requestHandlers = new Map<string, ControllerRequestHandler>();
  #lifecycleListeners: ((event: ControllerLifecycleEvent) => void)[] = [];
  #clusterStats: ClusterStats | undefined;

  constructor(sim: Simulation, id: NodeId, options: QuorumControllerOptions = {}) {
    super(sim, id);
    this.config = resolveControllerConfig(options.config);
    this.storageMode = options.storageMode ?? 'kafka';
    const quorum = options.quorum;
    // Controllers flush as followers too (Kafka's followersAlwaysFlush for the controller's RaftManager).
    this.raft = quorum
      ? new RaftClient<MetadataRecord>(this, {
          nodeId: quorum.nodeId,
          voters: quorum.voters,
          addressOf: quorum.addressOf,
          diskKey: 'metadata',
          followersAlwaysFlush: true,
          ...(quorum.config ? { config: quorum.config } : {}),
        })
      : undefined;
    this.raft?.onLeaderChange((leader) => this.onQuorumLeaderChange(leader.leaderId));
    this.metadataLog =
      options.metadataLog ??
      (this.raft
        ? new RaftMetadataLog(this.raft)
        : // On the simulation, not the node: the log is the disk, and commits land even if the controller crashes.
          new LocalMetadataLog({
            scheduler: sim,
            commitDelayMs: this.config['kafkasim.metadata.commit.ms'],
          }));
    const host = this.#controllerHost();
    this.#handover = new StreamHandover(host);
    this.#clusterControl = new ClusterControl(host);
    if (options.checkInvariants) {
      sim.addInvariant(`controller.partition-state(${id})`, () =>
        this.up ? checkPartitionStates(this.#latest, this.storageMode) : undefined,
      );
    }
  }

  /** The image of committed records: what brokers can see. */
  get committedImage(): MetadataImage {
    return this.#committed;
  }

  /** The committed image (the same as `committedImage`). */
  get image(): MetadataImage {
    return this.#committed;
  }

  /** Committed plus appended-but-uncommitted records: what the controller validates against. */
  get latestImage(): MetadataImage {
    return this.#latest;
  }

  /** True once the controller has replayed its log and serves requests. */
  get ready(): boolean {
    return this.up && this.#ready;
  }

  /** Shared-mode moves waiting for the old leader's ElectLeaders. */
  get pendingElections(): PendingElection[] {
    return this.#handover.pending;
  }

  // ---- extensions: components living on the controller node (AutoMQ's auto-balancer) -------------------

  /** Serves requests of `type` with `handler` (built-in types cannot be replaced); returns the remover. */
  addRequestHandler(type: string, handler: ControllerRequestHandler): () => void {
    this.#requestHandlers.set(type, handler);
    return () => {
      if (this.#requestHandlers.get(type) === handler) this.#requestHandlers.delete(type);
    };
  }

  /** Calls `listener` at every lifecycle event of this node; returns the unsubscribe function. */
  onLifecycle(listener: (event: ControllerLifecycleEvent) => void): () => void {
    this.#lifecycleListeners = [...this.#lifecycleListeners, listener];
    return () => {
      this.#lifecycleListeners = this.#lifecycleListeners.filter((l) => l !== listener);
    };
  }

  /** True while this node is the active controller and serves requests. */
  get isActive(): boolean {
    return this.ready;
  }

  /**
   * Handles a request from a component on this node as if it had come over the network, without latency;
   * `reply` runs when the answer would be sent (after the commit). False, and nothing done, when not active.
   */
  submit(request: ControllerRequest, reply: (response: unknown) => void): boolean {
    if (!this.isActive) return false;
    this.handle(request, reply);
    return true;
  }

  /**
   * Appends `records` as one batch, as a request handled here would (a workload living on the controller node,
   * such as the metadata append load). `done(true)` runs once the batch is committed, `done(false)` if this node
   * stops being active first or the log refuses the append. Returns false, without calling `done`, when this node
   * is not active; true when the batch was appended.
   */
  write(records: readonly MetadataRecord[], done: (committed: boolean) => void): boolean {
    if (!this.isActive) return false;
    const appended = this.commit(
      { records: [...records], response: undefined },
      (response) => done(response === DURABLE),
      () => DURABLE,
    );
    return appended !== undefined;
  }

  /** Loads for the load-aware failover of shared-mode partitions (AutoMQ's ClusterStats); undefined: counts. */
  get clusterStats(): ClusterStats | undefined {
    return this.#clusterStats;
  }

  set clusterStats(stats: ClusterStats | undefined) {
    this.#clusterStats = stats;
  }

  private notifyLifecycle(event: ControllerLifecycleEvent): void {
    for (const listener of this.#lifecycleListeners) listener(event);
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------

  protected override onStart(): void {
    this.#clusterControl.reset();
    this.#committed = replay(emptyImage(), this.metadataLog.readCommitted(0));
    this.#latest = this.#committed;
    this.#ready = false;
    this.#unsubscribe = this.metadataLog.onCommit((offset) => this.onCommitted(offset));
    // Records appended before a crash may still be in flight; serve only once they are committed and replayed.
    this.#catchUpTo = this.metadataLog.endOffset - 1;
    // In a quorum only the Raft leader activates, once it has committed its epoch start (onQuorumLeaderChange).
    if (this.raft) this.#catchUpTo = Number.POSITIVE_INFINITY;
    this.notifyLifecycle('start');
    if (this.metadataLog.committedOffset >= this.#catchUpTo) this.becomeReady();
    this.raft?.start();
  }

  protected override onCrash(): void {
    this.dropSoftState();
    this.raft?.crash();
  }

  protected override onStop(): void {
    this.dropSoftState();
    this.raft?.close();
  }

  // ---- the metadata quorum ----------------------------------------------------------------------------------

  /**
   * The Raft leader changed. This node activates when it leads and has committed its epoch start (every record
   * of earlier epochs is then committed and replayed); it renounces when someone else leads.
   */
  private onQuorumLeaderChange(leaderId: number | undefined): void {
    if (!this.up || !this.raft) return;
    if (leaderId === this.raft.nodeId) {
      if (!this.#ready) this.becomeReady();
    } else if (this.#ready) {
      this.renounce();
    }
  }

  /** Back to standby: the active controller's soft state goes, and whoever waits on it hears NOT_CONTROLLER. */
  private renounce(): void {
    const waiting = this.#durableWaiters;
    const parked = [...this.#parked];
    // A standby keeps following the log.
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    this.dropSoftState();
    this.#unsubscribe = unsubscribe;
    this.#latest = this.#committed;
    this.emit('controller.renounce', { committedOffset: this.metadataLog.committedOffset });
    const answer = this.notController();
    for (const w of waiting) w.lost?.(answer);
    for (const p of parked) p.reply(answer as unknown as MetadataFetchResponse);
  }

  /** NOT_CONTROLLER, with the active controller's node when this node knows it. */
  private notController(): NotControllerResponse {
    const leader = this.raft?.leaderId;
    const hint =
      leader !== undefined && leader !== this.raft!.nodeId ? this.raft!.addressOf(leader) : undefined;
    return {
      ...(errorResult('NOT_CONTROLLER') as { errorCode: 41; errorMessage: string }),
      ...(hint !== undefined ? { controllerNodeId: hint } : {}),
    };
  }

  private dropSoftState(): void {
    const wasActive = this.#ready;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#ready = false;
    this.#queued = [];
    this.#durableWaiters = [];
    for (const p of this.#parked) p.timer.cancel();
    this.#parked.clear();
    this.#handover.drop(() => this.notController());
    this.#clusterControl.deactivate();
    this.#clusterStats = undefined;
    if (wasActive) this.notifyLifecycle('inactive');
  }

  private becomeReady(): void {
    this.#latest = this.#committed;
    this.#ready = true;
    this.#clusterControl.activate();
    if (this.storageMode === 'shared') this.adoptLeaderlessPartitions();
    this.emit('controller.ready', { committedOffset: this.metadataLog.committedOffset });
    this.#clusterControl.scheduleFenceCheck();
    this.notifyLifecycle('active');
    const queued = this.#queued;
    this.#queued = [];
    for (const run of queued) run();
  }

  /**
   * After a restart the moves waiting for ElectLeaders are forgotten; a leaderless shared partition whose broker
   * is up gets the re-election timer, so it is elected even if its ElectLeaders was lost.
   */
  private adoptLeaderlessPartitions(): void {
    for (const topic of Object.values(this.#latest.topics)) {
      for (const p of topic.partitions) {
        if (p.leader === NO_LEADER && p.isr.some((r) => isActiveBroker(this.#latest, r))) {
          this.#handover.awaitElection({
            topic: topic.name,
            topicId: topic.topicId,
            partition: p.partition,
            source: NO_LEADER,
          });
        }
      }
    }
  }

  // ---- the log ----------------------------------------------------------------------------------------------

  private onCommitted(committedOffset: number): void {
    const entries = this.metadataLog.readCommitted(this.#committed.offset + 1);
    if (entries.length > 0) {
      const last = entries[entries.length - 1]!.offset;
      // When everything appended is now committed, the latest image is the committed one: no second replay.
      this.#committed =
        this.#ready && last === this.#latest.offset ? this.#latest : replay(this.#committed, entries);
    }
    if (!this.#ready) {
      if (committedOffset >= this.#catchUpTo) this.becomeReady();
      return;
    }
    while (this.#durableWaiters.length > 0 && this.#durableWaiters[0]!.offset <= committedOffset) {
      this.#durableWaiters.shift()!.fn();
    }
    for (const parked of [...this.#parked]) {
      const fresh = this.metadataLog.readCommitted(parked.fetchOffset);
      if (fresh.length === 0) continue;
      this.#parked.delete(parked);
      parked.timer.cancel();
      parked.reply({ ...NO_ERROR, entries: fresh, highWatermark: committedOffset + 1 });
    }
  }

  /** Appends `records` as one batch and moves the latest image on; with none, waits for what is pending. */
  private append(records: readonly MetadataRecord[]): Appended | { error: string } {
    if (records.length === 0) return { baseOffset: -1, lastOffset: this.#latest.offset };
    let appended: { baseOffset: number; lastOffset: number };
    try {
      appended = this.metadataLog.append(records);
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
    const entries = records.map((record, i) => ({ offset: appended.baseOffset + i, record }));
    this.#latest = replay(this.#latest, entries);
    return appended;
  }

  /** Runs `fn` once `offset` is committed; `lost` answers instead if this node stops being active first. */
  private whenDurable(offset: number, fn: () => void, lost?: (response: unknown) => void): void {
    if (this.metadataLog.committedOffset >= offset) fn();
    else this.#durableWaiters.push(lost ? { offset, fn, lost } : { offset, fn });
  }

  /**
   * Writes a result: appends its records, updates the soft state it names, and replies once durable. Returns
   * the append, or undefined when the log refused it (the requester is told NOT_CONTROLLER).
   */
  private commit<R>(
    result: ControlResult<R>,
    reply: ((response: unknown) => void) | undefined,
    respond: (appended: Appended) => unknown = () => result.response,
  ): Appended | undefined {
    const appended = this.append(result.records);
    if ('error' in appended) {
      reply?.({ ...errorResult('NOT_CONTROLLER', appended.error) });
      return undefined;
    }
    for (const key of result.settledElections ?? []) this.#handover.settle(key);
    for (const wait of result.awaitingElection ?? []) this.#handover.awaitElection(wait);
    if (reply) this.whenDurable(appended.lastOffset, () => reply(respond(appended)), reply);
    return appended;
  }

  /** What the controller's parts (cluster control, the stream hand-over) use of this node. */
  #controllerHost(): ClusterControlHost {
    const controller = this;
    return {
      config: this.config,
      get now() {
        return controller.sim.now;
      },
      get latestImage() {
        return controller.#latest;
      },
      get pendingElections() {
        return controller.pendingElections;
      },
      pendingElectionKeys: () => this.#handover.pendingKeys(),
      context: () => this.context(),
      commit: (result, reply, respond) => this.commit(result, reply, respond),
      emit: (kind, fields) => this.emit(kind, fields),
      schedule: (delayMs, fn, label) => this.schedule(delayMs, fn, label),
    };
  }

  private context(): ControlContext {
    return {
      image: this.#latest,
      config: this.config,
      storageMode: this.storageMode,
      random: this.random('placement'),
      ...(this.#clusterStats ? { clusterStats: this.#clusterStats } : {}),
      newTopicId: () => newTopicId(() => this.random('topic-id').uint32()),
      emit: (kind, fields) => this.emit(kind, fields),
    };
  }

  // ---- requests ---------------------------------------------------------------------------------------------

  protected override onRequest(from: NodeId, payload: unknown, reply: (response: unknown) => void): void {
    if (this.raft?.handleRequest(from, payload, reply)) return;
    // A standby (or a leader that has not caught up yet) does not serve: Kafka answers NOT_CONTROLLER.
    if (this.raft && !this.#ready) {
      reply(this.notController());
      return;
    }
    if (!this.#ready) {
      this.#queued.push(() => this.handle(payload as ControllerRequest, reply, from));
      return;
    }
    this.handle(payload as ControllerRequest, reply, from);
  }

  private handle(req: ControllerRequest, reply: (response: unknown) => void, from: NodeId = this.id): void {
    switch (req.type) {
      case 'BrokerRegistration':
        this.#clusterControl.register(req, reply);
        return;
      case 'BrokerHeartbeat':
        this.#clusterControl.heartbeat(req, reply);
        return;
      case 'MetadataFetch':
        this.onMetadataFetch(req, reply);
        return;
      case 'AlterPartition':
        this.commit(alterPartition(this.context(), req), reply);
        return;
      case 'ElectLeaders':
        this.commit(electLeaders(this.context(), req), reply);
        return;
      case 'CloseStreams':
      case 'OpenStreams':
        this.#handover.onStreams(req, reply);
        return;
      case 'CreateTopics':
        this.commit(createTopics(this.context(), req), reply);
        return;
      case 'DeleteTopics':
        this.commit(deleteTopics(this.context(), req), reply);
        return;
      case 'CreatePartitions':
        this.commit(createPartitions(this.context(), req), reply);
        return;
      case 'AlterPartitionReassignments': {
        this.commit(alterPartitionReassignments(this.context(), req, this.#handover.pendingByKey()), reply);
        return;
      }
      case 'ListPartitionReassignments':
        // A read: Kafka answers reads from the committed state.
        reply(listPartitionReassignments(this.#committed, req));
        return;
      case 'IncrementalAlterConfigs':
        this.commit(incrementalAlterConfigs(this.context(), req), reply);
        return;
      default: {
        const type = (req as { type?: unknown }).type;
        const extension = typeof type === 'string' ? this.#requestHandlers.get(type) : undefined;
        if (extension) return extension(from, req as { type: string }, reply);
        reply(
          errorResult('INVALID_REQUEST', `The controller does not serve requests of type ${String(type)}.`),
        );
      }
    }
  }

  private onMetadataFetch(req: MetadataFetchRequest, reply: (response: unknown) => void): void {
    const highWatermark = () => this.metadataLog.committedOffset + 1;
    if (!Number.isInteger(req.fetchOffset) || req.fetchOffset < 0) {
      const response: MetadataFetchResponse = {
        ...errorResult('INVALID_REQUEST', `Invalid fetch offset ${req.fetchOffset}.`),
        entries: [],
        highWatermark: highWatermark(),
      };
      reply(response);
      return;
    }
    const entries = this.metadataLog.readCommitted(req.fetchOffset);
    if (entries.length > 0 || !(req.maxWaitMs > 0)) {
      reply({ ...NO_ERROR, entries, highWatermark: highWatermark() } satisfies MetadataFetchResponse);
      return;
    }
    // Brokers long-poll: park the fetch until something commits or maxWaitMs passes.
    const parked: Parked = {
      fetchOffset: req.fetchOffset,
      reply,
      timer: this.schedule(
        req.maxWaitMs,
        () => {
          if (!this.#parked.delete(parked)) return;
          reply({ ...NO_ERROR, entries: [], highWatermark: highWatermark() } satisfies MetadataFetchResponse);
        },
        'controller.metadata-fetch-wait',
      ),
    };
    this.#parked.add(parked);
  }
}
