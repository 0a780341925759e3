import type { LogEntry, MetadataRecord, PartitionRecord } from '../../../models/metadata/index.ts';

/** Entries at consecutive offsets from `from`. */
export function entries(from: number, ...records: MetadataRecord[]): LogEntry[] {
  return records.map((record, i) => ({ offset: from + i, record }));
}

export function register(brokerId: number, fenced = true): MetadataRecord {
  return {
    type: 'RegisterBrokerRecord',
    brokerId,
    incarnationId: `inc-${brokerId}`,
    rack: null,
    host: `broker-${brokerId}`,
    port: 9092,
    fenced,
  };
}

export function topic(name: string, topicId: string): MetadataRecord {
  return { type: 'TopicRecord', name, topicId };
}

export function partitionRecord(
  topicId: string,
  partitionId: number,
  replicas: number[],
  extra: Partial<PartitionRecord> = {},
): MetadataRecord {
  return {
    type: 'PartitionRecord',
    topicId,
    partitionId,
    replicas,
    isr: replicas,
    removingReplicas: [],
    addingReplicas: [],
    leader: replicas[0] ?? -1,
    leaderEpoch: 0,
    partitionEpoch: 0,
    ...extra,
  };
}

/** Every nested object and array is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(isDeepFrozen);
}
