// What the data-plane invariants (invariants.ts) remember between events: per (broker, partition) replica what the
// checks last read of it, and per partition the batches acknowledged at acks=all (acknowledged-in-isr.ts) with how
// far each committed ISR member's log was checked. A replica's state lists the checks that read its log from
// elsewhere (its `watchers`), so a change to that log marks exactly them.
import type { AcknowledgedBatch, AcknowledgedProgress, Agreement } from './log-agreement.ts';
import type { BrokerView, LogView, ReplicaView } from './replica-view.ts';

/** Something to look at again when a replica's log changes: a leader's agreements, or acknowledged batches. */
interface Watcher {
  readonly kind: 'leader' | 'acked';
  dirty: boolean;
}

/** What the checks remember of one (broker, partition) replica, across the broker's restarts. */
export interface ReplicaState extends Watcher {
  readonly kind: 'leader';
  readonly owner: number;
  /** The replica object last seen (a restart makes a new one), and the broker hosting it. */
  view: ReplicaView | undefined;
  hostedBy: BrokerView | undefined;
  /** Queued for the next scan (its replica or its log changed since the last one). */
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
  /**
   * IsrLogsAgree while leading: each member's agreement (null: it stores no log to compare yet). This and the two
   * below are made on first use (`agreementsOf`, `memberStatesOf`, `watch`): most replicas never lead or are never
   * read from elsewhere, and 300,000 replicas would otherwise hold 900,000 empty collections.
   */
  agreements: Map<number, Agreement | null> | undefined;
  /** Each member's own state (for its truncation count), by broker id. */
  memberStates: Map<number, ReplicaState> | undefined;
  /** The leader log, ISR and pending ISR the agreements were resolved for. */
  resolvedLog: LogView | undefined;
  resolvedIsr: readonly number[] | undefined;
  resolvedPendingIsr: readonly number[] | undefined;
  /** Checks that read this replica's log from elsewhere (a leader's agreement, acknowledged batches). */
  watchers: Set<ReplicaState | AckedPartition> | undefined;
}

/** A replica state's agreements, made on first use. */
export function agreementsOf(st: ReplicaState): Map<number, Agreement | null> {
  return (st.agreements ??= new Map());
}

/** A replica state's members' states, made on first use. */
export function memberStatesOf(st: ReplicaState): Map<number, ReplicaState> {
  return (st.memberStates ??= new Map());
}

/** `w` reads `st`'s log from elsewhere: a change to that log marks it. */
export function watch(st: ReplicaState, w: ReplicaState | AckedPartition): void {
  (st.watchers ??= new Set()).add(w);
}

/** How far one committed ISR member's log was checked against a partition's acknowledged batches. */
export interface AckedMember extends AcknowledgedProgress {
  readonly state: ReplicaState;
  log: LogView | undefined;
  /** The member's truncation count when `verified` was reached. */
  truncations: number;
}

/** The acknowledged batches of one partition and how far each committed ISR member's log was checked. */
export interface AckedPartition extends Watcher {
  readonly kind: 'acked';
  readonly topic: string;
  readonly partition: number;
  readonly topicId: string;
  readonly acked: AcknowledgedBatch[];
  /** The committed metadata version the members were resolved for, and the committed ISR they were resolved from. */
  version: unknown;
  isr: readonly number[] | undefined;
  /** No longer checked (an unclean election, or the topic was deleted). */
  dropped: boolean;
  members: AckedMember[];
}

/** A replica's state before its first look. */
export function newReplicaState(owner: number): ReplicaState {
  return {
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
    agreements: undefined,
    memberStates: undefined,
    resolvedLog: undefined,
    resolvedIsr: undefined,
    resolvedPendingIsr: undefined,
    watchers: undefined,
  };
}
