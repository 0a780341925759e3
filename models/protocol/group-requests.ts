// The group coordinator's requests and responses as plain data on the simulated network. Shapes follow Kafka's
// FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups and
// ListGroups RPCs (camelCased, trimmed to what the simulator uses). The consumer protocol's subscription and
// assignment travel as structured values rather than bytes (ConsumerProtocolSubscription v2 fields).
import type { ConsumerGroupDescribeRequest } from './consumer-group-describe.ts';
import type { ConsumerGroupHeartbeatRequest } from './consumer-group-heartbeat.ts';
import type { TopicPartition } from './topic-partition.ts';

/** ConsumerProtocolSubscription: what a member sends for each protocol (assignor) it supports. */
export interface Subscription {
  topics: string[];
  /** v1+: what the member owns now (cooperative members keep partitions across a rebalance). */
  ownedPartitions: TopicPartition[];
  /** v2+: the generation in which it got them, -1 when none. */
  generation: number;
}

export interface JoinGroupProtocol {
  name: string;
  metadata: Subscription;
}

export interface FindCoordinatorRequest {
  type: 'FindCoordinator';
  /** The group id (keyType 0: GROUP). */
  key: string;
}
export interface FindCoordinatorResponse {
  errorCode: number;
  errorMessage?: string;
  nodeId: number;
  host: string;
  port: number;
}

export interface JoinGroupRequest {
  type: 'JoinGroup';
  groupId: string;
  sessionTimeoutMs: number;
  /** The client's max.poll.interval.ms: how long the coordinator waits for it to rejoin. */
  rebalanceTimeoutMs: number;
  /** '' on the first join: the coordinator answers MEMBER_ID_REQUIRED with an id to join with. */
  memberId: string;
  groupInstanceId: string | null;
  protocolType: 'consumer';
  protocols: JoinGroupProtocol[];
  clientId: string;
  /** The address the coordinator sees the connection come from (kafkasim: the client says it). */
  clientHost: string;
  reason?: string;
}
export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Subscription;
}
export interface JoinGroupResponse {
  errorCode: number;
  generationId: number;
  protocolName: string | null;
  leader: string;
  memberId: string;
  /** Only the leader gets the members and their subscriptions: it computes the assignment. */
  members: JoinGroupMember[];
}

export interface SyncGroupRequest {
  type: 'SyncGroup';
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolName: string | null;
  /** Only the leader sends assignments. */
  assignments: { memberId: string; assignment: TopicPartition[] }[];
}
export interface SyncGroupResponse {
  errorCode: number;
  protocolName: string | null;
  assignment: TopicPartition[];
}

export interface HeartbeatRequest {
  type: 'Heartbeat';
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}
export interface HeartbeatResponse {
  errorCode: number;
}

export interface LeaveGroupRequest {
  type: 'LeaveGroup';
  groupId: string;
  members: { memberId: string; groupInstanceId: string | null; reason?: string }[];
}
export interface LeaveGroupResponse {
  errorCode: number;
  members: { memberId: string; errorCode: number }[];
}

export interface OffsetCommitRequest {
  type: 'OffsetCommit';
  groupId: string;
  /**
   * The classic generation, or a consumer-protocol member's epoch (v9+ GenerationIdOrMemberEpoch); -1 with
   * memberId '' for a commit from outside the group (assign mode, admin).
   */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  offsets: { topic: string; partition: number; offset: number }[];
}
export interface OffsetCommitResponse {
  partitions: { topic: string; partition: number; errorCode: number }[];
}

export interface OffsetFetchRequest {
  type: 'OffsetFetch';
  groupId: string;
  /** null = every partition with a committed offset. */
  partitions: { topic: string; partition: number }[] | null;
}
export interface OffsetFetchResponse {
  errorCode: number;
  /** offset -1 = no committed offset. */
  partitions: { topic: string; partition: number; offset: number; errorCode: number }[];
}

export interface DescribedGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Only while the group is Stable (GroupMetadata.summary), else null. */
  metadata: Subscription | null;
  assignment: TopicPartition[] | null;
}
export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  /** ClassicGroupState name; 'Dead' for a group the coordinator does not know. */
  groupState: string;
  protocolType: string;
  /** The chosen assignor while Stable, else ''. */
  protocolData: string;
  members: DescribedGroupMember[];
}
export interface DescribeGroupsRequest {
  type: 'DescribeGroups';
  groups: string[];
}
export interface DescribeGroupsResponse {
  groups: DescribedGroup[];
}

export interface ListGroupsRequest {
  type: 'ListGroups';
}
export interface ListGroupsResponse {
  errorCode: number;
  /** groupType (ListGroups v5, KIP-848): 'classic' or 'consumer', the protocol the group runs. */
  groups: { groupId: string; protocolType: string; groupState: string; groupType: 'classic' | 'consumer' }[];
}

export type GroupRequest =
  | FindCoordinatorRequest
  | JoinGroupRequest
  | SyncGroupRequest
  | HeartbeatRequest
  | LeaveGroupRequest
  | OffsetCommitRequest
  | OffsetFetchRequest
  | DescribeGroupsRequest
  | ListGroupsRequest
  | ConsumerGroupHeartbeatRequest
  | ConsumerGroupDescribeRequest;

export type GroupRequestType = GroupRequest['type'];

const GROUP_REQUEST_TYPES: ReadonlySet<string> = new Set<GroupRequestType>([
  'FindCoordinator',
  'JoinGroup',
  'SyncGroup',
  'Heartbeat',
  'LeaveGroup',
  'OffsetCommit',
  'OffsetFetch',
  'DescribeGroups',
  'ListGroups',
  'ConsumerGroupHeartbeat',
  'ConsumerGroupDescribe',
]);

/** True for the requests a broker hands to its group coordinator. */
export function isGroupRequest(payload: unknown): payload is GroupRequest {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    GROUP_REQUEST_TYPES.has((payload as { type?: unknown }).type as string)
  );
}

/** The internal topic that holds committed offsets and group metadata. */
export const OFFSETS_TOPIC = '__consumer_offsets';
