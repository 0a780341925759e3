/**
 * The KRaft metadata quorum: a Raft implementation in Kafka's shape. Roles (Unattached with its vote,
 * Candidate, Leader, Follower, Resigned, and Prospective behind pre-vote) are an xstate machine on the kernel
 * clock; replication is pull-based Fetch with diverging-epoch truncation and parked fetches; the leader's high
 * watermark follows the majority of voters' flushed end offsets (KAFKA-10533), with a switch that removes the
 * flush guarantees. A RaftClient embeds in any host node (the QuorumController); RaftNode is the standalone
 * test-server node and RaftQuorum the simulation-test cluster with its invariants and ReplicatedCounter load.
 * Each role's state is its own class, created when the role is entered (as Kafka's QuorumState holds an
 * EpochState): LeaderState, FollowerState, NomineeState (Candidate and Prospective), ResignedState, UnattachedState.
 * RaftMetadataLog puts the MetadataLog interface on top.
 *
 * Left out: snapshots (FetchSnapshot, log start offsets), KIP-853 dynamic voters (AddVoter/RemoveVoter,
 * directory ids), cluster ids, DescribeQuorum as an RPC, byte-based batch and fetch sizes, compression.
 *
 * Facts: KIP-595 (the protocol), KIP-996 (pre-vote), KAFKA-10533 (flush before the high watermark moves:
 * https://issues.apache.org/jira/browse/KAFKA-10533); apache/kafka's raft module
 * (raft/src/main/java/org/apache/kafka/raft/: KafkaRaftClient, QuorumState, LeaderState, FollowerState,
 * CandidateState; raft/src/test/.../MockLog and RaftEventSimulationTest; the test server kafka.tools.TestRaftServer)
 * for details, cited where used.
 */

export {
  type BeginQuorumEpochRequest,
  type EndQuorumEpochRequest,
  isRaftRequest,
  METADATA_TOPIC,
  NO_LEADER_ID,
  type QuorumFetchRequest,
  type QuorumFetchResponse,
  type QuorumResponse,
  type RaftRequest,
  type VoteRequest,
  type VoteResponse,
} from '../protocol/raft-requests.ts';
export {
  DEFAULT_QUORUM_CONFIG,
  parseQuorumVoters,
  type QuorumConfig,
  type QuorumVoter,
  resolveQuorumConfig,
  SIMULATION_TEST_QUORUM_CONFIG,
} from './config.ts';
export {
  binaryExponentialElectionBackoffMs,
  canGrantVote,
  compareOffsetAndEpoch,
  type EpochStart,
  endOffsetForEpoch,
  followerHighWatermark,
  isLogUpToDate,
  majority,
  majorityEndOffset,
  nextHighWatermark,
  type OffsetAndEpoch,
  type OffsetValidation,
  type QuorumRole,
  randomElectionTimeoutMs,
  strictExponentialElectionBackoffMs,
  successorsByDescendingFetchOffset,
  truncationOffset,
  type VoterView,
  validateOffsetAndEpoch,
} from './decisions.ts';
export {
  ConsistentCommittedData,
  latestRunningLeader,
  type QuorumCheck,
  type QuorumMember,
  QuorumObservation,
  RAFT_INVARIANTS,
  type RaftInvariantName,
  registerRaftInvariants,
} from './invariants.ts';
export {
  type QuorumContext,
  type QuorumEnvironment,
  type QuorumEvent,
  type QuorumInput,
  type QuorumMachine,
  quorumMachine,
  roleOf,
} from './quorum-machine.ts';
export { type ElectionState, NO_ELECTION, QuorumStateStore } from './quorum-state.ts';
export {
  type LeaderAndEpoch,
  NotLeaderError,
  type QuorumDescription,
  RaftClient,
  type RaftClientOptions,
  type ReplicaDescription,
} from './raft-client.ts';
export {
  batchSize,
  type LeaderChangeMessage,
  type RaftBatch,
  type RaftEntry,
  RaftLog,
  RaftLogError,
} from './raft-log.ts';
export { RaftMetadataLog } from './raft-metadata-log.ts';
export { RaftNode, type RaftNodeOptions, type RaftStateMachine } from './raft-node.ts';
export { RaftQuorum, type RaftQuorumOptions } from './raft-quorum.ts';
export { ReplicatedCounter } from './replicated-counter.ts';
export {
  RAFT_TOPIC,
  type TestRaftRecord,
  TestRaftServer,
  type TestRaftServerOptions,
} from './test-raft-server.ts';
