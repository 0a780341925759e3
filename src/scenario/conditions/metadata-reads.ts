// What several conditions and metrics read from the metadata image and the partition logs.
import type { MetadataImage, PartitionRegistration } from '../../../models/metadata/index.ts';
import type { Cluster } from '../../cluster/index.ts';

/** Every partition of `topic` (or of every topic, by name), in order. */
export function partitionsOf(
  image: MetadataImage,
  topic: string | undefined,
): { topic: string; p: PartitionRegistration }[] {
  const out: { topic: string; p: PartitionRegistration }[] = [];
  for (const name of Object.keys(image.topics).sort()) {
    if (topic !== undefined && name !== topic) continue;
    for (const p of image.topics[name]!.partitions) out.push({ topic: name, p });
  }
  return out;
}

/** The listed partitions of `topic` (default all); none when the topic does not exist. */
export function selected(
  image: MetadataImage,
  topic: string,
  partitions: readonly number[] | undefined,
): PartitionRegistration[] {
  const t = image.topics[topic];
  if (!t) return [];
  return partitions
    ? partitions.map((i) => t.partitions[i]).filter((p) => p !== undefined)
    : [...t.partitions];
}

/** How many partitions (of `topic`, or all) count each broker, by `count` (its leader, its replicas). */
export function perBroker(
  image: MetadataImage,
  brokerIds: readonly number[],
  topic: string | undefined,
  count: (p: PartitionRegistration) => readonly number[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of brokerIds) counts[id] = 0;
  for (const { p } of partitionsOf(image, topic)) {
    for (const b of count(p)) if (b >= 0) counts[b] = (counts[b] ?? 0) + 1;
  }
  return counts;
}

export const leadersOf = (p: PartitionRegistration): readonly number[] => [p.leader];
export const replicasOf = (p: PartitionRegistration): readonly number[] => p.replicas;

/** Max - min over the brokers' counts. */
export function skew(counts: Record<string, number>): number {
  const v = Object.values(counts);
  return v.length === 0 ? 0 : Math.max(...v) - Math.min(...v);
}

/** The log that holds a partition's records: its leader's (kafka storage) or the shared one. */
export function partitionLog(cluster: Cluster, topic: string, partition: number) {
  const t = cluster.image.topics[topic];
  if (!t) return undefined;
  const reg = t.partitions[partition];
  if (!reg) return undefined;
  if (cluster.shared) return cluster.shared.get(t.topicId, partition);
  if (reg.leader < 0) return undefined;
  return cluster.brokers.get(reg.leader)?.replicas.get(`${t.topicId}:${partition}`)?.log;
}

/** The sum of the listed partitions' (default all) high watermark or log end offset. */
export function offsetSum(
  cluster: Cluster,
  topic: string,
  partitions: readonly number[] | undefined,
  field: 'highWatermark' | 'logEndOffset',
): number {
  const t = cluster.image.topics[topic];
  if (!t) return 0;
  const indices = partitions ?? t.partitions.map((_, i) => i);
  let sum = 0;
  for (const i of indices) sum += partitionLog(cluster, topic, i)?.[field] ?? 0;
  return sum;
}
