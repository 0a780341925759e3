// Consumer groups. Classic protocol: the group coordinator that a broker runs for the __consumer_offsets
// partitions it leads (groups as xstate machines: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead,
// with the initial rebalance delay, rebalance, session and pending-sync timeouts), committed offsets written to
// __consumer_offsets, the member-side lifecycle machine the consumer runs, and the client-side assignors.
// Consumer protocol (KIP-848, group.protocol=consumer): ConsumerGroup (group and member epochs, server-side
// uniform/range assignors, target assignment, incremental reconciliation, fencing, static members, the group
// epoch bumped by metadata image changes), with its coordinator settings (group.consumer.*); classic members inside
// a consumer group and the online conversion between the protocols (group.consumer.migration.policy).
// Consumer groups' records go to __consumer_offsets and are reloaded on a coordinator failover.
// Left out: classic static membership beyond reporting group.instance.id,
// transactional offset commits, offset retention/expiry, rack-aware assignment.
// Files, as Kafka's group-coordinator module splits the coordinator:
//   coordinator.ts              GroupCoordinator (Kafka's GroupCoordinatorService): one shard per __consumer_offsets
//                               partition the broker leads, loaded and unloaded on leader changes; FindCoordinator
//   coordinator-shard.ts        GroupCoordinatorShard: routes one partition's requests to its two managers; replay
//   group-metadata-manager.ts   GroupMetadataManager: classic and consumer groups, their requests, the conversions
//   offset-metadata-manager.ts  OffsetMetadataManager: OffsetCommit (checked against the group), OffsetFetch
//   coordinator-views.ts        DescribeGroups, ConsumerGroupDescribe, ListGroups over every shard
//   coordinator-answers.ts      error answers and the append error mapping; find-coordinator.ts FindCoordinator
//   classic-group.ts, group-machine.ts, group-state.ts     ClassicGroup, its state machine and per-state rules
//   consumer-group.ts, consumer-group-*.ts, reconciliation.ts, target-assignment.ts, partition-epochs.ts,
//   member-timers.ts            ConsumerGroup (KIP-848) and its parts; group-migration.ts the protocol conversions
//   offsets-records.ts, consumer-group-records.ts   the __consumer_offsets records (GroupCoordinatorRecordHelpers)
//   member-state.ts             the member-side lifecycle; assignors/ client-side, server-assignors/ server-side
// Facts: apache/kafka group-coordinator/src/main/java/org/apache/kafka/coordinator/group/ (GroupCoordinatorService,
// GroupCoordinatorShard, GroupMetadataManager, OffsetMetadataManager, classic/ClassicGroup, classic/ClassicGroupState,
// modern/consumer/ConsumerGroup), KafkaApis.handleFindCoordinator, Errors.java; the consumer side in
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerCoordinator.java.
export * from './assignors/index.ts';
export { ClassicGroup, type GroupHost, type GroupMember } from './classic-group.ts';
export { type GroupCoordinatorConfig, groupCoordinatorConfig, groupCoordinatorDefaults } from './config.ts';
export {
  ConsumerGroup,
  type ConsumerGroupHost,
  type ConsumerGroupState,
} from './consumer-group.ts';
export {
  type ConsumerGroupConfig,
  type ConsumerGroupMigrationPolicy,
  consumerGroupConfig,
  consumerGroupDefaults,
} from './consumer-group-config.ts';
export { HeartbeatError, heartbeatErrorResponse, validateHeartbeat } from './consumer-group-heartbeat.ts';
export {
  type ConsumerGroupMember,
  type ConsumerMemberState,
  isReconciledTo,
  newConsumerGroupMember,
  usesClassicProtocol,
} from './consumer-group-member.ts';
export { type CoordinatorBroker, type CoordinatorIo, GroupCoordinator } from './coordinator.ts';
export {
  classicGroupMachine,
  type GroupMachineContext,
  type GroupMachineEvent,
  groupStateOf,
} from './group-machine.ts';
export {
  type ClassicGroupState,
  type CommitIdentity,
  heartbeatDecision,
  joinGroupDecision,
  type MemberCheck,
  offsetCommitDecision,
  syncGroupDecision,
  validPreviousStates,
} from './group-state.ts';
export { heartbeats, type MemberEvent, type MemberStateName, nextMemberState } from './member-state.ts';
export {
  type GroupMetadataValue,
  type LoadedGroup,
  offsetKey,
  replayOffsetsLog,
  type StoredMember,
} from './offsets-records.ts';
export {
  candidateProtocols,
  javaHashMapOrder,
  javaStringHashCode,
  partitionForGroup,
  selectProtocol,
  supportsProtocols,
} from './protocol-selection.ts';
export { ownsRevokedPartitions, type ReconcileInput, reconcile } from './reconciliation.ts';
export * from './server-assignors/index.ts';
export {
  buildTargetAssignment,
  subscriptionMetadataOf,
  type TargetAssignmentInput,
  type TopicMetadata,
} from './target-assignment.ts';
