import type { BrokerRegistration, MetadataImage, PartitionRegistration, TopicImage } from './image.ts';

/** A partition named both ways, as Kafka's `TopicIdPartition`. */
export interface TopicIdPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
}

export interface PartitionDescription extends TopicIdPartition {
  readonly registration: PartitionRegistration;
}

export interface BrokerPartitionCounts {
  readonly replicas: number;
  readonly leaders: number;
}

const EMPTY_CONFIG: Readonly<Record<string, string>> = Object.freeze({});

const byNumber = (a: number, b: number): number => a - b;

export function topicByName(image: MetadataImage, name: string): TopicImage | undefined {
  return Object.hasOwn(image.topics, name) ? image.topics[name] : undefined;
}

export function topicById(image: MetadataImage, topicId: string): TopicImage | undefined {
  if (!Object.hasOwn(image.topicNamesById, topicId)) return undefined;
  return image.topics[image.topicNamesById[topicId]!];
}

/** Topic names in Kafka's listing order (lexicographic). */
export function topicNames(image: MetadataImage): string[] {
  return Object.keys(image.topics).sort();
}

export function partition(
  image: MetadataImage,
  topic: string,
  partitionId: number,
): PartitionRegistration | undefined {
  return topicByName(image, topic)?.partitions[partitionId];
}

export function broker(image: MetadataImage, brokerId: number): BrokerRegistration | undefined {
  return Object.hasOwn(image.brokers, brokerId) ? image.brokers[brokerId] : undefined;
}

/** Every registered broker, fenced or not, by id. */
export function registeredBrokerIds(image: MetadataImage): number[] {
  return Object.values(image.brokers)
    .map((b) => b.brokerId)
    .sort(byNumber);
}

/** Registered and unfenced: the brokers clients may be sent to. */
export function liveBrokerIds(image: MetadataImage): number[] {
  return Object.values(image.brokers)
    .filter((b) => !b.fenced)
    .map((b) => b.brokerId)
    .sort(byNumber);
}

/**
 * Unfenced and not in controlled shutdown: the brokers a controller may elect as leader or add to an
 * ISR (Kafka's `ClusterControlManager.isActive`).
 */
export function isActiveBroker(image: MetadataImage, brokerId: number): boolean {
  const b = broker(image, brokerId);
  return b !== undefined && !b.fenced && !b.inControlledShutdown;
}

export function activeBrokerIds(image: MetadataImage): number[] {
  return liveBrokerIds(image).filter((id) => !image.brokers[id]!.inControlledShutdown);
}

/** Every partition, topics by name then partitions by id. */
export function allPartitions(image: MetadataImage): PartitionDescription[] {
  const out: PartitionDescription[] = [];
  for (const name of topicNames(image)) {
    const topic = image.topics[name]!;
    for (const registration of topic.partitions) {
      out.push({ topic: name, topicId: topic.topicId, partition: registration.partition, registration });
    }
  }
  return out;
}

function partitionsWhere(
  image: MetadataImage,
  predicate: (p: PartitionRegistration) => boolean,
): PartitionDescription[] {
  return allPartitions(image).filter((d) => predicate(d.registration));
}

export function partitionsLedBy(image: MetadataImage, brokerId: number): PartitionDescription[] {
  return partitionsWhere(image, (p) => p.leader === brokerId);
}

/** Partitions that have a replica on the broker: what a broker must host. */
export function partitionsWithReplicaOn(image: MetadataImage, brokerId: number): PartitionDescription[] {
  return partitionsWhere(image, (p) => p.replicas.includes(brokerId));
}

/**
 * Replica and leader counts per broker, for every registered broker (zero counts included) and for
 * any unregistered broker that still holds replicas. Keys ascend.
 */
export function partitionCountsByBroker(image: MetadataImage): Map<number, BrokerPartitionCounts> {
  const counts = new Map<number, { replicas: number; leaders: number }>();
  const entry = (id: number) => {
    let c = counts.get(id);
    if (c === undefined) counts.set(id, (c = { replicas: 0, leaders: 0 }));
    return c;
  };
  for (const id of registeredBrokerIds(image)) entry(id);
  for (const topic of Object.values(image.topics)) {
    for (const p of topic.partitions) {
      for (const r of p.replicas) entry(r).replicas += 1;
      if (p.leader >= 0) entry(p.leader).leaders += 1;
    }
  }
  return new Map([...counts.entries()].sort(([a], [b]) => a - b));
}

export function isReassigning(p: PartitionRegistration): boolean {
  return p.addingReplicas.length > 0 || p.removingReplicas.length > 0;
}

/** What `listPartitionReassignments` reports. */
export function reassigningPartitions(image: MetadataImage): PartitionDescription[] {
  return partitionsWhere(image, isReassigning);
}

/** `kafka-topics --describe --under-replicated-partitions`: the ISR is smaller than the replica set. */
export function underReplicatedPartitions(image: MetadataImage): PartitionDescription[] {
  return partitionsWhere(image, (p) => p.isr.length < p.replicas.length);
}

/** `kafka-topics --describe --unavailable-partitions`: no leader, or a leader that is not live. */
export function unavailablePartitions(image: MetadataImage): PartitionDescription[] {
  const live = new Set(liveBrokerIds(image));
  return partitionsWhere(image, (p) => p.leader < 0 || !live.has(p.leader));
}

/** The topic's dynamic config overrides (empty when none). */
export function topicConfig(image: MetadataImage, topic: string): Readonly<Record<string, string>> {
  return Object.hasOwn(image.configs.topic, topic) ? image.configs.topic[topic]! : EMPTY_CONFIG;
}

/**
 * A broker's dynamic configs: its own overrides over the cluster-wide default (resource ''), the
 * precedence Kafka documents for dynamic broker configs.
 */
export function brokerConfig(image: MetadataImage, brokerId: number): Readonly<Record<string, string>> {
  const clusterDefault = image.configs.broker[''];
  const own = Object.hasOwn(image.configs.broker, String(brokerId))
    ? image.configs.broker[String(brokerId)]
    : undefined;
  if (own === undefined) return clusterDefault ?? EMPTY_CONFIG;
  if (clusterDefault === undefined) return own;
  return { ...clusterDefault, ...own };
}
