/**
 * A standalone Raft quorum under a verifiable load: Kafka's RaftEventSimulationTest cluster
 * (raft/src/test/java/org/apache/kafka/raft/) and the Raft test server's (kafka.tools.TestRaftServer) three-node
 * setup in one. Voters get ids 0..n-1 and observers the next ones; every node runs a ReplicatedCounter, the current
 * leader appends the next value every `appendIntervalMs` (plus jitter), and the safety invariants are registered on
 * the simulation. Faults are the test's: kill, graceful shutdown, kill with the disk lost, isolation, and
 * one-way-request cuts (modelled as link cuts, see `cut`).
 */
import {
  type Distribution,
  type NodeId,
  type RunUntilOptions,
  Simulation,
  type Timer,
} from '../sim/index.ts';
import type { QuorumConfig } from './config.ts';
import {
  ConsistentCommittedData,
  latestRunningLeader,
  type QuorumMember,
  RAFT_INVARIANTS,
  type RaftInvariantName,
  registerRaftInvariants,
} from './invariants.ts';
import type { ElectionState } from './quorum-state.ts';
import { RaftNode } from './raft-node.ts';
import { ReplicatedCounter } from './replicated-counter.ts';

export interface RaftQuorumOptions {
  seed?: number | string;
  /** An existing simulation to build in (seed, latency and invariantEvery are then ignored). */
  sim?: Simulation;
  voters: number;
  observers?: number;
  config?: Partial<QuorumConfig>;
  /** Network latency. Default uniform 0.5–3 ms (the test delivers every 2 ms with jitter). */
  latency?: Distribution;
  /** Which kernel invariants to register (default all four); ReplicatedCounter is always checked. */
  invariants?: readonly RaftInvariantName[];
  invariantEvery?: number;
  /** The SequentialAppendAction period and jitter (the test's 2 and 3 ms). */
  appendIntervalMs?: number;
  appendJitterMs?: number;
  /** Counter values each append adds (default 1); a steady load of N records/s needs fewer events this way. */
  recordsPerAppend?: number;
  /** Events one runUntil may take before it fails (the test's MAX_ITERATIONS counted polls; these are messages). */
  maxEventsPerPhase?: number;
  /** Address prefix of the nodes. Default `raft-`. */
  addressPrefix?: string;
}

export class RaftQuorum {
  readonly sim: Simulation;
  readonly voterIds: readonly number[];
  readonly observerIds: readonly number[];
  readonly nodes = new Map<number, RaftNode<number>>();
  readonly counters = new Map<number, ReplicatedCounter>();
  readonly consistentCommittedData: ConsistentCommittedData;
  readonly maxEventsPerPhase: number;
  #appendTimer: Timer | undefined;
  readonly #members: QuorumMember[] = [];
  readonly #removeInvariants: () => void;

  constructor(options: RaftQuorumOptions) {
    if (!(options.voters >= 1)) throw new Error('a quorum needs at least one voter');
    this.sim =
      options.sim ??
      new Simulation({
        seed: options.seed ?? 1,
        defaultLatency: options.latency ?? { kind: 'uniform', min: 0.5, max: 3 },
        ...(options.invariantEvery !== undefined ? { invariantEvery: options.invariantEvery } : {}),
        traceBufferSize: 1000,
      });
    this.maxEventsPerPhase = options.maxEventsPerPhase ?? 2_000_000;
    this.voterIds = Array.from({ length: options.voters }, (_, i) => i);
    this.observerIds = Array.from({ length: options.observers ?? 0 }, (_, i) => options.voters + i);
    const prefix = options.addressPrefix ?? 'raft-';
    const addressOf = (id: number): NodeId => `${prefix}${id}`;
    for (const id of [...this.voterIds, ...this.observerIds]) {
      const node = new RaftNode<number>(this.sim, {
        nodeId: id,
        voters: this.voterIds,
        addressOf,
        ...(options.config ? { config: options.config } : {}),
      });
      const counter = new ReplicatedCounter(node.raft);
      node.stateMachine = counter;
      this.nodes.set(id, node);
      this.counters.set(id, counter);
      this.#members.push({
        replicaId: id,
        get up() {
          return node.up;
        },
        raft: node.raft as RaftNode<unknown>['raft'],
      });
    }
    const members = () => this.#members;
    this.#removeInvariants = registerRaftInvariants(this.sim, members, this.voterIds, {
      names: options.invariants ?? RAFT_INVARIANTS,
    });
    const counterCheck = this.sim.addInvariant('ReplicatedCounter', () => {
      for (const c of this.counters.values()) if (c.violation) return c.violation;
      return undefined;
    });
    const removeRegistered = this.#removeInvariants;
    this.#removeInvariants = () => {
      removeRegistered();
      counterCheck();
    };
    this.consistentCommittedData = new ConsistentCommittedData(this.sim, members);
    const interval = options.appendIntervalMs ?? 2;
    const jitter = options.appendJitterMs ?? 3;
    const perAppend = options.recordsPerAppend ?? 1;
    const rng = this.sim.rng.stream('raft-quorum/append');
    const tick = () => {
      this.#appendTimer = this.sim.schedule(
        interval + (jitter > 0 ? rng.int(0, jitter - 1) : 0),
        tick,
        'raft-quorum.append',
      );
      const leader = this.leader();
      if (leader) {
        const counter = this.counters.get(leader.replicaId)!;
        if (!leader.raft.isShuttingDown && counter.isWritable) counter.increment(perAppend);
      }
    };
    this.#appendTimer = this.sim.schedule(0, tick, 'raft-quorum.append');
  }

  get members(): readonly QuorumMember[] {
    return this.#members;
  }

  node(id: number): RaftNode<number> {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no quorum node ${id}`);
    return n;
  }

  get majoritySize(): number {
    return Math.floor(this.voterIds.length / 2) + 1;
  }

  /** Stops the append load and removes the invariants (the simulation may go on with other work). */
  dispose(): void {
    this.#appendTimer?.cancel();
    this.#removeInvariants();
  }

  // ---- lifecycle and faults ----------------------------------------------------------------------------------

  startAll(): this {
    for (const n of this.nodes.values()) if (!n.up) n.start();
    return this;
  }

  start(id: number): void {
    this.node(id).start();
  }

  kill(id: number): void {
    this.node(id).crash();
  }

  killAll(): void {
    for (const n of this.nodes.values()) n.crash();
  }

  /** Graceful shutdown (Kafka's `shutdown(500)`). */
  shutdown(id: number, timeoutMs = 500): void {
    this.node(id).shutdown(timeoutMs);
  }

  killAndDeletePersistentState(id: number): void {
    this.node(id).killAndDeletePersistentState();
  }

  /** DropAllTraffic on a node. */
  isolate(id: number): void {
    this.sim.network.isolate(this.node(id).id);
  }

  /**
   * No requests between `a` and each of `b`, either way. The test drops outbound requests per direction; every
   * partition it builds is symmetric, and on a request/response network a one-way request cut is a link cut.
   */
  cut(a: number, b: readonly number[]): void {
    const from = this.node(a).id;
    const to = b.map((id) => this.node(id).id);
    this.sim.network.dropOutbound(from, to);
    for (const t of to) this.sim.network.dropOutbound(t, [from]);
  }

  heal(): void {
    this.sim.network.heal();
  }

  // ---- what the test asks ------------------------------------------------------------------------------------

  running(): RaftNode<number>[] {
    return [...this.nodes.values()].filter((n) => n.up);
  }

  /** The running leader with the largest epoch. */
  leader(): RaftNode<number> | undefined {
    const m = latestRunningLeader(this.#members);
    return m ? this.nodes.get(m.replicaId) : undefined;
  }

  /** A node's high watermark, 0 when unknown (as the test reads it). */
  highWatermark(id: number): number {
    return this.node(id).raft.highWatermark ?? 0;
  }

  // The conditions below run after every event of a phase: plain loops, no allocation.

  anyReachedHighWatermark(offset: number): boolean {
    for (const n of this.nodes.values()) if (n.up && (n.raft.highWatermark ?? 0) > offset) return true;
    return false;
  }

  allReachedHighWatermark(offset: number, ids?: readonly number[]): boolean {
    if (ids) {
      for (const id of ids) {
        const n = this.node(id);
        if (!n.up || (n.raft.highWatermark ?? 0) <= offset) return false;
      }
      return true;
    }
    for (const n of this.nodes.values()) if (n.up && (n.raft.highWatermark ?? 0) <= offset) return false;
    return true;
  }

  maxHighWatermarkReached(ids?: readonly number[]): number {
    let max = 0;
    for (const n of this.running()) {
      if (ids && !ids.includes(n.replicaId)) continue;
      max = Math.max(max, n.raft.highWatermark ?? 0);
    }
    return max;
  }

  maxLogEndOffset(): number {
    let max = 0;
    for (const n of this.running()) max = Math.max(max, n.raft.log.endOffset);
    return max;
  }

  /** The leader known by the running node with the largest epoch (the test's latestLeader). */
  latestLeader(): number | undefined {
    let epoch = 0;
    let leader: number | undefined;
    for (const n of this.running()) {
      const e = n.raft.epoch;
      if (e > epoch) {
        epoch = e;
        leader = n.raft.leaderId;
      } else if (e === epoch && n.raft.leaderId !== undefined) {
        leader = n.raft.leaderId;
      }
    }
    return leader;
  }

  hasLeader(id: number): boolean {
    return this.latestLeader() === id;
  }

  /** Every running node stored the same election state, with a leader. */
  hasConsistentLeader(): boolean {
    let first: ElectionState | undefined;
    for (const n of this.nodes.values()) {
      if (!n.up) continue;
      const s = n.raft.electionState;
      if (!s || s.leaderId === undefined) return false;
      if (!first) first = s;
      else if (s.epoch !== first.epoch || s.leaderId !== first.leaderId || s.votedId !== first.votedId)
        return false;
    }
    return first !== undefined;
  }

  /** Runs until `condition`, then validates ConsistentCommittedData (the test's runUntil). */
  runUntil(condition: () => boolean, description: string, options: RunUntilOptions = {}): number {
    const at = this.sim.runUntil(condition, {
      maxEvents: this.maxEventsPerPhase,
      timeout: '10m',
      ...options,
      description,
    });
    this.consistentCommittedData.validate();
    return at;
  }
}
