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
 * They cost little per event: a replica is checked again only when something the checks read of it changed (its
 * log's offsets, role, epoch, ISR), and logs are compared only past where they were last found equal.
 */
import type { Simulation, TraceEvent } from '../sim/index.ts';
import type { LogWatcher, PartitionLog } from '../storage/index.ts';
import {
  type Agreement,
  type Anchor,
  anchored,
  describeBatch,
  indexAt,
  newAgreement,
  verifyAgreement,
} from './log-agreement.ts';
import type { BrokerView, LogView, ReplicaView } from './replica-view.ts';

export const DATA_PLANE_INVARIANTS = [
  'HighWatermarkWithinLog',
  'MonotonicLeaderHighWatermark',
  'IsrLogsAgree',
  'IsrWithinReplicas',
  'MonotonicLeaderEpoch',
  'AcknowledgedInIsr',
] as const;

export type DataPlaneInvariantName = (typeof DATA_PLANE_INVARIANTS)[number];

/** A batch whose acks=all produce a producer saw acknowledged. */
export interface AcknowledgedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly baseOffset: number;
  readonly count: number;
  /** The producing client (the batch's `origin`) and the index of its first record. */
  readonly origin: string;
  readonly firstIndex: number;
}

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
  /** Queued in #changedLogs. */
  logChanged: boolean;
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
  /** The leader log, ISR and pending ISR the agreements were resolved for. */
  resolvedLog: LogView | undefined;
  resolvedIsr: readonly number[] | undefined;
  resolvedPendingIsr: readonly number[] | undefined;
  /** Checks that read this replica's log from elsewhere (a leader's agreement, acknowledged batches). */
  readonly watchers: Set<ReplicaState | AckedPartition>;
}

/** How far one committed ISR member's log was checked against a partition's acknowledged batches. */
interface AckedMember {
  readonly id: number;
  readonly state: ReplicaState;
  log: LogView | undefined;
  verified: number;
  anchor: Anchor | undefined;
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
  members: AckedMember[];
}

/** Per (broker, topic id, partition) state, without building a key string per lookup. */
class ReplicaTable<S> {
  readonly #byBroker = new Map<number, Map<string, (S | undefined)[]>>();

  get(brokerId: number, topicId: string, partition: number): S | undefined {
    return this.#byBroker.get(brokerId)?.get(topicId)?.[partition];
  }

  set(brokerId: number, topicId: string, partition: number, state: S): void {
    let topics = this.#byBroker.get(brokerId);
    if (!topics) this.#byBroker.set(brokerId, (topics = new Map()));
    let parts = topics.get(topicId);
    if (!parts) topics.set(topicId, (parts = []));
    parts[partition] = state;
  }
}

/**
 * The data-plane invariants over a cluster's brokers. Register them with `register`; feed `acknowledged` with the
 * batches producers saw acknowledged at acks=all.
 */
export class DataPlaneInvariants implements LogWatcher {
  readonly #brokers: ReadonlyMap<number, BrokerView>;
  readonly #brokerList: readonly BrokerView[];
  readonly #states = new ReplicaTable<ReplicaState>();
  /** Per broker (as in #brokerList): its activity, replica list and their states at the last look. */
  readonly #looks: {
    up: boolean;
    metadataOffset: number;
    hosted: readonly ReplicaView[] | undefined;
    states: ReplicaState[];
  }[];
  /** Which replica state each hosted log belongs to (the broker hosting it last). */
  readonly #watchedBy = new WeakMap<LogView, ReplicaState>();
  /** Replica states whose logs changed since the last scan. */
  #changedLogs: ReplicaState[] = [];
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
  /** Set when a batch was acknowledged or a watched log changed: AcknowledgedInIsr has something to look at. */
  #ackDirty = false;
  #ackVersion: unknown;
  /** Partitions (topic name -> partitions) that had an unclean leader election. */
  readonly #unclean = new Map<string, Set<number>>();

  constructor(
    private readonly sim: Simulation,
    private readonly source: DataPlaneSource,
  ) {
    this.#brokers = new Map(source.brokers.map((b) => [b.brokerId, b]));
    this.#brokerList = [...source.brokers];
    this.#looks = this.#brokerList.map(() => ({
      up: false,
      metadataOffset: -1,
      hosted: undefined,
      states: [],
    }));
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
        dirty: true,
      };
    }
    p.acked.push(ack);
    p.dirty = true;
    this.#ackDirty = true;
  }

  private onTrace(e: TraceEvent): void {
    if (e.kind !== 'controller.elect' || e.unclean !== true) return;
    const topic = e.topic as string;
    const partition = e.partition as number;
    let set = this.#unclean.get(topic);
    if (!set) this.#unclean.set(topic, (set = new Set()));
    set.add(partition);
    const parts = this.#acked.get(topic);
    if (parts) parts[partition] = undefined;
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
        logChanged: false,
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
   * Runs the replica-level checks once per event, however many of them are registered: over every replica of a
   * broker whose metadata or replica set changed, and over the replicas whose logs changed (their logs said so).
   */
  private scan(): void {
    const at = this.sim.eventCount;
    if (at === this.#at) return;
    this.#at = at;
    if (this.#found) {
      this.#problems.fill(undefined);
      this.#found = false;
    }
    const brokers = this.#brokerList;
    const looks = this.#looks;
    for (let b = 0; b < brokers.length; b++) {
      const broker = brokers[b]!;
      const look = looks[b]!;
      if (!broker.up) {
        look.up = false;
        continue;
      }
      const hosted = broker.hostedReplicas();
      if (look.up && look.hosted === hosted && look.metadataOffset === broker.metadataOffset) continue;
      look.up = true;
      look.metadataOffset = broker.metadataOffset;
      if (hosted !== look.hosted) {
        look.hosted = hosted;
        look.states = hosted.map((r) => this.stateOf(broker.brokerId, r.topicId, r.partition));
      }
      for (let h = 0; h < hosted.length; h++) {
        const r = hosted[h]!;
        const st = look.states[h]!;
        if (st.view !== r) {
          st.view = r;
          st.hostedBy = broker;
        }
        this.#watchedBy.set(r.log, st);
        r.log.watcher = this;
        this.look(st);
      }
    }
    if (this.#changedLogs.length > 0) {
      const changed = this.#changedLogs;
      this.#changedLogs = [];
      for (const st of changed) {
        st.logChanged = false;
        // The log said it changed: look even if its offsets came back to what they were (a truncation and an
        // append since the last look).
        st.log = undefined;
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

  /** LogWatcher: a hosted replica's log changed; its replica is looked at in this event's scan. */
  logChanged(log: PartitionLog): void {
    const st = this.#watchedBy.get(log);
    if (!st) return;
    // A log end that went back is a truncation: what was verified of this log must be verified again.
    if (log.logEndOffset < st.logEndSeen) st.truncations++;
    st.logEndSeen = log.logEndOffset;
    if (st.logChanged) return;
    st.logChanged = true;
    this.#changedLogs.push(st);
  }

  /** Checks a replica again if anything the checks read of it changed since the last look. */
  private look(st: ReplicaState): void {
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
      else {
        w.dirty = true;
        this.#ackDirty = true;
      }
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
        // No log there when resolved: look again (a new replica's log appears when its broker sees the topic).
        const memberLog = this.#brokers.get(id)?.storedLog(r.topicId, r.partition);
        if (!memberLog || memberLog === r.log) {
          this.markAgreement(st); // next event again, until it has one
          continue;
        }
        st.agreements.set(id, (a = newAgreement(memberLog)));
      }
      const problem = verifyAgreement(
        r.log,
        a,
        hw,
        st.truncations,
        this.#states.get(id, r.topicId, r.partition)?.truncations ?? 0,
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
      this.#states.get(id, r.topicId, r.partition)?.watchers.delete(st);
    }
    for (const id of members) {
      if (id === leaderId) continue;
      this.stateOf(id, r.topicId, r.partition).watchers.add(st);
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
    const versionChanged = version !== this.#ackVersion;
    if (!this.#ackDirty && !versionChanged) return undefined;
    this.#ackVersion = version;
    this.#ackDirty = false;
    for (const parts of this.#acked.values()) {
      for (const p of parts) {
        if (!p || (!p.dirty && !versionChanged)) continue;
        const problem = this.checkAcknowledged(p, version);
        if (problem) return problem;
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
        this.#acked.get(p.topic)![p.partition] = undefined;
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
      const batches = log.allBatches();
      for (let k = st.verified; k < acked.length; k++) {
        const a = acked[k]!;
        if (a.baseOffset < log.logStartOffset) continue; // deleted by retention
        const j = indexAt(batches, a.baseOffset);
        const b = batches[j];
        if (
          !b ||
          b.baseOffset !== a.baseOffset ||
          b.count !== a.count ||
          b.origin !== a.origin ||
          b.runs[0]?.index !== a.firstIndex
        )
          return `${p.topic}-${p.partition}: acknowledged batch [${a.baseOffset}..${a.baseOffset + a.count - 1}] of ${a.origin} (its records ${a.firstIndex}..${a.firstIndex + a.count - 1}) is not in the log of ISR member ${st.id} (log end ${log.logEndOffset}; at that offset: ${describeBatch(b)})`;
        if (!st.anchor || a.baseOffset > st.anchor.batch.baseOffset) st.anchor = { batch: b, index: j };
      }
      st.verified = acked.length;
    }
    return undefined;
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
