// The API keys and versions the listener advertises in ApiVersions: only what the model honours. The codec reads
// and writes every version of Apache Kafka's definitions; these ranges are narrower where an older version has
// other semantics the model does not implement, or a newer one needs something the model does not have:
//   Produce 3+ / Fetch 4+: magic-2 record batches only (no v0/v1 message sets). Fetch stops at 12: v13 names
//   topics by id only. Fetch sessions (KIP-227, v7+) are declined with session id 0, as a broker may, so
//   clients send full fetches. ListOffsets stops at 6: v7's MAX_TIMESTAMP (-3) is not modelled. JoinGroup 4+:
//   MEMBER_ID_REQUIRED (KIP-394) is how the coordinator hands out member ids. OffsetFetch stops at 7: v8 batches
//   groups. OffsetForLeaderEpoch 0-4 (KIP-320 position validation; v3's replicaId is not checked: every request is
//   answered by the leader, as ReplicaManager.lastOffsetForLeaderEpoch does). No transactions (no AddPartitionsToTxn, EndTxn...): a transactional batch is refused.
//   ConsumerGroupHeartbeat stops at 0: v1 adds regex subscriptions (KIP-848's SubscribedTopicRegex), which the
//   model's coordinator does not run. ListGroups 5 filters and reports the group type (classic or consumer).
import type { Message } from './codec/message-codec.ts';
import { API_SCHEMAS } from './generated/index.ts';

export const ApiKey = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  InitProducerId: 22,
  OffsetForLeaderEpoch: 23,
  DescribeConfigs: 32,
  CreatePartitions: 37,
  IncrementalAlterConfigs: 44,
  AlterPartitionReassignments: 45,
  ListPartitionReassignments: 46,
  DescribeCluster: 60,
  ConsumerGroupHeartbeat: 68,
  ConsumerGroupDescribe: 69,
} as const;
export type ApiName = keyof typeof ApiKey;

/** [min, max] per API key, as advertised by a broker's listener. */
export const SUPPORTED: Readonly<Record<number, readonly [number, number]>> = {
  [ApiKey.Produce]: [3, 9],
  [ApiKey.Fetch]: [4, 12],
  [ApiKey.ListOffsets]: [1, 6],
  [ApiKey.Metadata]: [1, 12],
  [ApiKey.OffsetCommit]: [2, 8],
  [ApiKey.OffsetFetch]: [1, 7],
  [ApiKey.FindCoordinator]: [0, 4],
  [ApiKey.JoinGroup]: [4, 9],
  [ApiKey.Heartbeat]: [0, 4],
  [ApiKey.LeaveGroup]: [0, 5],
  [ApiKey.SyncGroup]: [0, 5],
  [ApiKey.DescribeGroups]: [0, 5],
  [ApiKey.ListGroups]: [0, 5],
  [ApiKey.ApiVersions]: [0, 3],
  [ApiKey.CreateTopics]: [2, 7],
  [ApiKey.DeleteTopics]: [1, 5],
  [ApiKey.InitProducerId]: [0, 4],
  [ApiKey.OffsetForLeaderEpoch]: [0, 4],
  [ApiKey.DescribeConfigs]: [1, 4],
  [ApiKey.CreatePartitions]: [0, 3],
  [ApiKey.IncrementalAlterConfigs]: [0, 1],
  [ApiKey.AlterPartitionReassignments]: [0, 0],
  [ApiKey.ListPartitionReassignments]: [0, 0],
  [ApiKey.DescribeCluster]: [0, 1],
  [ApiKey.ConsumerGroupHeartbeat]: [0, 0],
  [ApiKey.ConsumerGroupDescribe]: [0, 0],
};

/** What the controller's listener serves (KIP-919: admin clients may bootstrap to controllers). */
export const CONTROLLER_APIS: ReadonlySet<number> = new Set([
  ApiKey.ApiVersions,
  ApiKey.CreateTopics,
  ApiKey.DeleteTopics,
  ApiKey.CreatePartitions,
  ApiKey.IncrementalAlterConfigs,
  ApiKey.AlterPartitionReassignments,
  ApiKey.ListPartitionReassignments,
  ApiKey.DescribeCluster,
]);

export const apiName = (key: number): string => API_SCHEMAS[key]?.name ?? `api-key-${key}`;

export function isSupported(apiKey: number, version: number, controller: boolean): boolean {
  const r = SUPPORTED[apiKey];
  if (!r || version < r[0] || version > r[1]) return false;
  return !controller || CONTROLLER_APIS.has(apiKey);
}

/** The ApiVersions answer: every API this listener serves with its range; `errorCode` 35 for the v0 fallback. */
export function apiVersionsBody(controller: boolean, errorCode = 0): Message {
  const apiKeys = Object.entries(SUPPORTED)
    .filter(([k]) => !controller || CONTROLLER_APIS.has(Number(k)))
    .map(([k, [min, max]]) => ({ apiKey: Number(k), minVersion: min, maxVersion: max }))
    .sort((a, b) => a.apiKey - b.apiKey);
  return { errorCode, apiKeys, throttleTimeMs: 0 };
}
