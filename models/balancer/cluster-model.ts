/**
 * The balancer's cluster model on the active controller: AutoMQ's `ClusterModel` / `RecordClusterModel` fed by
 * the `LoadRetriever` (AutoMQ/automq core/src/main/java/kafka/autobalancer/model/, services/).
 *
 * - Topology comes from the controller's committed metadata: each partition maps to its leader. When the
 *   leader changes (including to -1 during a shared-storage move) the partition's samples are dropped, so a
 *   partition that just moved has no metrics until its new broker reports it.
 * - Metrics keep only the latest value (SingleValueSamples): no windowing. A report counts only for the
 *   partitions its broker leads in the model.
 * - A snapshot drops fenced, shutting-down and excluded brokers; a broker is out of date (ineligible) when its
 *   last report, or one of its partitions' samples, is older than `metrics.delay.ms`, or missing; it is slow
 *   when its latest pending append or fetch latency is above 10 s.
 */

import type { ClusterStats } from '../controller/index.ts';
import { emptyImage, type MetadataImage } from '../metadata/index.ts';
import type { AutoBalancerMetricsRequest } from '../protocol/index.ts';
import { SLOW_BROKER_LATENCY_MS } from './config.ts';
import type { BrokerStatus } from './decisions.ts';
import {
  ClusterSnapshot,
  PARTITION_CRITICAL,
  PARTITION_MOVABLE,
  PARTITION_TRUSTED,
  partitionColumns,
  type SnapshotBrokerInput,
} from './snapshot.ts';

export interface ModelBroker {
  readonly brokerId: number;
  rack: string | null;
  fenced: boolean;
  inControlledShutdown: boolean;
}

export interface BrokerReport {
  readonly time: number;
  readonly pendingAppendLatencyMs: number;
  readonly pendingFetchLatencyMs: number;
}

export interface ModelPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  leader: number;
  replicas: readonly number[];
  bytesIn: number;
  bytesOut: number;
  /** When the leader's report carried it; undefined: no metrics since the leader changed. */
  sampleTime: number | undefined;
}

export interface SnapshotOptions {
  now: number;
  metricsDelayMs: number;
  excludedBrokers: ReadonlySet<number>;
  excludedTopics: ReadonlySet<string>;
}

/** Kafka's internal topics (Topic.isInternal) and AutoMQ's metrics topic: moved last (GoalUtils.isCriticalTopic). */
const CRITICAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__auto_balancer_metrics']);

export class ClusterModel {
  readonly brokers = new Map<number, ModelBroker>();
  readonly reports = new Map<number, BrokerReport>();
  /** By `topicId:partition`. */
  readonly partitions = new Map<string, ModelPartition>();
  private image: MetadataImage = emptyImage();

  /** Follows the metadata: broker registrations and each partition's leader. */
  sync(image: MetadataImage): void {
    const before = this.image;
    if (before === image) return;
    this.image = image;
    if (before.brokers !== image.brokers) {
      for (const id of [...this.brokers.keys()])
        if (!Object.hasOwn(image.brokers, id)) this.brokers.delete(id);
      for (const reg of Object.values(image.brokers)) {
        const b = this.brokers.get(reg.brokerId);
        if (b) {
          b.rack = reg.rack;
          b.fenced = reg.fenced;
          b.inControlledShutdown = reg.inControlledShutdown;
        } else {
          this.brokers.set(reg.brokerId, {
            brokerId: reg.brokerId,
            rack: reg.rack,
            fenced: reg.fenced,
            inControlledShutdown: reg.inControlledShutdown,
          });
        }
      }
    }
    if (before.topics === image.topics) return;
    for (const [name, old] of Object.entries(before.topics)) {
      const now = image.topics[name];
      if (now && now.topicId === old.topicId) continue;
      for (let p = 0; p < old.partitions.length; p++) this.partitions.delete(`${old.topicId}:${p}`);
    }
    for (const [name, topic] of Object.entries(image.topics)) {
      if (before.topics[name] === topic) continue;
      for (const reg of topic.partitions) {
        const key = `${topic.topicId}:${reg.partition}`;
        const entry = this.partitions.get(key);
        if (!entry) {
          this.partitions.set(key, {
            topic: name,
            topicId: topic.topicId,
            partition: reg.partition,
            leader: reg.leader,
            replicas: reg.replicas,
            bytesIn: 0,
            bytesOut: 0,
            sampleTime: undefined,
          });
          continue;
        }
        entry.replicas = reg.replicas;
        if (entry.leader !== reg.leader) {
          entry.leader = reg.leader;
          entry.bytesIn = 0;
          entry.bytesOut = 0;
          entry.sampleTime = undefined;
        }
      }
    }
  }

  /** Takes a broker's report: its latencies, and the rates of the partitions it leads in the model. */
  update(report: AutoBalancerMetricsRequest): void {
    this.reports.set(report.brokerId, {
      time: report.time,
      pendingAppendLatencyMs: report.pendingAppendLatencyMs,
      pendingFetchLatencyMs: report.pendingFetchLatencyMs,
    });
    for (const m of report.partitions) {
      const topic = this.image.topics[m.topic];
      if (!topic) continue;
      const entry = this.partitions.get(`${topic.topicId}:${m.partition}`);
      if (!entry || entry.leader !== report.brokerId) continue;
      entry.bytesIn = m.bytesIn;
      entry.bytesOut = m.bytesOut;
      entry.sampleTime = report.time;
    }
  }

  private outOfDate(brokerId: number, now: number, delay: number): string | undefined {
    const r = this.reports.get(brokerId);
    if (!r) return 'no metrics reported yet';
    const age = now - r.time;
    if (age > delay) return `metrics are ${Math.round(age)} ms old (limit ${delay} ms)`;
    return undefined;
  }

  private activeBrokers(excluded: ReadonlySet<number>): ModelBroker[] {
    return [...this.brokers.values()]
      .filter((b) => !b.fenced && !b.inControlledShutdown && !excluded.has(b.brokerId))
      .sort((a, b) => a.brokerId - b.brokerId);
  }

  /** The snapshot goals optimize over, taken now. */
  snapshot(options: SnapshotOptions): ClusterSnapshot {
    const { now, metricsDelayMs: delay } = options;
    const brokers: SnapshotBrokerInput[] = this.activeBrokers(options.excludedBrokers).map((b) => {
      const r = this.reports.get(b.brokerId);
      const append = r?.pendingAppendLatencyMs ?? 0;
      const fetch = r?.pendingFetchLatencyMs ?? 0;
      return {
        brokerId: b.brokerId,
        rack: b.rack,
        outOfDate: this.outOfDate(b.brokerId, now, delay),
        slow: Math.max(append, fetch) > SLOW_BROKER_LATENCY_MS,
        pendingAppendLatencyMs: append,
        pendingFetchLatencyMs: fetch,
      };
    });
    const cols = partitionColumns(this.partitions.size);
    const excludedTopics = options.excludedTopics;
    for (const e of this.partitions.values()) {
      if (e.leader < 0) continue;
      const i = cols.count++;
      const trusted = e.sampleTime !== undefined && now - e.sampleTime <= delay;
      cols.topics[i] = e.topic;
      cols.ids[i] = e.partition;
      cols.leaders[i] = e.leader;
      cols.bytesIn[i] = e.bytesIn;
      cols.bytesOut[i] = e.bytesOut;
      cols.flags[i] =
        (trusted ? PARTITION_TRUSTED : 0) |
        (excludedTopics.has(e.topic) ? 0 : PARTITION_MOVABLE) |
        (CRITICAL_TOPICS.has(e.topic) ? PARTITION_CRITICAL : 0);
      if (e.replicas.length > 1)
        cols.followers.set(
          i,
          e.replicas.filter((r) => r !== e.leader),
        );
    }
    return new ClusterSnapshot(now, brokers, cols);
  }

  /** Every registered broker's latest loads, for reports and the API. */
  brokerStatus(now: number, delay: number): BrokerStatus[] {
    const sums = new Map<number, { bytesIn: number; bytesOut: number; partitions: number }>();
    for (const e of this.partitions.values()) {
      if (e.leader < 0) continue;
      let s = sums.get(e.leader);
      if (!s) sums.set(e.leader, (s = { bytesIn: 0, bytesOut: 0, partitions: 0 }));
      s.bytesIn += e.bytesIn;
      s.bytesOut += e.bytesOut;
      s.partitions++;
    }
    return [...this.brokers.values()]
      .sort((a, b) => a.brokerId - b.brokerId)
      .map((b) => {
        const s = sums.get(b.brokerId) ?? { bytesIn: 0, bytesOut: 0, partitions: 0 };
        const r = this.reports.get(b.brokerId);
        const outOfDate = b.fenced ? 'fenced' : this.outOfDate(b.brokerId, now, delay);
        return {
          brokerId: b.brokerId,
          rack: b.rack,
          ...s,
          ...(outOfDate ? { outOfDate } : {}),
          slow:
            Math.max(r?.pendingAppendLatencyMs ?? 0, r?.pendingFetchLatencyMs ?? 0) > SLOW_BROKER_LATENCY_MS,
        };
      });
  }

  /**
   * AutoMQ's ClusterStats for the failover path: partition load = in + out; broker load = the sum over its
   * partitions, for brokers whose metrics are fresh.
   */
  clusterStats(now: number, delay: number, excludedBrokers: ReadonlySet<number>): ClusterStats {
    const partitionLoads = new Map<string, number>();
    const brokerLoads = new Map<number, number>();
    for (const b of this.brokers.values()) {
      if (!b.fenced && this.outOfDate(b.brokerId, now, delay) === undefined) brokerLoads.set(b.brokerId, 0);
    }
    for (const e of this.partitions.values()) {
      if (e.sampleTime === undefined || now - e.sampleTime > delay) continue;
      const load = e.bytesIn + e.bytesOut;
      partitionLoads.set(`${e.topic}\u0000${e.partition}`, load);
      const sum = brokerLoads.get(e.leader);
      if (sum !== undefined) brokerLoads.set(e.leader, sum + load);
    }
    const excluded = new Set(excludedBrokers);
    return {
      brokerLoads,
      excludedBrokers: excluded,
      partitionLoad: (topic, partition) => partitionLoads.get(`${topic}\u0000${partition}`),
    };
  }
}
