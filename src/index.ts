// kafkasim's public library API. Everything a scenario can do, this API can do, and the reverse.

// Models' public faces.
export {
  AdminClient,
  type ClientFlavour,
  Consumer,
  crc32,
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
export type { MetadataImage, PartitionRegistration, TopicImage } from '../models/metadata/index.ts';
export { Errors, errorByCode, KafkaError, kafkaError } from '../models/protocol/index.ts';
export { PartitionLog, type RecordBatch } from '../models/storage/index.ts';
// The simulated cluster: build, drive, fault, inspect.
export * from './cluster/index.ts';
// Tool output formats (kafka-topics, kafka-reassign-partitions, perf tests, consumer groups).
export * as format from './format/index.ts';
// Scenarios: load, validate and run them from code.
export {
  listShippedScenarios,
  loadScenarioFile,
  loadScenarioObject,
  loadScenarioText,
  runScenario,
  ScenarioError,
} from './scenario/index.ts';
// The kernel, for custom nodes and workloads.
export * from './sim/index.ts';
