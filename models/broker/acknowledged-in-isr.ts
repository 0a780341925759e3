// AcknowledgedInIsr, the data-plane invariant over what producers were told: a batch acknowledged at acks=all is in
// the log of every member of the committed ISR, unless retention deleted it or the partition had an unclean leader
// election (which may lose acknowledged data). It keeps each partition's acknowledged batches and how far each
// member's log was verified, and looks again only at partitions whose members' logs changed (through the replica
// states the other checks keep, invariants.ts) or whose committed ISR did.
import type { TraceEvent } from '../sim/index.ts';
import { type AckedPartition, type ReplicaState, watch } from './invariant-state.ts';
import {
  type AcknowledgedBatch,
  anchored,
  forgetDeletedAcknowledged,
  verifyAcknowledged,
} from './log-agreement.ts';
import type { LogView } from './replica-view.ts';

/** What the check needs of the replica checks it shares replica states with. */
export interface AcknowledgedHost {
  /** The partition in the latest committed metadata, undefined when the topic or partition does not exist. */
  committed(
    topic: string,
    partition: number,
  ): { readonly topicId: string; readonly isr: readonly number[] } | undefined;
  /** A value that changes whenever the committed metadata does. */
  committedVersion(): unknown;
  /** Brings the replica states up to this event: marks (`mark`) the partitions whose members' logs changed. */
  scan(): void;
  /** A replica's state, made on first use. */
  stateOf(owner: number, topicId: string, partition: number): ReplicaState;
  /** The replica state a hosted log belongs to now. */
  stateOfLog(log: LogView): ReplicaState | undefined;
  /** The log a broker stores for a partition, if any. */
  storedLog(brokerId: number, topicId: string, partition: number): LogView | undefined;
}

export class AcknowledgedInIsr {
  readonly #acked = new Map<string, (AckedPartition | undefined)[]>();
  /** Acknowledged partitions with something to look at (a new batch, a member's log changed). */
  #dirty: AckedPartition[] = [];
  #version: unknown;
  /** Partitions (topic name -> partitions) that had an unclean leader election. */
  readonly #unclean = new Map<string, Set<number>>();

  constructor(private readonly host: AcknowledgedHost) {}

  /** A producer saw this batch acknowledged at acks=all. */
  acknowledged(ack: AcknowledgedBatch): void {
    if (this.#unclean.get(ack.topic)?.has(ack.partition)) return;
    let parts = this.#acked.get(ack.topic);
    if (!parts) this.#acked.set(ack.topic, (parts = []));
    let p = parts[ack.partition];
    if (!p) {
      const committed = this.host.committed(ack.topic, ack.partition);
      if (!committed) return; // deleted since: nothing left to keep
      parts[ack.partition] = p = {
        topic: ack.topic,
        partition: ack.partition,
        topicId: committed.topicId,
        acked: [],
        version: undefined,
        isr: undefined,
        members: [],
        kind: 'acked',
        dirty: false,
        dropped: false,
      };
    }
    p.acked.push(ack);
    this.mark(p);
  }

  /** A member's log changed: the partition is checked again. */
  mark(p: AckedPartition): void {
    if (p.dirty || p.dropped) return;
    p.dirty = true;
    this.#dirty.push(p);
  }

  /** An unclean election: the partition is no longer held to the check. */
  onTrace(e: TraceEvent): void {
    if (e.kind !== 'controller.elect' || e.unclean !== true) return;
    const topic = e.topic as string;
    const partition = e.partition as number;
    let set = this.#unclean.get(topic);
    if (!set) this.#unclean.set(topic, (set = new Set()));
    set.add(partition);
    const parts = this.#acked.get(topic);
    const p = parts?.[partition];
    if (p) this.drop(p);
  }

  /** The invariant: the first problem found, or undefined. */
  check(): string | undefined {
    this.host.scan(); // marks the acknowledged partitions whose members' logs changed
    const version = this.host.committedVersion();
    if (version !== this.#version) {
      // New committed metadata (rare): every partition's members may have changed.
      this.#version = version;
      for (const parts of this.#acked.values())
        for (const p of parts) if (p && !p.dirty && !this.membersUnchanged(p, version)) this.mark(p);
    }
    if (this.#dirty.length === 0) return undefined;
    const dirty = this.#dirty;
    this.#dirty = [];
    for (let i = 0; i < dirty.length; i++) {
      const p = dirty[i]!;
      if (!p.dirty) continue;
      const problem = this.checkPartition(p, version);
      if (problem) {
        // Found again at the next check, with the partitions not looked at yet.
        for (let j = i; j < dirty.length; j++) this.mark(dirty[j]!);
        return problem;
      }
    }
    return undefined;
  }

  /** How many acknowledged batches are kept to check (retention lets the oldest go). */
  get kept(): number {
    let n = 0;
    for (const parts of this.#acked.values()) for (const p of parts) n += p?.acked.length ?? 0;
    return n;
  }

  /** No longer held to AcknowledgedInIsr (an unclean election, or the topic was deleted). */
  private drop(p: AckedPartition): void {
    p.dropped = true;
    p.dirty = false;
    for (const m of p.members) m.state.watchers?.delete(p);
    const parts = this.#acked.get(p.topic);
    if (parts?.[p.partition] === p) parts[p.partition] = undefined;
  }

  /**
   * Whether a new committed version leaves a partition's members as they are: the same ISR array (registrations
   * are copied on write, so an unchanged partition keeps its own), each member storing the same log, watched through
   * the member's own state. A re-check would then rebuild the same members and find nothing new: every change to
   * their logs since reached this partition through the members' states (ReplicaState.watchers). Otherwise it is
   * checked again in full. Takes the new version when it holds.
   */
  private membersUnchanged(p: AckedPartition, version: unknown): boolean {
    if (p.version === undefined || p.dropped) return false;
    const committed = this.host.committed(p.topic, p.partition);
    if (!committed || committed.topicId !== p.topicId || committed.isr !== p.isr) return false;
    for (const m of p.members) {
      if (!m.log || this.host.stateOfLog(m.log) !== m.state) return false;
      if (this.host.storedLog(m.id, p.topicId, p.partition) !== m.log) return false;
    }
    p.version = version;
    return true;
  }

  private checkPartition(p: AckedPartition, version: unknown): string | undefined {
    p.dirty = false;
    if (p.version !== version) {
      p.version = version;
      const committed = this.host.committed(p.topic, p.partition);
      if (!committed || committed.topicId !== p.topicId) {
        // The topic was deleted (perhaps created again): its acknowledged batches went with it.
        this.drop(p);
        return undefined;
      }
      const before = p.members;
      p.isr = committed.isr;
      p.members = committed.isr.map((id) => {
        const log = this.host.storedLog(id, p.topicId, p.partition);
        const old = before.find((m) => m.id === id);
        const state = this.host.stateOf(id, p.topicId, p.partition);
        watch(state, p);
        return old && old.log === log
          ? old
          : { id, state, log, verified: 0, anchor: undefined, truncations: state.truncations };
      });
    }
    const acked = p.acked;
    for (const st of p.members) {
      const log = (st.log ??= this.host.storedLog(st.id, p.topicId, p.partition));
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
}
