// The clients a served simulation runs on request: kafka-producer-perf-test and kafka-consumer-perf-test runs
// (printing the tools' own lines, which the CLI streams), steady producers and plain consumers (as a scenario
// declares them). Each keeps its output as chunks tagged stdout/stderr, as the real tool would write them: the
// perf lines to stdout, the producer's log4j WARN lines to stderr (Kafka's tools-log4j.properties logs to stderr).
// Facts: ProducerPerformance.java / ConsumerPerformance.java through src/format. The Workload base class, the
// output chunks and the registry are in workload.ts.
import type {
  AnyConsumer,
  ClientFlavour,
  GroupConsumerConfigInput,
  Producer,
  ProducerConfigInput,
} from '../../models/clients/index.ts';
import {
  ConsumerPerfWorkload,
  consumerConfig,
  groupConsumerConfig,
  ProducerPerfWorkload,
  producerConfig,
  SteadyLoad,
} from '../../models/clients/index.ts';
import {
  type ExplicitProducerOptions,
  type ExplicitProducerRun,
  type IngestConfig,
  IngestConfigError,
  type IngestConfigInput,
  type IngestService,
  ingestConfig,
} from '../../models/lake/index.ts';
import {
  attachProducerLog,
  type Cluster,
  type PerfConsumerReport,
  type PerfProducerReport,
  reportConsumerPerf,
  reportProducerPerf,
} from '../cluster/index.ts';
import {
  CONSUMER_PERF_CLIENT_ID,
  CONSUMER_PERF_REPORTING_INTERVAL_MS,
  formatExplicitProducerSummary,
  PRODUCER_PERF_CLIENT_ID,
} from '../format/index.ts';
import { badRequest, notFound } from './errors.ts';
import { Workload } from './workload.ts';

const PRODUCER_NUMERIC_KEYS = new Set([
  'retries',
  'retry.backoff.ms',
  'retry.backoff.max.ms',
  'delivery.timeout.ms',
  'request.timeout.ms',
  'batch.size',
  'linger.ms',
  'max.in.flight.requests.per.connection',
  'metadata.max.age.ms',
  'sticky.partitioning.linger.ms',
  'topic.metadata.refresh.interval.ms',
]);
const PRODUCER_KEYS = new Set([...PRODUCER_NUMERIC_KEYS, 'client.id', 'acks', 'enable.idempotence']);

/**
 * `--producer-props k=v` strings as the producer model's typed config. Keys the model does not have (e.g.
 * bootstrap.servers, compression.type) are left out: they change nothing in the simulation.
 */
export function producerConfigFromProps(props: Record<string, string>): ProducerConfigInput {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(props)) {
    if (!PRODUCER_KEYS.has(key)) continue;
    const value = raw.trim();
    if (PRODUCER_NUMERIC_KEYS.has(key)) {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n))
        throw badRequest(`Invalid value ${raw} for configuration ${key}`);
      out[key] = n;
    } else if (key === 'enable.idempotence') {
      if (!/^(true|false)$/i.test(value))
        throw badRequest(
          `Invalid value ${raw} for configuration ${key}: Expected value to be either true or false`,
        );
      out[key] = value.toLowerCase() === 'true';
    } else out[key] = value;
  }
  return out as ProducerConfigInput;
}

/** Validates a producer config the way the model will read it (throws 400 instead of failing later). */
function checkedProducerConfig(flavour: ClientFlavour, input: ProducerConfigInput): ProducerConfigInput {
  try {
    producerConfig(flavour, input);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  return input;
}

export interface ProducerPerfSpec {
  topic: string;
  numRecords: number;
  /** Records/s; any negative value means unthrottled, as the tool's --throughput -1. */
  throughput: number;
  recordSize: number;
  props?: Record<string, string>;
  flavour?: ClientFlavour;
  /** Typed config (scenario files); merged over `props`. */
  config?: ProducerConfigInput;
}

/** kafka-producer-perf-test against the simulated cluster. */
export class ProducerPerfRun extends Workload {
  private report: PerfProducerReport | undefined;
  private readonly config: ProducerConfigInput;
  private readonly bufferMemory: number | undefined;

  constructor(
    name: string,
    readonly spec: ProducerPerfSpec,
  ) {
    super(name, 'producer-perf', spec.topic);
    const props = spec.props ?? {};
    this.config = checkedProducerConfig(spec.flavour ?? 'java', {
      'client.id': PRODUCER_PERF_CLIENT_ID,
      ...producerConfigFromProps(props),
      ...spec.config,
    });
    const buffer = props['buffer.memory'];
    if (buffer !== undefined) {
      const n = Number(buffer);
      if (!(Number.isInteger(n) && n > 0))
        throw badRequest(`Invalid value ${buffer} for configuration buffer.memory`);
      this.bufferMemory = n;
    }
  }

  get done(): boolean {
    return this.report?.summary !== undefined;
  }

  protected onStart(cluster: Cluster): void {
    const producer = cluster.producer(this.name, {
      flavour: this.spec.flavour ?? 'java',
      config: this.config,
      keepContent: false,
    });
    attachProducerLog(producer, (text) => this.print('stderr', text));
    const workload = new ProducerPerfWorkload(producer, {
      topic: this.spec.topic,
      numRecords: this.spec.numRecords,
      throughput: this.spec.throughput < 0 ? -1 : this.spec.throughput,
      recordSize: this.spec.recordSize,
      ...(this.bufferMemory !== undefined ? { bufferMemory: this.bufferMemory } : {}),
    });
    this.report = reportProducerPerf(workload, (text) => this.print('stdout', text), {
      windowTimestamps: cluster.storage === 'shared',
    });
    workload.start();
  }

  protected onStop(): void {
    this.report?.workload.stop();
  }

  get producer(): Producer | undefined {
    return this.report?.workload.producer;
  }

  stats(): Record<string, number | string | boolean | null> {
    const w = this.report?.workload;
    const p = w?.producer;
    return {
      num_records: this.spec.numRecords,
      generated: w?.generated ?? 0,
      completed: w?.completed ?? 0,
      acknowledged: p?.recordsAcked ?? 0,
      failed: p?.recordsFailed ?? 0,
      summary: this.report?.summary?.trimEnd() ?? null,
    };
  }
}

export interface ConsumerPerfSpec {
  topic: string;
  messages: number;
  reportingIntervalMs?: number;
  showDetailedStats?: boolean;
  /** No record for this long ends the test (the tool's --timeout, default 10000). */
  timeoutMs?: number;
  fromLatest?: boolean;
  hideHeader?: boolean;
  /** --group; default perf-consumer-<n> (the tool draws n at random; here from the seed). */
  group?: string;
  props?: Record<string, string>;
}

/**
 * kafka-consumer-perf-test against the simulated cluster: a consumer group member (the tool subscribes), with
 * rebalance time counted from the group protocol, rows printed by src/cluster's reporter.
 */
export class ConsumerPerfRun extends Workload {
  private report: PerfConsumerReport | undefined;

  constructor(
    name: string,
    readonly spec: ConsumerPerfSpec,
  ) {
    super(name, 'consumer-perf', spec.topic);
  }

  get done(): boolean {
    return this.report?.result !== undefined;
  }

  protected onStart(cluster: Cluster): void {
    if (!cluster.image.topics[this.spec.topic]) throw notFound(`Topic '${this.spec.topic}' does not exist`);
    // The tool picks `perf-consumer-` + a random number below 100000; a seeded draw keeps runs reproducible.
    const group =
      this.spec.group ?? `perf-consumer-${cluster.sim.rng.stream(`api/${this.name}/group`).int(0, 99_999)}`;
    const consumer = cluster.groupConsumer(this.name, {
      groupId: group,
      topics: [this.spec.topic],
      config: {
        'client.id': this.spec.props?.['client.id'] ?? CONSUMER_PERF_CLIENT_ID,
        'auto.offset.reset': this.spec.fromLatest ? 'latest' : 'earliest',
      },
      start: false,
    });
    const workload = new ConsumerPerfWorkload(consumer, {
      messages: this.spec.messages,
      reportingIntervalMs: this.spec.reportingIntervalMs ?? CONSUMER_PERF_REPORTING_INTERVAL_MS,
      timeoutMs: this.spec.timeoutMs ?? 10_000,
    });
    let header = true;
    this.report = reportConsumerPerf(
      workload,
      (line: string) => {
        // The reporter always prints the header first; --hide-header leaves it out.
        if (header) {
          header = false;
          if (this.spec.hideHeader) return;
        }
        this.print('stdout', `${line}\n`);
      },
      { showDetailedStats: this.spec.showDetailedStats ?? false, epochMs: cluster.sim.startTime },
    );
    // The tool closes its consumer (leaving the group) when it is done.
    workload.onDone(() => consumer.stop());
    workload.start();
  }

  protected onStop(): void {
    this.report?.workload.consumer.stop();
  }

  stats(): Record<string, number | string | boolean | null> {
    const w = this.report?.workload;
    return { messages: this.spec.messages, consumed: w?.messagesRead ?? 0, bytes: w?.bytesRead ?? 0 };
  }
}

export interface SteadyProducerSpec {
  topic: string;
  /** Records per second. */
  rate: number;
  recordSize?: number;
  records?: number;
  keys?: 'none' | 'sequence';
  partition?: number;
  flavour?: ClientFlavour;
  config?: ProducerConfigInput;
}

/** A producer sending `rate` records/s (a scenario's `clients.producers`), in 10 ms ticks. */
export class SteadyProducerRun extends Workload {
  private producer: Producer | undefined;
  private load: SteadyLoad | undefined;
  private readonly config: ProducerConfigInput;

  constructor(
    name: string,
    readonly spec: SteadyProducerSpec,
  ) {
    super(name, 'producer', spec.topic);
    this.config = checkedProducerConfig(spec.flavour ?? 'java', spec.config ?? {});
  }

  get done(): boolean {
    return (
      this.spec.records !== undefined &&
      (this.producer?.recordsAcked ?? 0) + (this.producer?.recordsFailed ?? 0) >= this.spec.records
    );
  }

  protected onStart(cluster: Cluster): void {
    const producer = cluster.producer(this.name, {
      flavour: this.spec.flavour ?? 'java',
      config: this.config,
      keepContent: false,
    });
    this.producer = producer;
    attachProducerLog(producer, (text) => this.print('stderr', text));
    this.load = new SteadyLoad(producer, this.spec, 'api.producer.tick');
    this.load.start();
  }

  protected onStop(): void {
    this.load?.stop();
  }

  get client(): Producer | undefined {
    return this.producer;
  }

  stats(): Record<string, number | string | boolean | null> {
    const p = this.producer;
    return {
      rate: this.spec.rate,
      sent: p?.recordsSent ?? 0,
      acknowledged: p?.recordsAcked ?? 0,
      failed: p?.recordsFailed ?? 0,
    };
  }
}

export interface ConsumerSpec {
  topic: string;
  /** A consumer group to join (subscribe mode); without one the consumer reads in assign mode. */
  group?: string;
  /** Assign mode only: the partitions to read (default all). */
  partitions?: number[];
  flavour?: ClientFlavour;
  /** The consumer's config; the group keys (group.protocol...) only for a group member. */
  config?: GroupConsumerConfigInput;
}

/** A consumer reading a topic: a group member, or in assign mode (a scenario's `clients.consumers`). */
export class ConsumerRun extends Workload {
  private consumer: AnyConsumer | undefined;
  readonly done = false;

  constructor(
    name: string,
    readonly spec: ConsumerSpec,
  ) {
    super(name, 'consumer', spec.topic);
    try {
      if (spec.group !== undefined) groupConsumerConfig(spec.flavour ?? 'java', spec.group, spec.config);
      else consumerConfig(spec.flavour ?? 'java', spec.config ?? {});
    } catch (e) {
      throw badRequest((e as Error).message);
    }
  }

  protected onStart(cluster: Cluster): void {
    const flavour = this.spec.flavour ?? 'java';
    if (this.spec.group !== undefined) {
      this.consumer = cluster.groupConsumer(this.name, {
        groupId: this.spec.group,
        topics: [this.spec.topic],
        flavour,
        ...(this.spec.config ? { config: this.spec.config } : {}),
      });
      return;
    }
    const consumer = cluster.consumer(this.name, { flavour, config: this.spec.config ?? {} });
    this.consumer = consumer;
    const topic = cluster.image.topics[this.spec.topic];
    const partitions = this.spec.partitions ?? topic?.partitions.map((_, i) => i) ?? [];
    consumer.assign(partitions.map((partition) => ({ topic: this.spec.topic, partition })));
  }

  protected onStop(): void {
    this.consumer?.stop();
  }

  stats(): Record<string, number | string | boolean | null> {
    return {
      group: this.spec.group ?? null,
      consumed: this.consumer?.recordsConsumed ?? 0,
      lag: this.consumer?.lag ?? 0,
    };
  }
}

function checkedIngestConfig(input: IngestConfigInput): IngestConfig {
  try {
    return ingestConfig(input);
  } catch (e) {
    if (e instanceof IngestConfigError) throw badRequest(e.message);
    throw e;
  }
}

/**
 * bend-ingest-kafka (source workflow B): the service with the guide's JSON config, consuming the topic in a
 * group and loading batches into the Lake; its log lines (logrus text format) are its stdout, its metrics join
 * /metrics.
 */
export class IngestRun extends Workload {
  service: IngestService | undefined;
  readonly done = false;
  readonly config: IngestConfig;
  private readonly input: IngestConfigInput;

  constructor(name: string, input: IngestConfigInput) {
    const config = checkedIngestConfig(input);
    super(name, 'ingest', config.kafkaTopic);
    this.config = config;
    this.input = input;
  }

  protected onStart(cluster: Cluster): void {
    this.service = cluster.ingestService(this.input, {
      id: this.name,
      log: (line) => this.print('stdout', `${line}\n`),
    });
  }

  protected onStop(): void {
    this.service?.stop();
  }

  stats(): Record<string, number | string | boolean | null> {
    const m = this.service?.metrics;
    return {
      group: this.config.KafkaConsumerGroup,
      table: this.config.lakeTable,
      ingest_rows_total: m?.ingestRowsTotal ?? 0,
      ingest_errors_total: m?.ingestErrorsTotal ?? 0,
      fatal: this.service?.fatal ?? null,
    };
  }
}

/** The guide's explicit-partition load producer: record i (sequence start+i) to partition sequence % partitions. */
export class ExplicitProducerWorkload extends Workload {
  private run: ExplicitProducerRun | undefined;

  constructor(
    name: string,
    readonly options: ExplicitProducerOptions,
  ) {
    super(name, 'explicit-producer', options.topic);
  }

  get done(): boolean {
    return this.run?.done ?? false;
  }

  protected onStart(cluster: Cluster): void {
    this.run = cluster.explicitProducer({ ...this.options, name: this.name });
    this.run.onDone((r) => this.print('stdout', formatExplicitProducerSummary(r)));
  }

  protected onStop(): void {}

  stats(): Record<string, number | string | boolean | null> {
    const r = this.run?.done ? this.run.result() : undefined;
    return {
      start: this.options.start,
      count: this.options.count,
      sent: this.run?.sent ?? 0,
      delivered: this.run?.delivered ?? 0,
      failed: this.run?.failed ?? 0,
      produced: r?.produced ?? null,
    };
  }
}
