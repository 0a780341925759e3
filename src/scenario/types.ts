// The scenario document as the runner reads it, after YAML parsing and validation against the JSON Schema
// (schema.ts describes every field for editors and users; these types mirror it for the code).
import type { Distribution } from '../../models/sim/index.ts';

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

export type PrintKind = 'describe-topic' | 'list-topics' | 'reassign-verify' | 'delivery-report';

export type PrintSpec =
  | PrintKind
  | { 'describe-topic': string }
  | { 'reassign-verify': string }
  | { 'delivery-report': string }
  | { 'describe-group': string }
  | { 'ingest-metrics': string }
  | { 'ingest-losses': string }
  | { sql: string }
  | { text: string };

/** Workflow B's explicit-partition load producer: sequences start..start+count-1, sequence % partitions. */
export interface ProduceSpec {
  topic: string;
  start: number;
  count: number;
  partitions: number;
  name?: string;
  /** Sequences whose value is written as broken JSON (a bad record: its whole ingest batch fails). */
  invalidJson?: number[];
  /** Records per second (default: all at once, as the Go program does). */
  rate?: number;
}

/** The ingest service crashes after its next successful ingest and before the commit (duplicates follow). */
export interface CrashIngestSpec {
  name: string;
  /** Only when this worker ingests (default: any worker). */
  worker?: number;
  /** Starts the service again after this long (default: it stays down until a `start` step). */
  restartAfter?: DurationText;
}

export interface ReassignSpec {
  json?: string | Record<string, unknown>;
  file?: string;
  throttle?: number;
}

export interface WaitUntilSpec {
  condition: Condition;
  timeout: DurationText;
  poll?: DurationText;
  onTimeout?: 'fail' | 'continue';
}

export interface StepSpec {
  at?: DurationText;
  after?: DurationText;
  label?: string;
  note?: string;
  quiet?: boolean;
  createTopic?: TopicSpec;
  alterTopic?: { name: string; partitions: number };
  deleteTopic?: string;
  reassign?: ReassignSpec;
  start?: string | string[];
  stop?: string | string[];
  crashBroker?: BrokerSelector;
  restartBroker?: BrokerSelector;
  crashController?: ControllerAction;
  restartController?: ControllerAction;
  partition?: NodeRef[][];
  isolate?: NodeRef;
  dropOutbound?: { from: NodeRef; to: NodeRef | NodeRef[] };
  heal?: true;
  slowBroker?: { broker: BrokerSelector; delay: DurationText };
  requestFault?: RequestFaultSpec;
  waitUntil?: WaitUntilSpec;
  print?: PrintSpec;
  produce?: ProduceSpec;
  lakeOutage?: DurationText;
  crashIngest?: CrashIngestSpec;
  run?: DurationText;
}

/** A scripted request fault (cluster.requestFaults): an error, latency or dropped answer for matching requests. */
export interface RequestFaultSpec {
  api: string;
  topic?: string;
  partition?: number;
  client?: string;
  broker?: number;
  error?: string;
  latency?: DurationText;
  dropResponse?: boolean;
  count?: number;
}

export const STEP_ACTIONS = [
  'createTopic',
  'alterTopic',
  'deleteTopic',
  'reassign',
  'start',
  'stop',
  'crashBroker',
  'restartBroker',
  'crashController',
  'restartController',
  'partition',
  'isolate',
  'dropOutbound',
  'heal',
  'slowBroker',
  'requestFault',
  'waitUntil',
  'print',
  'produce',
  'lakeOutage',
  'crashIngest',
  'run',
] as const satisfies readonly (keyof StepSpec)[];

export type StepAction = (typeof STEP_ACTIONS)[number];

export interface PerBrokerCondition {
  topic?: string;
  equals?: Record<string, number>;
  maxSkew?: number;
}

export interface Condition {
  leadersPerBroker?: PerBrokerCondition;
  replicasPerBroker?: PerBrokerCondition;
  ledBy?: { topic: string; broker: number; partitions?: number[] };
  leaderFromIsr?: { topic: string; since: string; partitions?: number[] };
  isr?: { topic: string; partitions?: number[]; size?: Comparison; includes?: number; excludes?: number };
  offsets?: { topic: string; partitions?: number[]; highWatermark?: Comparison; logEndOffset?: Comparison };
  reassignments?: { topic?: string; count: Comparison };
  partitionCount?: { topic: string; count: Comparison };
  delivery?: {
    producer: string;
    sent?: Comparison;
    acknowledged?: Comparison;
    failed?: Comparison;
    lost?: Comparison;
    duplicated?: Comparison;
  };
  producerErrors?: { producer: string; error?: string; count: Comparison };
  consumer?: { name: string; consumed?: Comparison; lag?: Comparison };
  group?: { name: string; assigned?: Comparison; perMember?: Comparison; members?: Comparison };
  perf?: {
    name: string;
    done?: boolean;
    completed?: Comparison;
    minRecordsPerSec?: Comparison;
    maxLatencyMs?: Comparison;
  };
  timing?: { from?: string; fromPoint?: StepPoint; to: string; max?: DurationText; min?: DurationText };
  lakeRows?: { table: string; count: Comparison };
  groupLag?: { group: string; topic?: string; partitions?: number[]; lag: Comparison };
  ingest?: {
    name: string;
    rowsTotal?: Comparison;
    errorsTotal?: Comparison;
    consumeRowsTotal?: Comparison;
    lostBatches?: Comparison;
    lostRecords?: Comparison;
    assigned?: Comparison;
    minPerWorker?: Comparison;
    maxPerWorker?: Comparison;
  };
  invariants?: 'held';
  quorum?: {
    leader?: boolean;
    leaderChanges?: Comparison;
    epoch?: Comparison;
    unavailableMs?: Comparison;
  };
  metadataLoad?: {
    exact?: true;
    committed?: Comparison;
    acknowledged?: Comparison;
  };
  metadataConsistent?: true;
  all?: Condition[];
  any?: Condition[];
  not?: Condition;
}

export const CONDITION_KINDS = [
  'leadersPerBroker',
  'replicasPerBroker',
  'ledBy',
  'leaderFromIsr',
  'isr',
  'offsets',
  'reassignments',
  'partitionCount',
  'delivery',
  'producerErrors',
  'consumer',
  'group',
  'perf',
  'timing',
  'lakeRows',
  'groupLag',
  'ingest',
  'invariants',
  'quorum',
  'metadataLoad',
  'metadataConsistent',
  'all',
  'any',
  'not',
] as const satisfies readonly (keyof Condition)[];

export type ConditionKind = (typeof CONDITION_KINDS)[number];

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

export interface MetricSpec {
  delivery?: { producer: string; field: 'sent' | 'acknowledged' | 'failed' | 'lost' | 'duplicated' };
  producerErrors?: { producer: string; error?: string };
  leadersPerBroker?: { topic?: string; stat: 'max' | 'min' | 'skew' };
  consumer?: { name: string; field: 'consumed' | 'lag' };
  perf?: {
    name: string;
    field: 'completed' | 'recordsPerSec' | 'avgLatencyMs' | 'maxLatencyMs' | 'minRecordsPerSec';
  };
  offsets?: { topic: string; partitions?: number[]; field: 'highWatermark' | 'logEndOffset' };
  timing?: { from?: string; fromPoint?: StepPoint; to: string };
  quorum?: { field: 'leaderChanges' | 'unavailableMs' | 'epoch' };
  metadataLoad?: { field: 'committed' | 'acknowledged' | 'appended' | 'abandoned' };
  errorWindow?: { producer: string; field?: 'windowMs' | 'firstMs' | 'lastMs' | 'maxAckGapMs' };
}

export const METRIC_KINDS = [
  'delivery',
  'producerErrors',
  'leadersPerBroker',
  'consumer',
  'perf',
  'offsets',
  'timing',
  'quorum',
  'metadataLoad',
  'errorWindow',
] as const satisfies readonly (keyof MetricSpec)[];

export interface ScenarioSpec {
  name: string;
  description?: string;
  seed?: number | string;
  /** The virtual wall clock at virtual time 0 (ISO 8601 date-time with a zone, or epoch ms). */
  startTime?: string | number;
  cluster?: ClusterSpec;
  topics?: TopicSpec[];
  clients?: ClientsSpec;
  faults?: FaultsSpec;
  timeline: StepSpec[];
  expectations?: ExpectationSpec[];
  metrics?: Record<string, MetricSpec>;
}
