/**
 * The data plane's safety checks, run by the kernel after every event (as the Raft ones are), over what a
 * harness may read: each broker's hosted replicas and stored logs (BrokerView), the committed ISR, and the
 * batches producers saw acknowledged at acks=all.
 *
 * - HighWatermarkWithinLog: no replica's high watermark is above its log end offset.
 * - MonotonicLeaderHighWatermark: a leader's high watermark never goes back within its leader epoch.
 * - IsrLogsAgree: every member of a leader's (maximal) ISR stores the leader's batches, batch by batch, up to the
 *   leader's high watermark (Kafka's replication guarantee; KIP-101 truncation must never cut below it).
 * - IsrWithinReplicas: a leader's ISR is a subset of the partition's replicas and contains the leader.
 * - MonotonicLeaderEpoch: the leader epoch a broker knows for a partition never goes back (restarts included).
 * - AcknowledgedInIsr: a batch acknowledged at acks=all is in the log of every member of the committed ISR, unless
 *   retention deleted it or the partition had an unclean leader election (which may lose acknowledged data).
 *
 * Their cost per event is what changed in it, not what exists: the brokers tell them of every change to a hosted
 * replica (ReplicaWatcher) and the logs of every append, truncation and new high watermark (LogWatcher), so a
 * replica is checked again only when something the checks read of it changed (its log's offsets, role, epoch,
 * ISR); logs are compared only past where they were last found equal; acknowledged batches are looked at again
 * only in the partitions whose members' logs changed. An idle partition costs nothing per event.
 */
import type { Simulation, TraceEvent } from '../sim/index.ts';
import type { LogWatcher, PartitionLog } from '../storage/index.ts';
import {
  type AcknowledgedBatch,
  type AcknowledgedProgress,
  type Agreement,
  anchored,
  forgetDeletedAcknowledged,
  newAgreement,
  verifyAcknowledged,
  verifyAgreement,
} from './log-agreement.ts';
import { ReplicaTable } from './replica-table.ts';
import type { BrokerView, LogView, ReplicaView, ReplicaWatcher } from './replica-view.ts';

export type { AcknowledgedBatch };

export const DATA_PLANE_INVARIANTS = [
  'HighWatermarkWithinLog',
  'MonotonicLeaderHighWatermark',
  'IsrLogsAgree',
  'IsrWithinReplicas',
  'MonotonicLeaderEpoch',
  'AcknowledgedInIsr',
] as const;

export type DataPlaneInvariantName = (typeof DATA_PLANE_INVARIANTS)[number];

/** A partition as the committed metadata has it. */
export interface CommittedPartition {
  readonly topicId: string;
  readonly isr: readonly number[];
}

export interface DataPlaneSource {
  readonly brokers: readonly BrokerView[];
  /** The partition in the latest committed metadata, undefined when the topic or partition does not exist. */
  committed(topic: string, partition: number): CommittedPartition | undefined;
  /** A value that changes whenever the committed metadata does (the image object), so answers can be reused. */
  committedVersion(): unknown;
}

/** Something to look at again when a replica's log changes: a leader's agreements, or acknowledged batches. */
interface Watcher {
  readonly kind: 'leader' | 'acked';
  dirty: boolean;
}

/** What the checks remember of one (broker, partition) replica, across the broker's restarts. */
interface ReplicaState extends Watcher {
  readonly kind: 'leader';
  readonly owner: number;
  /** The replica object last seen (a restart makes a new one), and the broker hosting it. */
  view: ReplicaView | undefined;
  hostedBy: BrokerView | undefined;
  /** Queued in #changed (its replica or its log changed since the last scan). */
  queued: boolean;
  /** The log end offset at its last change, and how many truncations its changes showed. */
  logEndSeen: number;
  truncations: number;
  // What the checks read of the replica at the last look: nothing to check again while these stay the same.
  log: LogView | undefined;
  role: ReplicaView['role'] | undefined;
  leaderEpoch: number;
  isr: readonly number[] | undefined;
  pendingIsr: readonly number[] | undefined;
  replicas: readonly number[] | undefined;
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  /** The largest leader epoch the broker knew. */
  maxEpoch: number;
  /** While leading: the epoch and high watermark at the last look. */
  ledEpoch: number;
  ledHighWatermark: number;
  /** IsrLogsAgree while leading: each member's agreement (null: it stores no log to compare yet). */
  readonly agreements: Map<number, Agreement | null>;
  /** Each member's own state (for its truncation count), by broker id. */
  readonly memberStates: Map<number, ReplicaState>;
  /** The leader log, ISR and pending ISR the agreements were resolved for. */
  resolvedLog: LogView | undefined;
  resolvedIsr: readonly number[] | undefined;
  resolvedPendingIsr: readonly number[] | undefined;
  /** Checks that read this replica's log from elsewhere (a leader's agreement, acknowledged batches). */
  readonly watchers: Set<ReplicaState | AckedPartition>;
}

/** How far one committed ISR member's log was checked against a partition's acknowledged batches. */
interface AckedMember extends AcknowledgedProgress {
  readonly state: ReplicaState;
  log: LogView | undefined;
  /** The member's truncation count when `verified` was reached. */
  truncations: number;
}

/** The acknowledged batches of one partition and how far each committed ISR member's log was checked. */
interface AckedPartition extends Watcher {
  readonly kind: 'acked';
  readonly topic: string;
  readonly partition: number;
  readonly topicId: string;
  readonly acked: AcknowledgedBatch[];
  /** The committed metadata version the members were resolved for. */
  version: unknown;
  /** No longer checked (an unclean election, or the topic was deleted). */
  dropped: boolean;
  members: AckedMember[];
}

/**
 * The data-plane invariants over a cluster's brokers. Register them with `register`; feed `acknowledged` with the
 * batches producers saw acknowledged at acks=all.
 */
export class DataPlaneInvariants implements LogWatcher, ReplicaWatcher {
  readonly #brokers: ReadonlyMap<number, BrokerView>;
  readonly #brokerList: readonly BrokerView[];
  readonly #states = new ReplicaTable<ReplicaState>();
  /** Which replica state each hosted log belongs to (the broker hosting it last). */
  readonly #watchedBy = new WeakMap<LogView, ReplicaState>();
  /** Replica states whose replica or log changed since the last scan. */
  #changed: ReplicaState[] = [];
  /** Whether the brokers' replicas were looked at once and the brokers tell of their changes since. */
  #watching = false;
  #looked = 0;
  #checked = 0;
  /** Leader replicas whose IsrLogsAgree check waits for the end of the scan. */
  #dirtyLeaders: ReplicaState[] = [];
  #at = -1;
  /** What the last scan found, by index in DATA_PLANE_INVARIANTS (cleared only when something was found). */
  readonly #problems: (string | undefined)[] = DATA_PLANE_INVARIANTS.map(() => undefined);
  #found = false;
  #hwWithinLog = false;
  #leaderHw = false;
  #agree = false;
  #isrWithin = false;
  #epochs = false;
  #removers: (() => void)[] = [];
  readonly #acked = new Map<string, (AckedPartition | undefined)[]>();
  /** Acknowledged partitions with something to look at (a new batch, a member's log changed). */
  #ackDirty: AckedPartition[] = [];
  #ackVersion: unknown;
  /** Partitions (topic name -> partitions) that had an unclean leader election. */
  readonly #unclean = new Map<string, Set<number>>();

  constructor(
    private readonly sim: Simulation,
    private readonly source: DataPlaneSource,
  ) {
    this.#brokers = new Map(source.brokers.map((b) => [b.brokerId, b]));
    this.#brokerList = [...source.brokers];
  }

  /** Registers the named invariants (default all), prefixed by `scope` when given; returns their remover. */
  register(options: { names?: readonly DataPlaneInvariantName[]; scope?: string } = {}): () => void {
    const names = options.names ?? DATA_PLANE_INVARIANTS;
    const removers = names.map((name) => {
      this.enable(name, true);
      const index = DATA_PLANE_INVARIANTS.indexOf(name);
      const check =
        name === 'AcknowledgedInIsr'
          ? () => this.acknowledgedInIsr()
          : () => {
              this.scan();
              return this.#problems[index];
            };
      return this.sim.addInvariant(options.scope ? `${options.scope}.${name}` : name, check);
    });
    if (names.includes('AcknowledgedInIsr')) removers.push(this.sim.trace.subscribe((e) => this.onTrace(e)));
    const remove = () => {
      for (const r of removers) r();
      for (const name of names) this.enable(name, false);
    };
    this.#removers.push(remove);
    return remove;
  }

  /** Removes every invariant registered so far (e.g. before a test breaks the model on purpose). */
  remove(): void {
    for (const r of this.#removers) r();
    this.#removers = [];
  }

  private enable(name: DataPlaneInvariantName, on: boolean): void {
    if (name === 'HighWatermarkWithinLog') this.#hwWithinLog = on;
    else if (name === 'MonotonicLeaderHighWatermark') this.#leaderHw = on;
    else if (name === 'IsrLogsAgree') this.#agree = on;
    else if (name === 'IsrWithinReplicas') this.#isrWithin = on;
    else if (name === 'MonotonicLeaderEpoch') this.#epochs = on;
  }

  /** A producer saw this batch acknowledged at acks=all. */
  acknowledged(ack: AcknowledgedBatch): void {
    if (this.#unclean.get(ack.topic)?.has(ack.partition)) return;
    let parts = this.#acked.get(ack.topic);
    if (!parts) this.#acked.set(ack.topic, (parts = []));
    let p = parts[ack.partition];
    if (!p) {
      const committed = this.source.committed(ack.topic, ack.partition);
      if (!committed) return; // deleted since: nothing left to keep
      parts[ack.partition] = p = {
        topic: ack.topic,
        partition: ack.partition,
        topicId: committed.topicId,
        acked: [],
        version: undefined,
        members: [],
        kind: 'acked',
        dirty: false,
        dropped: false,
      };
    }
    p.acked.push(ack);
    this.markAcked(p);
  }

  /** No longer held to AcknowledgedInIsr (an unclean election, or the topic was deleted). */
  private dropAcked(p: AckedPartition): void {
    p.dropped = true;
    p.dirty = false;
    for (const m of p.members) m.state.watchers.delete(p);
    const parts = this.#acked.get(p.topic);
    if (parts?.[p.partition] === p) parts[p.partition] = undefined;
  }

  private markAcked(p: AckedPartition): void {
    if (p.dirty || p.dropped) return;
    p.dirty = true;
    this.#ackDirty.push(p);
  }

  private onTrace(e: TraceEvent): void {
    if (e.kind !== 'controller.elect' || e.unclean !== true) return;
    const topic = e.topic as string;
    const partition = e.partition as number;
    let set = this.#unclean.get(topic);
    if (!set) this.#unclean.set(topic, (set = new Set()));
    set.add(partition);
    const parts = this.#acked.get(topic);
    const p = parts?.[partition];
    if (p) this.dropAcked(p);
  }

  private stateOf(owner: number, topicId: string, partition: number): ReplicaState {
    let st = this.#states.get(owner, topicId, partition);
    if (!st) {
      st = {
        kind: 'leader',
        owner,
        dirty: false,
        view: undefined,
        hostedBy: undefined,
        queued: false,
        logEndSeen: 0,
        truncations: 0,
        log: undefined,
        role: undefined,
        leaderEpoch: -1,
        isr: undefined,
        pendingIsr: undefined,
        replicas: undefined,
        logStartOffset: -1,
        logEndOffset: -1,
        highWatermark: -1,
        maxEpoch: -1,
        ledEpoch: -1,
        ledHighWatermark: 0,
        agreements: new Map(),
        memberStates: new Map(),
        resolvedLog: undefined,
        resolvedIsr: undefined,
        resolvedPendingIsr: undefined,
        watchers: new Set(),
      };
      this.#states.set(owner, topicId, partition, st);
    }
    return st;
  }

  /**
   * Runs the replica-level checks once per event, however many of them are registered: over the replicas that
   * changed since the last scan (their brokers or their logs said so), and the leaders whose members changed.
   */
  private scan(): void {
    const at = this.sim.eventCount;
    if (at === this.#at) return;
    this.#at = at;
    if (this.#found) {
      this.#problems.fill(undefined);
      this.#found = false;
    }
    if (!this.#watching) {
      // Once: every replica hosted so far, then the brokers tell of each change.
      this.#watching = true;
      for (const broker of this.#brokerList) {
        broker.replicaWatcher = this;
        for (const r of broker.hostedReplicas()) this.replicaChanged(broker, r);
      }
    }
    if (this.#changed.length > 0) {
      const changed = this.#changed;
      this.#changed = [];
      for (let i = 0; i < changed.length; i++) {
        const st = changed[i]!;
        st.queued = false;
        if (st.hostedBy?.up && st.view) this.look(st);
      }
    }
    if (this.#dirtyLeaders.length > 0) {
      // After the looks: a member's change marks its leader's agreement, wherever either of them is.
      const dirty = this.#dirtyLeaders;
      this.#dirtyLeaders = [];
      for (const st of dirty) {
        st.dirty = false;
        const r = st.view;
        if (!r || r.role !== 'leader' || !st.hostedBy?.up) continue;
        if (this.#agree) this.note(2, this.agreement(r, st.owner, st));
      }
    }
  }

  /** ReplicaWatcher: a hosted replica changed; it is looked at in this event's scan. */
  replicaChanged(broker: BrokerView, r: ReplicaView): void {
    const st = this.stateOf(broker.brokerId, r.topicId, r.partition);
    st.view = r;
    st.hostedBy = broker;
    // A log shared by several brokers' replicas (shared storage) belongs to the one that hosts it now.
    if (
      (r.role !== 'offline' || !this.#watchedBy.has(r.log)) &&
      (r.log.watcher !== this || this.#watchedBy.get(r.log) !== st)
    ) {
      this.#watchedBy.set(r.log, st);
      r.log.watcher = this;
    }
    this.queue(st);
  }

  private queue(st: ReplicaState): void {
    if (st.queued) return;
    st.queued = true;
    this.#changed.push(st);
  }

  /** LogWatcher: a hosted replica's log changed; its replica is looked at in this event's scan. */
  logChanged(log: PartitionLog): void {
    const st = this.#watchedBy.get(log);
    if (!st) return;
    // A log end that went back is a truncation: what was verified of this log must be verified again.
    if (log.logEndOffset < st.logEndSeen) st.truncations++;
    st.logEndSeen = log.logEndOffset;
    // Look even if its offsets come back to what they were (a truncation and an append since the last look).
    st.log = undefined;
    this.queue(st);
  }

  /** How many times a replica was looked at, and how many of those found something to check again. */
  get looks(): { looked: number; checked: number } {
    return { looked: this.#looked, checked: this.#checked };
  }

  /** Checks a replica again if anything the checks read of it changed since the last look. */
  private look(st: ReplicaState): void {
    this.#looked++;
    const r = st.view!;
    const log = r.log;
    if (
      st.log === log &&
      st.logEndOffset === log.logEndOffset &&
      st.highWatermark === log.highWatermark &&
      st.logStartOffset === log.logStartOffset &&
      st.role === r.role &&
      st.leaderEpoch === r.leaderEpoch &&
      st.isr === r.isr &&
      st.pendingIsr === r.pendingIsr &&
      st.replicas === r.replicas
    )
      return;
    this.#checked++;
    st.log = log;
    st.logEndOffset = log.logEndOffset;
    st.highWatermark = log.highWatermark;
    st.logStartOffset = log.logStartOffset;
    st.role = r.role;
    st.leaderEpoch = r.leaderEpoch;
    st.isr = r.isr;
    st.pendingIsr = r.pendingIsr;
    st.replicas = r.replicas;
    this.markAgreement(st);
    for (const w of st.watchers) {
      if (w.kind === 'leader') this.markAgreement(w);
      else this.markAcked(w);
    }
    this.checkReplica(r, st.owner, st);
  }

  /** Queues a leader replica's IsrLogsAgree check for the end of this scan. */
  private markAgreement(st: ReplicaState): void {
    if (st.dirty || st.role !== 'leader') return;
    st.dirty = true;
    this.#dirtyLeaders.push(st);
  }

  /** Keeps the first problem an invariant (by index) has in this scan. */
  private note(index: number, problem: string | undefined): void {
    if (problem === undefined || this.#problems[index] !== undefined) return;
    this.#problems[index] = problem;
    this.#found = true;
  }

  /** The checks of one replica whose state changed since the last look. */
  private checkReplica(r: ReplicaView, owner: number, st: ReplicaState): void {
    const log = r.log;
    if (this.#hwWithinLog && log.highWatermark > log.logEndOffset)
      this.note(
        0,
        `broker ${owner} ${r.topic}-${r.partition} (${r.role}): high watermark ${log.highWatermark} above log end offset ${log.logEndOffset}`,
      );
    if (this.#epochs && r.leaderEpoch >= 0) {
      if (r.leaderEpoch < st.maxEpoch)
        this.note(
          4,
          `broker ${owner} ${r.topic}-${r.partition}: leader epoch went back from ${st.maxEpoch} to ${r.leaderEpoch}`,
        );
      else st.maxEpoch = r.leaderEpoch;
    }
    if (r.role !== 'leader') return;
    if (this.#leaderHw) {
      const hw = log.highWatermark;
      if (st.ledEpoch === r.leaderEpoch && hw < st.ledHighWatermark)
        this.note(
          1,
          `broker ${owner} leads ${r.topic}-${r.partition} in epoch ${r.leaderEpoch}: its high watermark went back from ${st.ledHighWatermark} to ${hw}`,
        );
      st.ledEpoch = r.leaderEpoch;
      st.ledHighWatermark = hw;
    }
    if (this.#isrWithin) this.note(3, isrProblem(r, owner));
  }

  /** IsrLogsAgree for one leader replica: every (maximal) ISR member against the leader, up to its high watermark. */
  private agreement(r: ReplicaView, leaderId: number, st: ReplicaState): string | undefined {
    if (st.resolvedLog !== r.log || st.resolvedIsr !== r.isr || st.resolvedPendingIsr !== r.pendingIsr)
      this.resolveMembers(r, leaderId, st);
    const hw = r.log.highWatermark;
    for (const [id, entry] of st.agreements) {
      let a = entry;
      if (!a) {
        // No log there when resolved: a new replica's log appears when its broker hosts it, and that broker's
        // change marks this agreement again (the member's state has this leader among its watchers).
        const memberLog = this.#brokers.get(id)?.storedLog(r.topicId, r.partition);
        if (!memberLog || memberLog === r.log) continue;
        st.agreements.set(id, (a = newAgreement(memberLog)));
      }
      const problem = verifyAgreement(
        r.log,
        a,
        hw,
        st.truncations,
        st.memberStates.get(id)?.truncations ?? 0,
      );
      if (problem)
        return `${r.topic}-${r.partition}: ISR member ${id} disagrees with leader ${leaderId} (epoch ${r.leaderEpoch}, high watermark ${hw}): ${problem}`;
    }
    return undefined;
  }

  /** Finds the stored log of each (maximal) ISR member of a leader, and watches it for changes. */
  private resolveMembers(r: ReplicaView, leaderId: number, st: ReplicaState): void {
    const agreements = st.agreements;
    if (st.resolvedLog !== r.log) agreements.clear();
    st.resolvedLog = r.log;
    st.resolvedIsr = r.isr;
    st.resolvedPendingIsr = r.pendingIsr;
    const members = r.pendingIsr ? [...new Set([...r.isr, ...r.pendingIsr])] : r.isr;
    for (const id of [...agreements.keys()]) {
      if (members.includes(id)) continue;
      agreements.delete(id);
      st.memberStates.get(id)?.watchers.delete(st);
      st.memberStates.delete(id);
    }
    for (const id of members) {
      if (id === leaderId) continue;
      const member = this.stateOf(id, r.topicId, r.partition);
      member.watchers.add(st);
      st.memberStates.set(id, member);
      // A member that stores no log (not created there yet, or removed by a reassignment the leader has not seen
      // yet) or shares the leader's (shared storage) has nothing to compare.
      const memberLog = this.#brokers.get(id)?.storedLog(r.topicId, r.partition);
      const usable = memberLog && memberLog !== r.log ? memberLog : undefined;
      const old = agreements.get(id);
      if (!usable) agreements.set(id, null);
      else if (!old || old.memberLog !== usable) agreements.set(id, newAgreement(usable));
    }
  }

  private acknowledgedInIsr(): string | undefined {
    this.scan(); // marks the acknowledged partitions whose members' logs changed
    const version = this.source.committedVersion();
    if (version !== this.#ackVersion) {
      // New committed metadata (rare): every partition's members may have changed.
      this.#ackVersion = version;
      for (const parts of this.#acked.values()) for (const p of parts) if (p) this.markAcked(p);
    }
    if (this.#ackDirty.length === 0) return undefined;
    const dirty = this.#ackDirty;
    this.#ackDirty = [];
    for (let i = 0; i < dirty.length; i++) {
      const p = dirty[i]!;
      if (!p.dirty) continue;
      const problem = this.checkAcknowledged(p, version);
      if (problem) {
        // Found again at the next check, with the partitions not looked at yet.
        for (let j = i; j < dirty.length; j++) this.markAcked(dirty[j]!);
        return problem;
      }
    }
    return undefined;
  }

  private checkAcknowledged(p: AckedPartition, version: unknown): string | undefined {
    p.dirty = false;
    if (p.version !== version) {
      p.version = version;
      const committed = this.source.committed(p.topic, p.partition);
      if (!committed || committed.topicId !== p.topicId) {
        // The topic was deleted (perhaps created again): its acknowledged batches went with it.
        this.dropAcked(p);
        return undefined;
      }
      const before = p.members;
      p.members = committed.isr.map((id) => {
        const log = this.#brokers.get(id)?.storedLog(p.topicId, p.partition);
        const old = before.find((m) => m.id === id);
        const state = this.stateOf(id, p.topicId, p.partition);
        state.watchers.add(p);
        return old && old.log === log
          ? old
          : { id, state, log, verified: 0, anchor: undefined, truncations: state.truncations };
      });
    }
    const acked = p.acked;
    for (const st of p.members) {
      const log = (st.log ??= this.#brokers.get(st.id)?.storedLog(p.topicId, p.partition));
      if (!log)
        return `${p.topic}-${p.partition}: ISR member ${st.id} stores no log, but ${acked.length} batches were acknowledged`;
      // A truncation that cut an acknowledged batch cut the highest one (the anchor): then verify them all again.
      if (st.truncations !== st.state.truncations || (st.anchor && !anchored(log, st.anchor))) {
        st.verified = 0;
        st.anchor = undefined;
        st.truncations = st.state.truncations;
      }
      if (st.verified === acked.length) continue;
      const problem = verifyAcknowledged(log, acked, st);
      if (problem) return `${p.topic}-${p.partition}: ${problem}`;
    }
    forgetDeletedAcknowledged(p.acked, p.members);
    return undefined;
  }

  /** How many acknowledged batches are kept to check (retention lets the oldest go). */
  get acknowledgedKept(): number {
    let n = 0;
    for (const parts of this.#acked.values()) for (const p of parts) n += p?.acked.length ?? 0;
    return n;
  }
}

/** IsrWithinReplicas for one leader replica. */
function isrProblem(r: ReplicaView, leaderId: number): string | undefined {
  if (!r.isr.includes(leaderId))
    return `broker ${leaderId} leads ${r.topic}-${r.partition} in epoch ${r.leaderEpoch} but is not in its ISR [${r.isr.join(', ')}]`;
  for (const id of r.isr)
    if (!r.replicas.includes(id))
      return `${r.topic}-${r.partition} (leader ${leaderId}, epoch ${r.leaderEpoch}): ISR [${r.isr.join(', ')}] has ${id}, not a replica of [${r.replicas.join(', ')}]`;
  return undefined;
}
