// The scenario document as the runner reads it, after YAML parsing and validation against the JSON Schema
// (schema.ts describes every field for editors and users; these types mirror it for the code). Steps,
// conditions and metrics take their value types from their registries (steps/, conditions/).
import type { Distribution } from '../../models/sim/index.ts';
import type { ConditionValues, MetricValues } from './conditions/index.ts';
import type { StepValues } from './steps/index.ts';

export type { PerBrokerCondition } from './conditions/per-broker.ts';
export type { CrashIngestSpec } from './steps/crash-ingest.ts';
export type { PrintKind, PrintSpec } from './steps/print.ts';
export type { ProduceSpec } from './steps/produce.ts';
export type { ReassignSpec } from './steps/reassign.ts';
export type { RequestFaultSpec } from './steps/request-fault.ts';
export type { WaitUntilSpec } from './steps/wait-until.ts';

/** A duration string such as '250ms', '5s', '2m'. */
export type DurationText = string;

export type ConfigValue = string | number | boolean;

/**
 * Which moment of a step a timing starts at: `start`, when the step began (for a tool step, the command typed);
 * `applied`, when a tool step's request reached the controller (after the tool's start-up).
 */
export type StepPoint = 'start' | 'applied';

/** A number (equals) or a comparison; every given bound must hold. */
export type Comparison =
  | number
  | { eq?: number; ne?: number; gt?: number; gte?: number; lt?: number; lte?: number };

export interface TopicSpec {
  name: string;
  partitions?: number;
  replicationFactor?: number;
  configs?: Record<string, ConfigValue>;
  /** Partition index -> broker ids (the first is the preferred leader). */
  assignments?: number[][];
}

export interface ClusterSpec {
  brokers?: number | { id: number; rack?: string }[];
  firstBrokerId?: number;
  storage?: 'kafka' | 'shared';
  /** server.properties; kafkasim.tool.startup.ms and kafkasim.client.startup.ms may be distributions. */
  configs?: Record<string, ConfigValue | Distribution>;
  latency?: DurationText | Distribution;
  checkInvariantsEvery?: number;
  /** Controllers in the KRaft metadata quorum (node ids 3000, 3001, ...). Default 1. */
  controllers?: number;
  /** A steady append load on the metadata log: numbered NoOpRecords the active controller appends. */
  metadataLoad?: { rate: number };
}

export type ClientFlavour = 'java' | 'librdkafka';

export interface ProducerSpec {
  name: string;
  topic: string;
  rate: number;
  recordSize?: number;
  records?: number;
  keys?: 'none' | 'sequence';
  partition?: number;
  flavour?: ClientFlavour;
  config?: Record<string, ConfigValue>;
  autoStart?: boolean;
}

export interface ConsumerSpec {
  name: string;
  topic: string;
  partitions?: number[];
  flavour?: ClientFlavour;
  config?: Record<string, ConfigValue>;
  autoStart?: boolean;
}

export interface PerfProducerSpec {
  name: string;
  topic: string;
  numRecords: number;
  throughput: number;
  recordSize: number;
  flavour?: ClientFlavour;
  config?: Record<string, ConfigValue>;
  autoStart?: boolean;
}

/** A consumer group: `members` group members (named `<name>-1`..) with group.id `name`, subscribed to `topic`. */
export interface GroupSpec {
  name: string;
  topic: string;
  members: number;
  flavour?: ClientFlavour;
  config?: Record<string, ConfigValue>;
  autoStart?: boolean;
}

/**
 * A bend-ingest-kafka service (source workflow B): `config` holds the service's JSON config keys verbatim
 * (kafkaTopic, KafkaConsumerGroup, lakeTable, workers, ...). `log` chooses which of its log lines are printed.
 */
export interface IngestSpec {
  name: string;
  config: Record<string, unknown>;
  log?: 'rebalance' | 'all' | 'none';
  /** librdkafka settings on top of the service's own (auto.offset.reset=earliest, ...): what-if variants. */
  kafkaConfig?: Record<string, ConfigValue>;
  /** The workers' client library: librdkafka (the real service, default) or java (a what-if). */
  flavour?: ClientFlavour;
  autoStart?: boolean;
}

export interface ClientsSpec {
  producers?: ProducerSpec[];
  consumers?: ConsumerSpec[];
  perfProducers?: PerfProducerSpec[];
  groups?: GroupSpec[];
  ingest?: IngestSpec[];
}

export interface FaultsSpec {
  dropProbability?: number;
  slowBrokers?: Record<string, DurationText>;
}

export interface TopicPartitionSpec {
  topic: string;
  partition: number;
}

/** A broker id, the broker leading a partition when the step runs, or the broker an earlier step acted on. */
export type BrokerSelector = number | { leaderOf: TopicPartitionSpec } | { brokerOf: string };

/** A controller id (3000...), the active controller when the step runs, or the one an earlier step acted on. */
export type ControllerSelector = number | 'active' | { controllerOf: string };

/** A controller step: a selector (act now), or a selector and a delay (act that long after the step starts). */
export type ControllerAction = ControllerSelector | { controller: ControllerSelector; delay: DurationText };

/** A network node: a broker id, `controller`, or a client name. */
export type NodeRef = number | string;

/** When a step runs and how it is shown; then exactly one action (steps/index.ts lists them). */
export interface StepTiming {
  at?: DurationText;
  after?: DurationText;
  label?: string;
  note?: string;
  quiet?: boolean;
}

/** A timeline step: its timing and one action of the step registry. */
export interface StepSpec extends StepTiming, Partial<StepValues> {}

/** A condition: one kind of the condition registry (conditions/index.ts). */
export interface Condition extends Partial<ConditionValues> {}

/** A Lake SQL query (Databend dialect) run on the final state; its rows (as strings) must equal `equals`. */
export interface SqlExpectation {
  query: string;
  equals: (string | number | null)[][];
}

export interface ExpectationSpec extends Condition {
  name: string;
  description?: string;
  sql?: SqlExpectation;
}

/** A metric: one kind of the metric registry (conditions/index.ts). */
export interface MetricSpec extends Partial<MetricValues> {}

/**
 * A quorum of Raft test servers (`bin/test-raft-server-start.sh config/raft-quorum-N.properties`) instead of a
 * cluster: each properties file as written (file name -> text), and the quorum's controller.quorum.* and
 * kafkasim.raft.* settings for every server.
 */
export interface RaftTestServerSpec {
  properties: Record<string, string>;
  configs?: Record<string, ConfigValue>;
  latency?: DurationText | Distribution;
}

export interface ScenarioSpec {
  name: string;
  description?: string;
  seed?: number | string;
  /** The virtual wall clock at virtual time 0 (ISO 8601 date-time with a zone, or epoch ms). */
  startTime?: string | number;
  cluster?: ClusterSpec;
  /** A Raft test server quorum instead of a cluster (no cluster, topics, clients or faults then). */
  raftTestServer?: RaftTestServerSpec;
  topics?: TopicSpec[];
  clients?: ClientsSpec;
  faults?: FaultsSpec;
  timeline: StepSpec[];
  expectations?: ExpectationSpec[];
  metrics?: Record<string, MetricSpec>;
}
