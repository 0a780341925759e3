// Log retention as Kafka's LogManager runs it: every log.retention.check.interval.ms (the first after
// log.initial.task.delay.ms, 30 s by default) each log this broker keeps deletes its oldest segments, whole, while they are
// past retention.ms (by their largest timestamp), while the log without them is still at least retention.bytes,
// or while they lie wholly below the log start offset (UnifiedLog.deleteOldSegments); never a segment at or above
// the high watermark, and the log start moves to the first segment left. Topics whose cleanup.policy lacks
// `delete` keep everything but what is below the log start. The topic's segment.bytes and segment.ms are handed
// to its logs as they change, so segments roll as the topic says.
//
// In shared storage (AutoMQ) a partition's one log is trimmed by the broker that leads it.

import { effectiveTopicConfig, type MetadataImage } from '../metadata/index.ts';
import type { PartitionLog, Segment } from '../storage/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { PartitionReplica } from './partition-replica.ts';

/** The log configs of one topic, as numbers. */
export interface LogConfig {
  readonly segmentBytes: number;
  readonly segmentMs: number;
  /** -1: no time limit. */
  readonly retentionMs: number;
  /** -1: no size limit. */
  readonly retentionBytes: number;
  /** cleanup.policy includes `delete`. */
  readonly delete: boolean;
}

/**
 * How many of the oldest segments `predicate` lets go (UnifiedLog.deletableSegments): it stops at the first it
 * keeps, at a segment that reaches above the high watermark, and at an empty active segment.
 */
export function deletableSegments(
  log: PartitionLog,
  predicate: (segment: Readonly<Segment>, next: Readonly<Segment> | undefined) => boolean,
): number {
  const segs = log.segments();
  let n = 0;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const next = segs[i + 1];
    const upper = next ? next.baseOffset : log.logEndOffset;
    if (log.highWatermark < upper) break;
    if (!next && seg.batches === 0) break;
    if (!predicate(seg, next)) break;
    n++;
  }
  return n;
}

/** Deletes what retention says may go from `log` at `now`; returns how many segments went. */
export function deleteOldSegments(log: PartitionLog, cfg: LogConfig, now: number): number {
  let deleted = 0;
  const apply = (n: number) => {
    log.deleteOldestSegments(n);
    deleted += n;
  };
  if (cfg.delete) {
    if (cfg.retentionMs >= 0)
      apply(deletableSegments(log, (seg) => now - seg.largestTimestamp > cfg.retentionMs));
    if (cfg.retentionBytes >= 0 && log.sizeBytes >= cfg.retentionBytes) {
      let over = log.sizeBytes - cfg.retentionBytes;
      apply(
        deletableSegments(log, (seg) => {
          if (over - seg.bytes < 0) return false;
          over -= seg.bytes;
          return true;
        }),
      );
    }
  }
  const start = log.logStartOffset;
  apply(deletableSegments(log, (_, next) => next !== undefined && next.baseOffset <= start));
  return deleted;
}

export class LogManager {
  private image: MetadataImage | undefined;
  private readonly configs = new Map<string, LogConfig>();

  constructor(
    private readonly core: BrokerCore,
    private readonly replicas: () => Iterable<PartitionReplica>,
    /** A partition's log start moved: fetch sessions and parked fetches look at it again. */
    private readonly changed: (replica: PartitionReplica) => void,
  ) {}

  /** The topic's log configs in the broker's current image (read once per image). */
  configOf(topic: string): LogConfig {
    const image = this.core.image;
    if (image !== this.image) {
      this.image = image;
      this.configs.clear();
    }
    let cfg = this.configs.get(topic);
    if (!cfg) {
      const get = (name: string) => effectiveTopicConfig(image, topic, name, this.core.staticConfigs) ?? '';
      cfg = {
        segmentBytes: Number(get('segment.bytes')),
        segmentMs: Number(get('segment.ms')),
        retentionMs: Number(get('retention.ms')),
        retentionBytes: Number(get('retention.bytes')),
        delete: get('cleanup.policy').split(',').includes('delete'),
      };
      this.configs.set(topic, cfg);
    }
    return cfg;
  }

  /** Gives `log` its topic's segment.bytes and segment.ms. */
  configure(topic: string, log: PartitionLog): void {
    const cfg = this.configOf(topic);
    log.segmentBytes = cfg.segmentBytes;
    log.segmentMs = cfg.segmentMs;
  }

  /** Topic configs changed: every hosted log rolls by its topic's new values from now on. */
  reconfigure(): void {
    for (const r of this.replicas()) this.configure(r.topic, r.log);
  }

  /** One retention pass over the logs this broker keeps (LogManager.cleanupLogs). */
  cleanupLogs(): void {
    const core = this.core;
    const now = core.sim.now;
    for (const r of this.replicas()) {
      if (core.storageMode === 'shared' && r.role !== 'leader') continue;
      const deleted = deleteOldSegments(r.log, this.configOf(r.topic), now);
      if (deleted === 0) continue;
      core.emit('broker.log-retention', {
        topic: r.topic,
        partition: r.partition,
        segments: deleted,
        logStartOffset: r.log.logStartOffset,
        sizeBytes: r.log.sizeBytes,
      });
      this.changed(r);
    }
  }
}
