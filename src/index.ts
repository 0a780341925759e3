// kafkasim's public library API. Everything a scenario can do, this API can do, and the reverse.

// Models' public faces. Balancer goals (custom goals extend UsageDistributionGoal or implement Goal), the Raft
// quorum for simulation tests of your own, and the Lake.
export * as balancer from '../models/balancer/index.ts';
export {
  AdminClient,
  type ClientFlavour,
  Consumer,
  crc32,
  GroupConsumer,
  javaKeyPartition,
  librdkafkaConsistentPartition,
  murmur2,
  Producer,
  ProducerPerfWorkload,
  toPositive,
} from '../models/clients/index.ts';
export {
  type AssignInput,
  type Assignor,
  type AssignorMember,
  assignors,
  type TopicPartition,
} from '../models/group/assignors/index.ts';
export * as lake from '../models/lake/index.ts';
export type { MetadataImage, PartitionRegistration, TopicImage } from '../models/metadata/index.ts';
export { Errors, errorByCode, KafkaError, kafkaError } from '../models/protocol/index.ts';
export * as raft from '../models/raft/index.ts';
// The kernel, for custom nodes and workloads.
export * from '../models/sim/index.ts';
export { PartitionLog, type RecordBatch } from '../models/storage/index.ts';
// The HTTP server, for tests that drive a live cluster over HTTP (and replaying a recorded request log).
export { replayRequestLog, startServer } from './api/index.ts';
// The simulated cluster: build, drive, fault, inspect.
export * from './cluster/index.ts';
// Tool output formats (kafka-topics, kafka-reassign-partitions, perf tests, consumer groups).
export * as format from './format/index.ts';
// What-if sweeps and reports.
export * as report from './report/index.ts';
// Scenarios: load, validate and run them from code.
export {
  listShippedScenarios,
  loadScenarioFile,
  loadScenarioObject,
  loadScenarioText,
  runScenario,
  runScenarioAsync,
  ScenarioError,
} from './scenario/index.ts';
export * as sweep from './sweep/index.ts';
