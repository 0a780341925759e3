// Reading a fetch's partitions from the leader's logs (Kafka's ReplicaManager.readFromLog): the checks a
// leader makes per partition (known topic, leadership, leader epoch per KIP-320, diverging epoch for a
// follower, offset in range), a follower's read recording its fetch position, and a consumer's reads bounded
// by the high watermark.

import type { FetchPartitionResponse, FetchRequest, FetchResponse } from '../protocol/index.ts';
import { Errors } from '../protocol/index.ts';
import type { RecordBatch } from '../storage/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { ReplicaManager } from './replica-manager.ts';

const NO_BATCHES: readonly RecordBatch[] = Object.freeze([]);

/** A fetch answer for one partition without data (an error, or a follower's diverging epoch). */
function errorAnswer(
  topic: string,
  partition: number,
  errorCode: number,
  highWatermark: number,
  logStartOffset: number,
): FetchPartitionResponse {
  return { topic, partition, errorCode, highWatermark, logStartOffset, batches: NO_BATCHES };
}

export function batchBytes(batches: readonly RecordBatch[]): number {
  let bytes = 0;
  for (let i = 0; i < batches.length; i++) bytes += batches[i]!.bytes;
  return bytes;
}

export class LogReader {
  constructor(
    private readonly core: BrokerCore,
    private readonly replicaManager: ReplicaManager,
  ) {}

  /**
   * The answer to a fetch if it can be given now (always when `final`), else undefined. A consumer's fetch is
   * first checked without reading (Kafka's DelayedFetch.tryComplete: any error, or fetch.min.bytes readable)
   * and read once when it can complete (readFromLog). A follower's is read at every try, since reading is what
   * records its fetch position.
   */
  tryFetch(req: FetchRequest, final: boolean): FetchResponse | undefined {
    if (!final && req.replicaId < 0 && !this.consumerFetchReady(req)) return undefined;
    const parts = req.partitions;
    const out = new Array<FetchPartitionResponse>(parts.length);
    let bytes = 0;
    let hasError = false;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      const pr = this.readPartition(
        req.replicaId,
        p.topic,
        p.partition,
        p.fetchOffset,
        p.lastFetchedEpoch,
        p.currentLeaderEpoch,
        p.partitionMaxBytes,
      );
      if (pr.errorCode !== 0 || pr.divergingEpoch) hasError = true;
      bytes += batchBytes(pr.batches);
      out[i] = pr;
    }
    if (!final && !hasError && bytes < req.minBytes) return undefined;
    return { partitions: out };
  }

  /** Whether a consumer's fetch would answer now: the decision fetchPartition's reads make, without reading. */
  private consumerFetchReady(req: FetchRequest): boolean {
    let bytes = 0;
    const parts = req.partitions;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      bytes += this.consumerReadable(
        p.topic,
        p.partition,
        p.fetchOffset,
        p.currentLeaderEpoch,
        p.partitionMaxBytes,
      );
      if (bytes >= req.minBytes) return true;
    }
    return bytes >= req.minBytes;
  }

  /**
   * What a consumer's read of one partition would return now, in bytes, without reading (DelayedFetch.tryComplete's
   * checks); Infinity when it would answer an error (which completes the fetch).
   */
  consumerReadable(
    topic: string,
    partition: number,
    fetchOffset: number,
    currentLeaderEpoch: number | undefined,
    maxBytes: number,
  ): number {
    const t = this.core.image.topics[topic];
    if (!t) return Number.POSITIVE_INFINITY;
    const r = this.replicaManager.hostedReplica(t.topicId, partition);
    if (!r || r.role !== 'leader') return Number.POSITIVE_INFINITY;
    if (currentLeaderEpoch !== undefined && currentLeaderEpoch >= 0 && currentLeaderEpoch !== r.leaderEpoch)
      return Number.POSITIVE_INFINITY;
    const log = r.log;
    if (fetchOffset > log.logEndOffset || fetchOffset < log.logStartOffset) return Number.POSITIVE_INFINITY;
    return log.readableBytes(fetchOffset, log.highWatermark, maxBytes);
  }

  /** One partition of a fetch by `replicaId` (a follower's broker id, or -1 for a consumer). */
  readPartition(
    replicaId: number,
    topic: string,
    partition: number,
    fetchOffset: number,
    lastFetchedEpoch: number | undefined,
    currentLeaderEpoch: number | undefined,
    maxBytes: number,
  ): FetchPartitionResponse {
    if (!this.core.image.topics[topic])
      return errorAnswer(topic, partition, Errors.UNKNOWN_TOPIC_OR_PARTITION.code, -1, -1);
    const r = this.replicaManager.findReplica(topic, partition);
    if (!r || r.role !== 'leader') {
      const res = errorAnswer(topic, partition, Errors.NOT_LEADER_OR_FOLLOWER.code, -1, -1);
      const hint = this.replicaManager.leaderHint(topic, partition);
      if (hint) res.currentLeader = hint;
      return res;
    }
    if (currentLeaderEpoch !== undefined && currentLeaderEpoch >= 0) {
      if (currentLeaderEpoch < r.leaderEpoch)
        return errorAnswer(topic, partition, Errors.FENCED_LEADER_EPOCH.code, -1, -1);
      if (currentLeaderEpoch > r.leaderEpoch)
        return errorAnswer(topic, partition, Errors.UNKNOWN_LEADER_EPOCH.code, -1, -1);
    }
    const log = r.log;
    const isFollower = replicaId >= 0;
    if (isFollower && lastFetchedEpoch !== undefined && lastFetchedEpoch >= 0) {
      const end = log.endOffsetForEpoch(lastFetchedEpoch);
      if (end.epoch !== lastFetchedEpoch || end.endOffset < fetchOffset) {
        const res = errorAnswer(topic, partition, 0, log.highWatermark, log.logStartOffset);
        res.divergingEpoch = end;
        return res;
      }
    }
    if (fetchOffset > log.logEndOffset || fetchOffset < log.logStartOffset) {
      return errorAnswer(
        topic,
        partition,
        Errors.OFFSET_OUT_OF_RANGE.code,
        log.highWatermark,
        log.logStartOffset,
      );
    }
    if (isFollower) r.onFollowerFetch(replicaId, fetchOffset);
    const limit = isFollower ? log.logEndOffset : log.highWatermark;
    const batches = log.read(fetchOffset, limit, maxBytes);
    r.bytesOut += batchBytes(batches);
    return {
      topic,
      partition,
      errorCode: 0,
      highWatermark: log.highWatermark,
      logStartOffset: log.logStartOffset,
      batches,
    };
  }
}
