// Consumer groups, classic protocol: the group coordinator that a broker runs for the __consumer_offsets
// partitions it leads (groups as xstate machines: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead,
// with the initial rebalance delay, rebalance, session and pending-sync timeouts), committed offsets written to
// __consumer_offsets, the member-side lifecycle machine the consumer runs, and the client-side assignors.
// Left out: KIP-848 (group.protocol=consumer), static membership beyond reporting group.instance.id,
// transactional offset commits, offset retention/expiry, rack-aware assignment.
// Facts: apache/kafka group-coordinator/src/main/java/org/apache/kafka/coordinator/group/ (GroupMetadataManager,
// classic/ClassicGroup, classic/ClassicGroupState), KafkaApis.handleFindCoordinator, Errors.java; the consumer side in
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerCoordinator.java.
export * from './assignors/index.ts';
export { ClassicGroup, type GroupHost, type GroupMember } from './classic-group.ts';
export { type GroupCoordinatorConfig, groupCoordinatorConfig, groupCoordinatorDefaults } from './config.ts';
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
