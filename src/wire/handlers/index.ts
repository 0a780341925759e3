// Every API the listener answers beyond ApiVersions, by key.
import { ApiKey } from '../supported-apis.ts';
import {
  handleAlterPartitionReassignments,
  handleCreatePartitions,
  handleCreateTopics,
  handleDeleteTopics,
  handleIncrementalAlterConfigs,
  handleListPartitionReassignments,
} from './admin.ts';
import { handleConsumerGroupDescribe, handleConsumerGroupHeartbeat } from './consumer-groups.ts';
import type { Handler } from './context.ts';
import { handleFetch, handleListOffsets, handleOffsetForLeaderEpoch, handleProduce } from './data.ts';
import {
  handleDescribeGroups,
  handleFindCoordinator,
  handleHeartbeat,
  handleJoinGroup,
  handleLeaveGroup,
  handleListGroups,
  handleOffsetCommit,
  handleOffsetFetch,
  handleSyncGroup,
} from './groups.ts';
import {
  handleDescribeCluster,
  handleDescribeConfigs,
  handleInitProducerId,
  handleMetadata,
} from './metadata.ts';

export type { Handler, HandlerContext } from './context.ts';

export const HANDLERS: Readonly<Record<number, Handler>> = {
  [ApiKey.Produce]: handleProduce,
  [ApiKey.Fetch]: handleFetch,
  [ApiKey.ListOffsets]: handleListOffsets,
  [ApiKey.Metadata]: handleMetadata,
  [ApiKey.OffsetCommit]: handleOffsetCommit,
  [ApiKey.OffsetFetch]: handleOffsetFetch,
  [ApiKey.FindCoordinator]: handleFindCoordinator,
  [ApiKey.JoinGroup]: handleJoinGroup,
  [ApiKey.Heartbeat]: handleHeartbeat,
  [ApiKey.LeaveGroup]: handleLeaveGroup,
  [ApiKey.SyncGroup]: handleSyncGroup,
  [ApiKey.DescribeGroups]: handleDescribeGroups,
  [ApiKey.ListGroups]: handleListGroups,
  [ApiKey.CreateTopics]: handleCreateTopics,
  [ApiKey.DeleteTopics]: handleDeleteTopics,
  [ApiKey.InitProducerId]: handleInitProducerId,
  [ApiKey.OffsetForLeaderEpoch]: handleOffsetForLeaderEpoch,
  [ApiKey.DescribeConfigs]: handleDescribeConfigs,
  [ApiKey.CreatePartitions]: handleCreatePartitions,
  [ApiKey.IncrementalAlterConfigs]: handleIncrementalAlterConfigs,
  [ApiKey.AlterPartitionReassignments]: handleAlterPartitionReassignments,
  [ApiKey.ListPartitionReassignments]: handleListPartitionReassignments,
  [ApiKey.DescribeCluster]: handleDescribeCluster,
  [ApiKey.ConsumerGroupHeartbeat]: handleConsumerGroupHeartbeat,
  [ApiKey.ConsumerGroupDescribe]: handleConsumerGroupDescribe,
};
