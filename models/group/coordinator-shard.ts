// One __consumer_offsets partition as its coordinator serves it, mirroring Kafka's GroupCoordinatorShard: the shard
// routes a group's requests to its two managers, the GroupMetadataManager (the groups and their membership,
// group-metadata-manager.ts) and the OffsetMetadataManager (committed offsets, offset-metadata-manager.ts), and
// rebuilds both from the partition's log when the coordinator loads it (replay). The GroupCoordinator
// (coordinator.ts) holds one shard per partition this broker leads and drops it when the leadership goes.
// Facts: apache/kafka group-coordinator/.../GroupCoordinatorShard (joinGroup, syncGroup, heartbeat, leaveGroup,
// consumerGroupHeartbeat, commitOffset, fetchOffsets, replay, onUnloaded).

import type {
  ConsumerGroupDescribeRequest,
  DescribeGroupsRequest,
  FindCoordinatorRequest,
  GroupRequest,
  ListGroupsRequest,
} from '../protocol/index.ts';
import type { RecordBatch, RecordData } from '../storage/index.ts';
import type { ClassicGroup } from './classic-group.ts';
import type { GroupCoordinatorConfig } from './config.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import type { ConsumerGroupConfig } from './consumer-group-config.ts';
import type { CoordinatorBroker } from './coordinator.ts';
import type { HostedPartition } from './coordinator-views.ts';
import { GroupMetadataManager } from './group-metadata-manager.ts';
import { OffsetMetadataManager } from './offset-metadata-manager.ts';
import { replayOffsetsLog } from './offsets-records.ts';

/** What a shard's managers use of the coordinator that hosts the shard. */
export interface ShardContext {
  readonly broker: CoordinatorBroker;
  readonly config: GroupCoordinatorConfig;
  readonly consumerConfig: ConsumerGroupConfig;
  /** False once the coordinator dropped the shard (leadership lost, a new leader epoch, a broker restart). */
  active(): boolean;
  /** Appends records to the shard's partition, acks=all; `done` gets the append's error code. */
  write(records: RecordData[], done: (errorCode: number) => void): void;
}

/** The requests a shard serves: those about one group (the coordinator answers the others itself). */
export type ShardRequest = Exclude<
  GroupRequest,
  FindCoordinatorRequest | DescribeGroupsRequest | ListGroupsRequest | ConsumerGroupDescribeRequest
>;

export class GroupCoordinatorShard implements HostedPartition {
  /** Until the partition's log is replayed: requests get COORDINATOR_LOAD_IN_PROGRESS. */
  loading = true;
  private dropped = false;
  readonly groupMetadataManager: GroupMetadataManager;
  readonly offsetMetadataManager: OffsetMetadataManager;

  constructor(
    readonly partition: number,
    readonly leaderEpoch: number,
    context: Omit<ShardContext, 'active'>,
  ) {
    const ctx: ShardContext = { ...context, active: () => !this.dropped };
    this.groupMetadataManager = new GroupMetadataManager(ctx);
    this.offsetMetadataManager = new OffsetMetadataManager(ctx, this.groupMetadataManager);
  }

  get groups(): ReadonlyMap<string, ClassicGroup> {
    return this.groupMetadataManager.groups;
  }

  get consumerGroups(): ReadonlyMap<string, ConsumerGroup> {
    return this.groupMetadataManager.consumerGroups;
  }

  get active(): boolean {
    return !this.dropped;
  }

  /** Rebuilds the offsets and the groups from the partition's log, oldest record first (replay). */
  replay(batches: readonly RecordBatch[]): void {
    for (const [groupId, loaded] of replayOffsetsLog(batches)) {
      this.offsetMetadataManager.replay(groupId, loaded.offsets);
      this.groupMetadataManager.replay(groupId, loaded);
    }
    this.loading = false;
  }

  handle(req: ShardRequest, done: (response: unknown) => void): void {
    switch (req.type) {
      case 'JoinGroup':
        return this.groupMetadataManager.classicGroupJoin(req, done);
      case 'SyncGroup':
        return this.groupMetadataManager.classicGroupSync(req, done);
      case 'Heartbeat':
        return this.groupMetadataManager.classicGroupHeartbeat(req, done);
      case 'LeaveGroup':
        return this.groupMetadataManager.classicGroupLeave(req, done);
      case 'ConsumerGroupHeartbeat':
        return this.groupMetadataManager.consumerGroupHeartbeat(req, done);
      case 'OffsetCommit':
        return this.offsetMetadataManager.commitOffset(req, done);
      case 'OffsetFetch':
        return done(this.offsetMetadataManager.fetchOffsets(req));
    }
  }

  /** The coordinator no longer serves the partition (onUnloaded): the groups' timers stop. */
  unload(): void {
    this.dropped = true;
    this.groupMetadataManager.onUnloaded();
  }

  /** The broker restarted: the shard is dropped with the rest of its volatile state, its groups' timers with it. */
  drop(): void {
    this.dropped = true;
  }
}
