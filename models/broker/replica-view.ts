// The read-only face of a broker's data plane: what the data-plane invariants (and any other checker) may read.
// However the broker is split inside, it keeps answering these two questions; nothing here changes state.
import type { LogWatcher, RecordBatch } from '../storage/index.ts';

/** A partition log as a checker reads it. */
export interface LogView {
  /** Who hears of the log's changes (an append, a truncation, a new high watermark); a checker sets it. */
  watcher: LogWatcher | undefined;
  /** What the watcher keeps for the log (the checker's own, read only by it). */
  watcherState: unknown;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly highWatermark: number;
  /** The log's batches, oldest first. */
  allBatches(): readonly RecordBatch[];
}

/** A partition replica as its broker sees it now. */
export interface ReplicaView {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly role: 'leader' | 'follower' | 'opening' | 'offline';
  readonly leaderId: number;
  readonly leaderEpoch: number;
  /** The ISR as this broker knows it (a leader's own view, updated by its AlterPartition answers). */
  readonly isr: readonly number[];
  /** An ISR change the leader has proposed and not yet had answered (KIP-497), if any. */
  readonly pendingIsr: readonly number[] | undefined;
  readonly replicas: readonly number[];
  readonly log: LogView;
}

/** Hears of every change to what a checker reads of a hosted replica, as the broker makes it. */
export interface ReplicaWatcher {
  /**
   * `replica` on `broker` was created, or its role, leader, leader epoch, replica set, ISR or pending ISR changed, or
   * the broker stopped hosting it (its role is then 'offline').
   */
  replicaChanged(broker: BrokerView, replica: ReplicaView): void;
}

export interface BrokerView {
  readonly brokerId: number;
  /** Who hears of its replicas' changes (one watcher; a checker sets it). */
  replicaWatcher: ReplicaWatcher | undefined;
  /** The broker runs (a crashed or stopped broker hosts nothing, but keeps its stored logs). */
  readonly up: boolean;
  /**
   * The offset of the last metadata record the broker applied. Its replicas' roles, epochs, replica sets and ISRs
   * change with it (an AlterPartition answer's ISR is in the metadata the broker applies next); their logs tell
   * their watcher of their own changes.
   */
  readonly metadataOffset: number;
  /** The replicas the running broker hosts now (the same list object until the set changes: read it, keep none). */
  hostedReplicas(): readonly ReplicaView[];
  /**
   * The log this broker stores for a partition, whether or not it runs: its local log on disk (kafka storage) or
   * the partition's log in shared storage; undefined when it stores none.
   */
  storedLog(topicId: string, partition: number): LogView | undefined;
}
