// kafkasim's public library API: what users build on. Everything a scenario can do, this API can do, and the
// reverse. Each export is described in docs/library-api.md (test/public-api.test.ts keeps the two in step). Kernel
// internals (the event queue and its lanes, raw events, model internals) are not exported: they change freely.
// Heavy dependencies load on first use: the HTTP server (fastify), the sweep's worker pool (piscina), DuckDB.

// The auto-balancer and its goals: a custom goal implements Goal or extends UsageDistributionGoal.
export {
  type Action,
  type AutoBalancer,
  type AutoBalancerConfigInput,
  type BalancerDecision,
  type ClusterSnapshot,
  type DetectReport,
  type Goal,
  type GoalRun,
  NetworkInUsageDistributionGoal,
  NetworkOutUsageDistributionGoal,
  type PartitionMove,
  ReplicaCountDistributionGoal,
  registerGoal,
  type SnapshotBroker,
  UsageDistributionGoal,
  type UsageDistributionSettings,
} from '../models/balancer/index.ts';

// Clients (made by the cluster: `cluster.producer(...)`, `consumer`, `groupConsumer`, `admin`) and partitioners.
export {
  type AdminClient,
  type ClientFlavour,
  type Consumer,
  type ConsumerConfigInput,
  crc32,
  type DeliveryResult,
  type GroupConsumer,
  type GroupConsumerConfigInput,
  type GroupConsumerOptions,
  javaKeyPartition,
  librdkafkaConsistentPartition,
  murmur2,
  type Producer,
  type ProducerConfigInput,
  type ProducerPerfWorkload,
  type RebalanceListener,
  type SendRecord,
  toPositive,
} from '../models/clients/index.ts';

// Assignors: Kafka's, as pure functions; a custom one has the same signature.
export {
  type AssignInput,
  AssignmentError,
  type Assignor,
  type AssignorMember,
  assignors,
  type TopicPartition,
} from '../models/group/assignors/index.ts';
// The Lake (workflow B): the ingest service's config and the Lake's answers.
export { type IngestConfigInput, LakeError, type LakeQueryResult } from '../models/lake/index.ts';
// Metadata and Kafka's errors.
export type { MetadataImage, PartitionRegistration, TopicImage } from '../models/metadata/index.ts';
export { Errors, KafkaError } from '../models/protocol/index.ts';
// The Raft harness (KRaft's quorum with Kafka's Raft simulation invariants), for simulation tests of your own.
export {
  type QuorumConfig,
  RAFT_INVARIANTS,
  type RaftInvariantName,
  RaftQuorum,
  type RaftQuorumOptions,
  type ReplicatedCounter,
  SIMULATION_TEST_QUORUM_CONFIG,
} from '../models/raft/index.ts';
// The kernel's user-facing part: virtual time, custom nodes, invariants, the trace.
export {
  type Distribution,
  DurationError,
  ExitCode,
  formatDuration,
  InvariantViolation,
  jsonlSink,
  KafkasimError,
  type NodeId,
  parseDuration,
  type RunUntilOptions,
  SimNode,
  SimTimeoutError,
  Simulation,
  SimulationError,
  type SimulationOptions,
  type TraceEvent,
} from '../models/sim/index.ts';
// The HTTP server, for tests that drive a live cluster over HTTP (and replaying a recorded request log).
export type { ReplayResult, RequestLog, RunningServer, ServeOptions, WorldOptions } from './api/index.ts';
export { replayRequestLog, startServer } from './api/on-demand.ts';

// cluster-listen.ts adds `cluster.listen` (the Kafka listeners) to every cluster: imported for that effect.
import './api/cluster-listen.ts';

// The simulated cluster: build, drive, fault, inspect.
export {
  type BrokerSpec,
  type Cluster,
  type ClusterAdmin,
  type ClusterOptions,
  createCluster,
  type DeliveryReport,
  type DescribeGroupOptions,
  type MetadataLoadStatus,
  type NewTopic,
  type PerfConsumerReport,
  type PerfProducerReport,
  type QuorumStatus,
} from './cluster/index.ts';
// Kafka's Raft test server (apache/kafka raft/README.md): a quorum serving __cluster_metadata to a
// VerifiableProducer and the perf test.
export {
  parseRaftServerProperties,
  type RaftServerProperties,
  RaftTestServerCluster,
  type RaftTestServerOptions,
} from './cluster/raft-test-server.ts';
// Text exactly as Kafka's tools print it (kafka-topics, kafka-reassign-partitions, perf tests, consumer groups).
export * as format from './format/index.ts';
export { RunRecorder, runReportHtml, sweepReportHtml, WHATIF_METRICS } from './report/index.ts';
// Scenarios: load, validate and run them from code.
export {
  type ExpectationResult,
  type LoadedScenario,
  type LoadOptions,
  listShippedScenarios,
  loadScenarioFile,
  loadScenarioObject,
  loadScenarioText,
  type RunOptions,
  runScenario,
  runScenarioAsync,
  ScenarioError,
  type ScenarioResult,
  type ScenarioSpec,
  type ShippedScenario,
} from './scenario/index.ts';
// What-if sweeps and reports.
export {
  type CellResult,
  formatSweepTable,
  mergeSweepDocuments,
  parseGrid,
  planSweep,
  type RunOutcome,
  type RunSweepOptions,
  readSweepDocument,
  runSweep,
  type SweepDocument,
  SweepInputError,
  type SweepPlan,
  type SweepProgress,
  type SweepRequest,
  sweepCsv,
} from './sweep/index.ts';
// Real Kafka clients: the in-process kafkajs transport (the TCP listeners are `cluster.listen` and `startServer`).
export { type InProcessTransport, inProcessTransport } from './wire/index.ts';
