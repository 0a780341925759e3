// What the coordinator writes to __consumer_offsets and how a new coordinator reads it back. Kafka writes two
// record kinds, keyed so that compaction keeps the latest: OffsetCommit (key: group, topic, partition; value:
// the offset) and GroupMetadata (key: group; value: generation, protocol, leader and every member with its
// subscription and assignment). A coordinator that takes over a partition replays them: committed offsets
// survive, and a group that was Stable comes back Stable with the same members, generation and assignment,
// so its members keep heartbeating without a rebalance (GroupMetadataManager.loadGroup / onLoaded).
// kafkasim writes them as JSON strings in the batch's record content instead of Kafka's binary schemas.
import type { JoinGroupProtocol } from '../protocol/index.ts';
import type { RecordBatch, RecordData } from '../storage/index.ts';
import type { TopicPartition } from './assignors/index.ts';
import { consumerGroupKey, replayConsumerGroupRecord } from './consumer-group-records.ts';

export interface StoredMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocols: JoinGroupProtocol[];
  assignment: TopicPartition[];
}

export interface GroupMetadataValue {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  members: StoredMember[];
}

/** What a group's GroupMetadata value is made of (Kafka's GroupCoordinatorRecordHelpers.newGroupMetadataRecord). */
export interface GroupMetadataSource {
  readonly protocolType: string | null;
  readonly generationId: number;
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  readonly members: ReadonlyMap<string, StoredMember>;
}

/** The GroupMetadata record value of a group: generation, protocol, leader and every member as stored. */
export function groupMetadataValue(group: GroupMetadataSource): GroupMetadataValue {
  return {
    protocolType: group.protocolType ?? '',
    generation: group.generationId,
    protocol: group.protocolName,
    leader: group.leaderId,
    members: [...group.members.values()].map(
      (m): StoredMember => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        protocols: m.protocols,
        assignment: m.assignment,
      }),
    ),
  };
}

export interface LoadedGroup {
  metadata: GroupMetadataValue | undefined;
  /** `topic\u0000partition` → committed offset. */
  offsets: Map<string, number>;
  /** A consumer-protocol group's records that survive (record key → value; consumer-group-records.ts). */
  consumerRecords?: Map<string, string>;
}

const OFFSET_KEY = 'offset';
const GROUP_KEY = 'group';

export const offsetKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export function offsetCommitRecord(
  groupId: string,
  topic: string,
  partition: number,
  offset: number,
): RecordData {
  return { key: JSON.stringify([OFFSET_KEY, groupId, topic, partition]), value: String(offset) };
}

/** The group's GroupMetadata record; null is its tombstone (the group is gone, or now a consumer group). */
export function groupMetadataRecord(groupId: string, value: GroupMetadataValue | null): RecordData {
  return { key: JSON.stringify([GROUP_KEY, groupId]), value: value === null ? null : JSON.stringify(value) };
}

/** Bytes a record takes on the log (key + value + Kafka's per-record framing, about 8 bytes). */
export function recordBytes(r: RecordData): number {
  return (r.key?.length ?? 0) + (r.value?.length ?? 0) + 8;
}

/** Replays a __consumer_offsets partition, oldest first: the latest value of every key wins. */
export function replayOffsetsLog(batches: readonly RecordBatch[]): Map<string, LoadedGroup> {
  const groups = new Map<string, LoadedGroup>();
  const get = (id: string) => {
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { metadata: undefined, offsets: new Map() }));
    return g;
  };
  for (const b of batches) {
    for (const r of b.records ?? []) {
      if (r.key === null) continue;
      const key = JSON.parse(r.key) as [string, string, string?, number?];
      if (key[0] === OFFSET_KEY) {
        const g = get(key[1]);
        const tp = offsetKey(key[2]!, key[3]!);
        if (r.value === null) g.offsets.delete(tp);
        else g.offsets.set(tp, Number(r.value));
      } else if (key[0] === GROUP_KEY) {
        const g = get(key[1]);
        g.metadata = r.value === null ? undefined : (JSON.parse(r.value) as GroupMetadataValue);
      } else if (consumerGroupKey(key as string[])) {
        const g = get(key[1]);
        g.consumerRecords ??= new Map();
        replayConsumerGroupRecord(g.consumerRecords, r.key, r.value);
      }
    }
  }
  return groups;
}
