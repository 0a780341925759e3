// Consumer groups. Classic protocol: the group coordinator that a broker runs for the __consumer_offsets
// partitions it leads (groups as xstate machines: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead,
// with the initial rebalance delay, rebalance, session and pending-sync timeouts), committed offsets written to
// __consumer_offsets, the member-side lifecycle machine the consumer runs, and the client-side assignors.
// Consumer protocol (KIP-848, group.protocol=consumer): ConsumerGroup (group and member epochs, server-side
// uniform/range assignors, target assignment, incremental reconciliation, fencing, static members, the group
// epoch bumped by metadata image changes), with its coordinator settings (group.consumer.*).
// Left out: classic static membership beyond reporting group.instance.id, consumer groups' records in
// __consumer_offsets, online conversion of non-empty groups between the protocols,
// transactional offset commits, offset retention/expiry, rack-aware assignment.
// Facts: apache/kafka group-coordinator/src/main/java/org/apache/kafka/coordinator/group/ (GroupMetadataManager,
// classic/ClassicGroup, classic/ClassicGroupState), KafkaApis.handleFindCoordinator, Errors.java; the consumer side in
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerCoordinator.java.
export * from './assignors/index.ts';
export { ClassicGroup, type GroupHost, type GroupMember } from './classic-group.ts';
export { type GroupCoordinatorConfig, groupCoordinatorConfig, groupCoordinatorDefaults } from './config.ts';
export {
  ConsumerGroup,
  type ConsumerGroupHost,
  type ConsumerGroupState,
  subscriptionMetadataOf,
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
  type TargetAssignmentInput,
  type TopicMetadata,
} from './target-assignment.ts';
