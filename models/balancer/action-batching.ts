/**
 * How the detector turns the goals' actions into batches (AutoMQ's `checkAndMergeActions` and
 * `checkAndGroupActions` in `detector/AnomalyDetectorImpl.java`):
 *
 * - chains of moves of one partition (A→B then B→C) become one move A→C, and moves back to where a partition
 *   started are dropped (issue #867: a partition was reassigned several times in one run);
 * - batches fill greedily in order; a new batch starts when adding the move would exceed, within the batch,
 *   ceil(0.5 × partitions) moves of its topic, `execution.concurrency` moves from or to one broker, or 10
 *   distinct source brokers sending to its destination.
 *
 * AutoMQ clears the per-destination source sets only for the destination that started the new batch; kafkasim
 * clears them all, as the comment on the limit intends ("in one batch").
 */
import type { PartitionMove } from './action.ts';
import { MAX_PARTITION_REASSIGNMENT_RATIO, MAX_REASSIGNMENT_SOURCE_NODE_COUNT } from './config.ts';

/** Merges chains per partition and drops no-op moves; throws when a chain does not connect. */
export function mergeMoves(moves: readonly PartitionMove[]): PartitionMove[] {
  const merged = new Map<
    string,
    { topic: string; partition: number; srcBrokerId: number; destBrokerId: number }
  >();
  for (const m of moves) {
    const key = `${m.topic}\u0000${m.partition}`;
    const prev = merged.get(key);
    if (!prev) {
      merged.set(key, { ...m });
      continue;
    }
    if (prev.destBrokerId !== m.srcBrokerId) {
      throw new Error(
        `Unmatched action chains for ${m.topic}-${m.partition}: ${prev.srcBrokerId}->${prev.destBrokerId} then ${m.srcBrokerId}->${m.destBrokerId}`,
      );
    }
    prev.destBrokerId = m.destBrokerId;
  }
  return [...merged.values()].filter((m) => m.srcBrokerId !== m.destBrokerId);
}

export interface BatchLimits {
  /** Moves per broker (as source or destination) per batch: `autobalancer.controller.execution.concurrency`. */
  maxExecutionConcurrency: number;
  /** Fraction of a topic's partitions per batch (0.5). */
  maxPartitionReassignmentRatio?: number;
  /** Distinct source brokers per destination per batch (10). */
  maxSourcesPerDestination?: number;
}

/** Groups merged moves into batches; `topicPartitions` is each topic's partition count in the snapshot. */
export function groupMoves(
  moves: readonly PartitionMove[],
  topicPartitions: ReadonlyMap<string, number>,
  limits: BatchLimits,
): PartitionMove[][] {
  const ratio = limits.maxPartitionReassignmentRatio ?? MAX_PARTITION_REASSIGNMENT_RATIO;
  const maxSources = limits.maxSourcesPerDestination ?? MAX_REASSIGNMENT_SOURCE_NODE_COUNT;
  // A limit of 0 would allow nothing; one move per batch is the closest that still makes progress.
  const maxConcurrency = Math.max(1, limits.maxExecutionConcurrency);
  const batches: PartitionMove[][] = [];
  let batch: PartitionMove[] = [];
  let perTopic = new Map<string, number>();
  let perBroker = new Map<number, number>();
  let sources = new Map<number, Set<number>>();
  for (const m of moves) {
    const topicLimit = Math.max(1, Math.ceil((topicPartitions.get(m.topic) ?? 0) * ratio));
    const full =
      (perTopic.get(m.topic) ?? 0) >= topicLimit ||
      (perBroker.get(m.srcBrokerId) ?? 0) >= maxConcurrency ||
      (perBroker.get(m.destBrokerId) ?? 0) >= maxConcurrency ||
      (sources.get(m.destBrokerId)?.size ?? 0) >= maxSources;
    if (full && batch.length > 0) {
      batches.push(batch);
      batch = [];
      perTopic = new Map();
      perBroker = new Map();
      sources = new Map();
    }
    batch.push(m);
    perTopic.set(m.topic, (perTopic.get(m.topic) ?? 0) + 1);
    perBroker.set(m.srcBrokerId, (perBroker.get(m.srcBrokerId) ?? 0) + 1);
    perBroker.set(m.destBrokerId, (perBroker.get(m.destBrokerId) ?? 0) + 1);
    let s = sources.get(m.destBrokerId);
    if (!s) sources.set(m.destBrokerId, (s = new Set()));
    s.add(m.srcBrokerId);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
