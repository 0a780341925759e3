// The consumer a sink worker needs, and nothing more: a librdkafka-flavoured consumer in a group, seen through
// the calls bend-ingest-kafka makes (Poll, CommitMessage, rebalance events). The worker is written against this
// interface so that it runs on any implementation: the group protocol of models/group, or a test's stand-in
// (test/models/lake/local-group.ts: assign-mode consumers and an in-process coordinator).
import type { TopicPartition } from '../group/assignors/index.ts';
import type { RecordBatch } from '../storage/index.ts';

/** `count` consecutive records of one fetched batch, starting at the batch's record index `first`. */
export interface MessageSlice {
  readonly topic: string;
  readonly partition: number;
  readonly batch: RecordBatch;
  readonly first: number;
  readonly count: number;
}

/** Offset of the slice's record `i` (0-based within the slice). */
export const sliceOffset = (s: MessageSlice, i: number): number => s.batch.baseOffset + s.first + i;

/** A committed position: the next offset to read. */
export interface CommitOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

export type RebalanceEvent =
  | { readonly type: 'assigned'; readonly partitions: readonly TopicPartition[] }
  | {
      readonly type: 'revoked';
      readonly partitions: readonly TopicPartition[];
      /**
       * With a rebalance handler (`manualRevoke`), the member keeps the partitions and does not rejoin until
       * this is called, as librdkafka waits for the application's unassign in its rebalance callback. Without
       * one the partitions are gone already and this does nothing.
       */
      release(): void;
    };

export interface SinkConsumer {
  /** The client id (the node id on the simulated network). */
  readonly clientId: string;
  /** Subscribes and joins the group. */
  start(): void;
  /** Leaves the group (Close()). */
  close(): void;
  /** The process died: no LeaveGroup; the coordinator notices after session.timeout.ms. */
  crash(): void;
  /**
   * Takes up to `max` records from the fetch queue, oldest first, in zero virtual time (a Poll that finds
   * messages returns at once). Returns [] when nothing is queued.
   */
  poll(max: number): MessageSlice[];
  /** Records waiting in the fetch queue. */
  readonly queued: number;
  /** Called (once per wake-up) when records arrive in an empty fetch queue. */
  onReadable(listener: () => void): void;
  /** Commits offsets for the group (CommitMessage: synchronous, one round trip). `done(error name)`. */
  commit(offsets: readonly CommitOffset[], done: (error: string | undefined) => void): void;
  /**
   * Rebalance events. `manualRevoke` is librdkafka's rebalance_cb: revoked partitions are kept until the
   * event's release(); without it librdkafka unassigns at once and drops what was fetched and not polled.
   */
  onRebalance(listener: (event: RebalanceEvent) => void, options: { manualRevoke: boolean }): void;
  /** The current assignment. */
  assignment(): TopicPartition[];
}
