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
 *   Its bookkeeping is acknowledged-in-isr.ts; the state the checks keep between events is invariant-state.ts.
 *
 * Their cost per event is what changed in it, not what exists: the brokers tell them of every change to a hosted
 * replica (ReplicaWatcher) and the logs of every append, truncation and new high watermark (LogWatcher), so a
 * replica is checked again only when something the checks read of it changed (its log's offsets, role, epoch,
 * ISR); logs are compared only past where they were last found equal; acknowledged batches are looked at again
 * only in the partitions whose members' logs changed. An idle partition costs nothing per event.
 */
import type { Simulation } from '../sim/index.ts';
import type { LogWatcher, PartitionLog } from '../storage/index.ts';
import { AcknowledgedInIsr } from './acknowledged-in-isr.ts';
import {
  agreementsOf,
  memberStatesOf,
  newReplicaState,
  type ReplicaState,
  watch,
} from './invariant-state.ts';
import { type AcknowledgedBatch, newAgreement, verifyAgreement } from './log-agreement.ts';
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

/**
 * The data-plane invariants over a cluster's brokers. Register them with `register`; feed `acknowledged` with the
 * batches producers saw acknowledged at acks=all.
 */
export class DataPlaneInvariants implements LogWatcher, ReplicaWatcher {
  readonly #brokers: ReadonlyMap<number, BrokerView>;
  readonly #brokerList: readonly BrokerView[];
  readonly #states = new ReplicaTable<ReplicaState>();
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
  readonly #acknowledged: AcknowledgedInIsr;

  constructor(
    private readonly sim: Simulation,
    source: DataPlaneSource,
  ) {
    this.#brokers = new Map(source.brokers.map((b) => [b.brokerId, b]));
    this.#brokerList = [...source.brokers];
    this.#acknowledged = new AcknowledgedInIsr({
      committed: (topic, partition) => source.committed(topic, partition),
      committedVersion: () => source.committedVersion(),
      scan: () => this.scan(),
      stateOf: (owner, topicId, partition) => this.stateOf(owner, topicId, partition),
      stateOfLog: (log) => this.watchedBy(log),
      storedLog: (brokerId, topicId, partition) => this.#brokers.get(brokerId)?.storedLog(topicId, partition),
    });
  }

  /** Registers the named invariants (default all), prefixed by `scope` when given; returns their remover. */
  register(options: { names?: readonly DataPlaneInvariantName[]; scope?: string } = {}): () => void {
    const names = options.names ?? DATA_PLANE_INVARIANTS;
    const removers = names.map((name) => {
      this.enable(name, true);
      const index = DATA_PLANE_INVARIANTS.indexOf(name);
      const check =
        name === 'AcknowledgedInIsr'
          ? () => this.#acknowledged.check()
          : () => {
              this.scan();
              return this.#problems[index];
            };
      return this.sim.addInvariant(options.scope ? `${options.scope}.${name}` : name, check);
    });
    if (names.includes('AcknowledgedInIsr'))
      removers.push(this.sim.trace.subscribe((e) => this.#acknowledged.onTrace(e)));
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
    this.#acknowledged.acknowledged(ack);
  }

  private stateOf(owner: number, topicId: string, partition: number): ReplicaState {
    let st = this.#states.get(owner, topicId, partition);
    if (!st) {
      st = newReplicaState(owner);
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
    const log = r.log;
    const owner = this.watchedBy(log);
    if (owner !== st && (r.role !== 'offline' || owner === undefined)) {
      log.watcher = this;
      log.watcherState = st;
    }
    this.queue(st);
  }

  /**
   * The replica state a hosted log belongs to (the broker hosting it last): kept on the log itself (a field, not a
   * weak map looked up at every append), and this checker's only while it is the log's watcher.
   */
  private watchedBy(log: LogView): ReplicaState | undefined {
    return log.watcher === this ? (log.watcherState as ReplicaState | undefined) : undefined;
  }

  private queue(st: ReplicaState): void {
    if (st.queued) return;
    st.queued = true;
    this.#changed.push(st);
  }

  /** LogWatcher: a hosted replica's log changed; its replica is looked at in this event's scan. */
  logChanged(log: PartitionLog): void {
    const st = this.watchedBy(log);
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
    if (st.watchers)
      for (const w of st.watchers) {
        if (w.kind === 'leader') this.markAgreement(w);
        else this.#acknowledged.mark(w);
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
    // Nothing is committed yet, so nothing to compare (verifyAgreement finds nothing below a high watermark of 0):
    // the members are resolved when it moves, which marks this leader again. A new topic's leaders (100,000 at
    // 100 x 100k) are not resolved twice, once before and once after their followers' logs exist.
    if (r.log.highWatermark === 0) return undefined;
    if (st.resolvedLog !== r.log || st.resolvedIsr !== r.isr || st.resolvedPendingIsr !== r.pendingIsr)
      this.resolveMembers(r, leaderId, st);
    const hw = r.log.highWatermark;
    const agreements = agreementsOf(st);
    for (const [id, entry] of agreements) {
      let a = entry;
      if (!a) {
        // No log there when resolved: a new replica's log appears when its broker hosts it, and that broker's
        // change marks this agreement again (the member's state has this leader among its watchers).
        const memberLog = this.#brokers.get(id)?.storedLog(r.topicId, r.partition);
        if (!memberLog || memberLog === r.log) continue;
        agreements.set(id, (a = newAgreement(memberLog)));
      }
      const problem = verifyAgreement(
        r.log,
        a,
        hw,
        st.truncations,
        st.memberStates?.get(id)?.truncations ?? 0,
      );
      if (problem)
        return `${r.topic}-${r.partition}: ISR member ${id} disagrees with leader ${leaderId} (epoch ${r.leaderEpoch}, high watermark ${hw}): ${problem}`;
    }
    return undefined;
  }

  /** Finds the stored log of each (maximal) ISR member of a leader, and watches it for changes. */
  private resolveMembers(r: ReplicaView, leaderId: number, st: ReplicaState): void {
    const agreements = agreementsOf(st);
    const memberStates = memberStatesOf(st);
    if (st.resolvedLog !== r.log) agreements.clear();
    st.resolvedLog = r.log;
    st.resolvedIsr = r.isr;
    st.resolvedPendingIsr = r.pendingIsr;
    const members = r.pendingIsr ? [...new Set([...r.isr, ...r.pendingIsr])] : r.isr;
    for (const id of [...agreements.keys()]) {
      if (members.includes(id)) continue;
      agreements.delete(id);
      memberStates.get(id)?.watchers?.delete(st);
      memberStates.delete(id);
    }
    for (const id of members) {
      if (id === leaderId) continue;
      const member = this.stateOf(id, r.topicId, r.partition);
      watch(member, st);
      memberStates.set(id, member);
      // A member that stores no log (not created there yet, or removed by a reassignment the leader has not seen
      // yet) or shares the leader's (shared storage) has nothing to compare.
      const memberLog = this.#brokers.get(id)?.storedLog(r.topicId, r.partition);
      const usable = memberLog && memberLog !== r.log ? memberLog : undefined;
      const old = agreements.get(id);
      if (!usable) agreements.set(id, null);
      else if (!old || old.memberLog !== usable) agreements.set(id, newAgreement(usable));
    }
  }

  /** How many acknowledged batches are kept to check (retention lets the oldest go). */
  get acknowledgedKept(): number {
    return this.#acknowledged.kept;
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
