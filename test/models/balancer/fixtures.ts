// Small snapshots built by hand for goal tests: brokers by id, partitions with bytes/s loads.
import {
  ClusterSnapshot,
  DEFAULT_AUTO_BALANCER_CONFIG,
  type SnapshotBrokerInput,
  type SnapshotPartitionInput,
} from '../../../models/balancer/index.ts';

export const MiB = 1024 * 1024;

export interface BrokerSpec {
  id: number;
  rack?: string | null;
  outOfDate?: string;
  slow?: boolean;
}

export interface PartitionSpec {
  topic?: string;
  partition?: number;
  leader: number;
  bytesIn: number;
  bytesOut?: number;
  trusted?: boolean;
  movable?: boolean;
  critical?: boolean;
}

export function snapshotOf(brokers: (number | BrokerSpec)[], partitions: PartitionSpec[]): ClusterSnapshot {
  const b: SnapshotBrokerInput[] = brokers.map((x) => {
    const spec = typeof x === 'number' ? { id: x } : x;
    return {
      brokerId: spec.id,
      rack: spec.rack ?? null,
      outOfDate: spec.outOfDate,
      slow: spec.slow ?? false,
      pendingAppendLatencyMs: spec.slow ? 20_000 : 1,
      pendingFetchLatencyMs: 1,
    };
  });
  const counters = new Map<string, number>();
  const p: SnapshotPartitionInput[] = partitions.map((x) => {
    const topic = x.topic ?? 't';
    const partition = x.partition ?? counters.get(topic) ?? 0;
    counters.set(topic, partition + 1);
    return {
      topic,
      partition,
      leader: x.leader,
      bytesIn: x.bytesIn,
      bytesOut: x.bytesOut ?? 0,
      trusted: x.trusted ?? true,
      movable: x.movable ?? true,
      critical: x.critical ?? false,
    };
  });
  return ClusterSnapshot.of(0, b, p);
}

/** `n` partitions of `load` bytes/s in (and `out` bytes/s out) on `leader`. */
export function equalPartitions(n: number, leader: number, load: number, out = 0): PartitionSpec[] {
  return Array.from({ length: n }, () => ({ leader, bytesIn: load, bytesOut: out }));
}

export const config = DEFAULT_AUTO_BALANCER_CONFIG;

/** Partitions per broker id. */
export function countsByBroker(s: ClusterSnapshot): Record<number, number> {
  const out: Record<number, number> = {};
  for (const b of s.brokers) out[b.brokerId] = b.replicas.length;
  return out;
}
