// bend-ingest-kafka as a simulated process: `workers` consume workers, each with its own consumer in the group
// (KafkaConsumerGroup), writing into one Lake table. It starts as the service does (main.go,
// ingest_databend.go): connect to the Lake with lakeDSN, CREATE TABLE IF NOT EXISTS the raw-mode table and
// check its columns (raw mode) or require the user's table (JSON-transform mode), then run the workers.
//
// The process is the unit of failure: crash() kills every worker and consumer at once (a Go panic ends the
// process); their group members linger until session.timeout.ms. What the run must be able to show is kept
// here: metrics with the service's names, a rebalance log per worker, every lost batch with its offsets and
// reason, and incidents (a crash between ingest and commit, with the offsets that will be read again).

import type { ClientFlavour, GroupConsumerConfigInput } from '../clients/index.ts';
import type { TopicPartition } from '../group/assignors/index.ts';
import { type NodeId, type RandomStream, SimNode, type Simulation } from '../sim/index.ts';
import type { BadRecord } from './batch-rows.ts';
import { GroupSinkConsumer } from './group-sink-consumer.ts';
import {
  type IngestConfig,
  type IngestConfigInput,
  ingestConfig,
  parseLakeDsn,
  parseLakeTable,
} from './ingest-config.ts';
import { DEFAULT_INGEST_TIMINGS, type IngestTimings } from './ingest-timing.ts';
import { type IngestJob, IngestWorker, type WorkerHost } from './ingest-worker.ts';
import type { Lake } from './lake.ts';
import type { OffsetRange } from './ledger.ts';
import { IngestMetrics } from './metrics.ts';
import type { SinkConsumer } from './sink-consumer.ts';

export interface RebalanceLogEntry {
  time: number;
  worker: number;
  clientId: string;
  event: 'assigned' | 'revoked';
  partitions: TopicPartition[];
}

export interface LossEntry {
  time: number;
  worker: number;
  ranges: OffsetRange[];
  records: number;
  reason: string;
  /** The record that failed the batch, when one did. */
  badRecord?: BadRecord;
}

export interface Incident {
  time: number;
  kind: 'crash-between-ingest-and-commit';
  worker: number;
  /** Offsets written to the Lake but not committed: the next owner reads them again. */
  ranges: OffsetRange[];
  records: number;
}

/** Makes worker `index`'s consumer (a test can put a stand-in here). */
export type SinkConsumerFactory = (index: number, clientId: string, service: IngestService) => SinkConsumer;

export interface IngestServiceOptions {
  lake: Lake;
  /** Broker node ids (what kafkaBootstrapServers stands for in the simulation). */
  bootstrap: NodeId[];
  /** The process's node id. Default `bend-ingest-kafka`. */
  id?: NodeId;
  /** librdkafka settings on top of the service's (auto.offset.reset=earliest, ...): what-if variants. */
  kafkaConfig?: GroupConsumerConfigInput;
  /**
   * The workers' client library. bend-ingest-kafka is a Go program on confluent-kafka-go, so librdkafka (the
   * default); `java` asks what the same service would do on the Java consumer (a what-if: its assignor
   * protocols and rebalance timing). The service's settings keep their meaning in both.
   */
  flavour?: ClientFlavour;
  /**
   * The workers' consumers: `group-protocol` (default) = group members on the brokers' coordinators
   * (models/group); or a factory.
   */
  consumers?: 'group-protocol' | SinkConsumerFactory;
  timings?: Partial<IngestTimings>;
  /** Receives every log line (logrus text format). */
  log?: (line: string) => void;
}

export class IngestService extends SimNode implements WorkerHost {
  readonly config: IngestConfig;
  readonly lake: Lake;
  readonly target: { database: string; table: string };
  readonly dsn: ReturnType<typeof parseLakeDsn>;
  readonly timings: IngestTimings;
  readonly metrics = new IngestMetrics();
  readonly rebalanceLog: RebalanceLogEntry[] = [];
  readonly losses: LossEntry[] = [];
  readonly incidents: Incident[] = [];
  readonly logLines: string[] = [];
  /** Why the service could not start, if it could not. */
  fatal: string | undefined;
  workers: IngestWorker[] = [];
  readonly consumers: SinkConsumer[] = [];
  private readonly bootstrap: NodeId[];
  private readonly kafkaConfig: GroupConsumerConfigInput;
  private readonly consumerFactory: SinkConsumerFactory;
  private readonly out: ((line: string) => void) | undefined;
  private crashArmed: { worker: number | undefined; restartAfterMs: number | undefined } | undefined;
  private uuidStream: RandomStream | undefined;

  constructor(sim: Simulation, config: IngestConfigInput | string, options: IngestServiceOptions) {
    super(sim, options.id ?? 'bend-ingest-kafka');
    this.config = ingestConfig(config);
    this.lake = options.lake;
    this.dsn = parseLakeDsn(this.config.lakeDSN);
    this.target = parseLakeTable(this.config.lakeTable, this.dsn.database);
    this.timings = { ...DEFAULT_INGEST_TIMINGS, ...options.timings };
    this.bootstrap = options.bootstrap;
    this.kafkaConfig = options.kafkaConfig ?? {};
    this.out = options.log;
    const consumers = options.consumers ?? 'group-protocol';
    if (typeof consumers === 'function') this.consumerFactory = consumers;
    else
      this.consumerFactory = (_i, clientId, svc) =>
        new GroupSinkConsumer(sim, clientId, {
          flavour: options.flavour ?? 'librdkafka',
          groupId: svc.config.KafkaConsumerGroup,
          topic: svc.config.kafkaTopic,
          bootstrap: svc.bootstrap,
          config: svc.consumerConfig(),
        });
  }

  /**
   * The librdkafka settings batch_reader.go sets, then the what-if overrides. The what-if
   * `group.protocol: consumer` (KIP-848) also drops partition.assignment.strategy, which librdkafka refuses in that
   * mode: it assumes a service changed to stop setting it (as published, the service would fail to start).
   */
  consumerConfig(): GroupConsumerConfigInput {
    const consumerProtocol = this.kafkaConfig['group.protocol'] === 'consumer';
    return {
      'group.id': this.config.KafkaConsumerGroup,
      'auto.offset.reset': 'earliest',
      'enable.auto.commit': false,
      'fetch.min.bytes': this.config.minBytes,
      'fetch.max.wait.ms': this.config.maxWait * 1000,
      'topic.metadata.refresh.interval.ms': this.config.topicMetadataRefreshIntervalMs,
      ...(consumerProtocol
        ? {}
        : { 'partition.assignment.strategy': this.config.partitionAssignmentStrategy }),
      ...this.kafkaConfig,
    };
  }

  get uuidRandom(): RandomStream {
    this.uuidStream ??= this.random('uuid');
    return this.uuidStream;
  }

  protected override onStart(): void {
    this.fatal = undefined;
    const problem = this.checkLake();
    if (problem) {
      this.fatal = problem;
      this.logLine('fatal', problem);
      // A Fatal log ends the process.
      this.schedule(0, () => this.stop(), 'ingest.fatal');
      return;
    }
    this.logLine('info', `Starting ${this.config.workers} workers for topic ${this.config.kafkaTopic}`);
    if (this.consumers.length === 0)
      for (let i = 0; i < this.config.workers; i++) {
        const c = this.consumerFactory(i, `${this.id}-worker-${i}`, this);
        c.onReadable(() => this.workers[i]?.onReadable());
        this.consumers.push(c);
      }
    this.workers = this.consumers.map((c, i) => new IngestWorker(i, c, this));
    for (const [i, w] of this.workers.entries()) {
      this.logLine('info', `Starting worker worker-${i}`);
      this.consumers[i]!.start();
      w.start();
    }
  }

  /** What main.go checks before it starts the workers; a message when the service cannot run. */
  private checkLake(): string | undefined {
    const { lake, dsn, target } = this;
    if (!lake.available) return `Failed to connect to the lake at ${dsn.host}: connection refused`;
    if (!lake.authenticate(dsn.user, dsn.password))
      return `Failed to connect to the lake at ${dsn.host}: authentication failed for user '${dsn.user}'`;
    if (!lake.hasDatabase(target.database)) return `Unknown database '${target.database}'`;
    if (this.config.isJsonTransform) {
      if (!lake.table(target.database, target.table))
        return `Unknown table '${target.database}'.'${target.table}' (JSON-transform mode writes into a table you create)`;
      return undefined;
    }
    const missing = lake.createRawTable(target.database, target.table);
    if (missing.length > 0)
      return `table ${target.database}.${target.table} lacks the raw-mode columns ${missing.join(', ')}`;
    return undefined;
  }

  protected override onCrash(): void {
    for (const w of this.workers) w.stop();
    for (const c of this.consumers) c.crash();
    this.workers = [];
  }

  protected override onStop(): void {
    for (const w of this.workers) w.stop();
    // SIGTERM: Close() leaves the group.
    for (const c of this.consumers) c.close();
    this.workers = [];
  }

  // ---- faults ----------------------------------------------------------------------------------------------

  /**
   * The process crashes right after the next successful ingest (of `worker`, or of any worker) and before its
   * commit: its rows are in the Lake, its offsets are not committed. With `restartAfter`, it starts again.
   */
  crashBeforeNextCommit(options: { worker?: number; restartAfter?: number } = {}): void {
    this.crashArmed = { worker: options.worker, restartAfterMs: options.restartAfter };
  }

  /** The clock, for the workers. */
  now(): number {
    return this.sim.now;
  }

  /** @internal a worker asks after a successful ingest, before its commit (see WorkerHost). */
  crashBeforeCommit(job: IngestJob): boolean {
    const armed = this.crashArmed;
    if (!armed || (armed.worker !== undefined && armed.worker !== job.worker)) return false;
    this.crashArmed = undefined;
    this.incidents.push({
      time: this.sim.now,
      kind: 'crash-between-ingest-and-commit',
      worker: job.worker,
      ranges: job.ranges.map((r) => ({ ...r })),
      records: job.count,
    });
    this.logLine(
      'fatal',
      `worker-${job.worker} crashed after ingesting ${job.count} rows, before committing them`,
    );
    this.crash();
    if (armed.restartAfterMs !== undefined)
      this.sim.schedule(armed.restartAfterMs, () => this.start(), 'ingest.restart');
    return true;
  }

  // ---- records for the run ---------------------------------------------------------------------------------

  /** @internal */
  recordLoss(job: IngestJob, reason: string, badRecord: BadRecord | undefined): void {
    this.losses.push({
      time: this.sim.now,
      worker: job.worker,
      ranges: job.ranges.map((r) => ({ ...r })),
      records: job.count,
      reason,
      ...(badRecord ? { badRecord } : {}),
    });
    this.emit('ingest.batch-lost', { worker: job.worker, records: job.count, reason });
  }

  /** @internal */
  logRebalance(
    worker: number,
    clientId: string,
    event: 'assigned' | 'revoked',
    partitions: readonly TopicPartition[],
  ) {
    const list = partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
    this.rebalanceLog.push({ time: this.sim.now, worker, clientId, event, partitions: list });
    const text = list.map((p) => `${p.topic}[${p.partition}]@unset`).join(' ');
    this.logLine(
      'info',
      `kafka_rebalance: Partitions ${event === 'assigned' ? 'assigned' : 'revoked'}: [${text}]`,
      worker,
    );
  }

  /** @internal */
  logError(message: string, worker?: number): void {
    this.logLine('error', message, worker);
  }

  private logLine(level: 'info' | 'error' | 'fatal', msg: string, worker?: number): void {
    // logrus' TextFormatter with its default timestamp format (time.RFC3339): whole seconds, UTC as `Z`.
    const time = new Date(this.lake.epochMs + Math.floor(this.sim.now))
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    const line = `time="${time}" level=${level} msg=${JSON.stringify(msg)}${worker === undefined ? '' : ` worker=worker-${worker}`}`;
    this.logLines.push(line);
    this.out?.(line);
  }

  /** The latest assignment each worker logged. */
  currentAssignment(): TopicPartition[][] {
    const out: TopicPartition[][] = this.consumers.map(() => []);
    for (const e of this.rebalanceLog) out[e.worker] = e.event === 'assigned' ? e.partitions : [];
    return out;
  }

  /**
   * Which records the run lost and why, and which it will see twice: one line per lost batch (its offsets, the
   * reason, the bad record) and per crash between ingest and commit. Times are virtual seconds.
   */
  lossReport(): string {
    const ranges = (rs: readonly OffsetRange[]) =>
      rs.map((r) => `${r.topic}[${r.partition}]@${r.from}-${r.to}`).join(' ');
    const at = (t: number) => `${(t / 1000).toFixed(3)}s`;
    const lines = [
      ...this.losses.map(
        (l) =>
          `${at(l.time)} worker-${l.worker} LOST ${l.records} records ${ranges(l.ranges)}: ${l.reason}${l.badRecord ? ` (not retried: the batch file cannot be built)` : ' (retries exhausted)'}`,
      ),
      ...this.incidents.map(
        (i) =>
          `${at(i.time)} worker-${i.worker} crashed between ingest and commit: ${i.records} records ${ranges(i.ranges)} are in the Lake but not committed (read again: duplicates unless useReplaceMode)`,
      ),
    ];
    const lost = this.losses.reduce((n, l) => n + l.records, 0);
    lines.push(
      `${this.id}: ${this.losses.length} batch(es) lost, ${lost} record(s); ${this.incidents.length} crash(es) between ingest and commit`,
    );
    return `${lines.join('\n')}\n`;
  }

  /** Log lines at level error or fatal (what the guide greps for). */
  errorLines(): string[] {
    return this.logLines.filter((l) => / level=(error|fatal) /.test(l));
  }
}
