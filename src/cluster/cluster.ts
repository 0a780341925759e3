// The composition root: builds a simulated cluster (controller, brokers, storage, clients) from options and
// gives tests, scenarios and the API one object to drive it with: admin operations that take virtual time,
// clients, faults, run control and read-only views.
//
// `Cluster` is the one facade the library, the scenario runner and the HTTP API drive (docs/library-api.md), so its
// public surface stays one class. Its methods are thin: the work is in the models and in this folder's other files
// (cluster-options.ts, controller-quorum.ts, admin.ts, group-admin.ts, views.ts, reporters.ts, request-faults.ts,
// quorum-status.ts, startup.ts); `listen` is added by src/api/cluster-listen.ts.

import { AutoBalancer, AutoBalancerMetricsReporter, decisionLogLines } from '../../models/balancer/index.ts';
import { Broker, DataPlaneInvariants } from '../../models/broker/index.ts';
import {
  AdminClient,
  type AnyConsumer,
  type ClientFlavour,
  Consumer,
  type ConsumerConfigInput,
  ConsumerPerfWorkload,
  GroupConsumer,
  type GroupConsumerConfigInput,
  type GroupConsumerOptions,
  Producer,
  type ProducerConfigInput,
  ProducerPerfWorkload,
} from '../../models/clients/index.ts';
import type { MetadataAppendLoad, QuorumController } from '../../models/controller/index.ts';
import { partitionForGroup } from '../../models/group/index.ts';
import {
  type ExplicitProducerOptions,
  ExplicitProducerRun,
  type IngestConfigInput,
  IngestService,
  type IngestServiceOptions,
  Lake,
  LakeHttpApi,
  type LakeOptions,
  parseLakeDsn,
} from '../../models/lake/index.ts';
import type { MetadataImage } from '../../models/metadata/index.ts';
import { describeTopicConfigs } from '../../models/metadata/index.ts';
import { brokerNodeId, controllerNodeId, OFFSETS_TOPIC } from '../../models/protocol/index.ts';
import { type NodeId, type RunUntilOptions, Simulation } from '../../models/sim/index.ts';
import { type PartitionLog, SharedStorage, type StorageMode } from '../../models/storage/index.ts';
import type { ConsumerGroupView, ToolOutput } from '../format/index.ts';
import { formatExplicitProducerSummary } from '../format/index.ts';
import { ClusterAdmin } from './admin.ts';
import type { BrokerSpec, ClusterOptions } from './cluster-options.ts';
import { type PerfConsumerReport, reportConsumerPerf } from './consumer-perf-reporter.ts';
import { buildControllerQuorum } from './controller-quorum.ts';
import { type DeliveryReport, DeliveryTracker } from './delivery-check.ts';
import {
  consumerGroupView,
  type DescribeGroupOptions,
  describeConsumerGroup,
  listConsumerGroups,
} from './group-admin.ts';
import {
  ControllerActivity,
  type MetadataLoadStatus,
  metadataLoadStatusOf,
  type QuorumStatus,
  quorumStatusOf,
} from './quorum-status.ts';
import { attachProducerLog, type PerfProducerReport, reportProducerPerf } from './reporters.ts';
import { RequestFaults } from './request-faults.ts';
import { StartupTimes } from './startup.ts';
import { describeTopic as describeTopicView } from './views.ts';

export type { BrokerSpec, ClusterOptions } from './cluster-options.ts';
export { CONTROLLER_NODE, FIRST_CONTROLLER_ID } from './cluster-options.ts';
export type { MetadataLoadStatus, QuorumStatus } from './quorum-status.ts';

export class Cluster {
  readonly sim: Simulation;
  /** The first controller (controller-3000); with a quorum, see `controllers` and `activeController()`. */
  readonly controller: QuorumController;
  /** Every controller, by node id order. */
  readonly controllers: readonly QuorumController[];
  readonly brokers = new Map<number, Broker>();
  readonly storage: StorageMode;
  readonly shared: SharedStorage | undefined;
  readonly admin: ClusterAdmin;
  /** Start-up times of operators' tools and client processes (scenarios and the CLI use them). */
  readonly startup: StartupTimes;
  /** Tool-format lines printed so far (when no `out` was given). */
  readonly output: string[] = [];
  readonly out: (line: string) => void;
  /** The auto-balancer, when `autobalancer` was given. */
  readonly balancer: AutoBalancer | undefined;
  /** Each broker's auto-balancer metrics reporter, when the balancer runs. */
  readonly metricsReporters = new Map<number, AutoBalancerMetricsReporter>();
  /** The metadata append load on each controller, when `metadataLoad` was given. */
  readonly metadataLoads: readonly MetadataAppendLoad[];
  /** The data-plane invariants, unless turned off (acks=all deliveries of `producer()`s feed them). */
  readonly dataPlane: DataPlaneInvariants | undefined;
  /** Who was active when: for leader-change counts and the time without an active controller. */
  readonly #activity = new ControllerActivity();
  private readonly trackers = new Map<string, DeliveryTracker>();
  private readonly clients = new Map<string, Producer | AnyConsumer>();
  /** Group members created per group id (Java's default client.id counts them: consumer-<group>-<n>). */
  private readonly groupMemberCounts = new Map<string, number>();
  private readonly lakeOptions: LakeOptions | undefined;

  constructor(options: ClusterOptions = {}) {
    this.lakeOptions = options.lake;
    this.sim = new Simulation({
      seed: options.seed ?? 1,
      defaultLatency: options.latency ?? { kind: 'lognormal', median: 0.5, sigma: 0.3, min: 0.1 },
      ...(options.invariantEvery !== undefined ? { invariantEvery: options.invariantEvery } : {}),
      ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
      ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
    });
    this.out = options.out ?? ((line) => this.output.push(line));
    this.startup = new StartupTimes(this.sim, {
      ...(options.toolStartup ? { tool: options.toolStartup } : {}),
      ...(options.clientStartup ? { client: options.clientStartup } : {}),
    });
    this.storage = options.storage ?? 'kafka';
    this.shared = this.storage === 'shared' ? new SharedStorage() : undefined;
    const quorum = buildControllerQuorum(this.sim, options, this.storage, (c, event) => {
      if (event === 'active') this.#activity.activated(c.id, this.sim.now);
      else if (event === 'inactive') this.#activity.deactivated(c.id, this.sim.now);
    });
    this.controllers = quorum.controllers;
    this.controller = this.controllers[0]!;
    const controllerIds = this.controllers.map((c) => c.id);
    this.metadataLoads = quorum.metadataLoads;
    const specs: BrokerSpec[] =
      typeof options.brokers === 'object'
        ? options.brokers
        : Array.from({ length: options.brokers ?? 3 }, (_, i) => ({ id: (options.firstBrokerId ?? 0) + i }));
    if (specs.length === 0) throw new Error('a cluster needs at least one broker');
    for (const spec of specs) {
      if (this.brokers.has(spec.id)) throw new Error(`broker id ${spec.id} is used twice`);
      this.brokers.set(
        spec.id,
        new Broker(this.sim, {
          brokerId: spec.id,
          rack: spec.rack ?? null,
          controllers: controllerIds,
          storageMode: this.storage,
          ...(this.shared ? { sharedStorage: this.shared } : {}),
          ...(options.brokerConfig ? { config: options.brokerConfig } : {}),
          ...(options.serverProperties ? { staticConfigs: options.serverProperties } : {}),
        }),
      );
    }
    if (options.dataPlaneInvariants ?? true) {
      this.dataPlane = new DataPlaneInvariants(this.sim, {
        brokers: [...this.brokers.values()],
        committed: (topic, partition) => {
          const t = this.latestCommittedImage().topics[topic];
          const reg = t?.partitions[partition];
          return t && reg ? { topicId: t.topicId, isr: reg.isr } : undefined;
        },
        committedVersion: () => this.latestCommittedImage(),
      });
      this.dataPlane.register();
    }
    if (options.autobalancer) {
      // Every controller carries the balancer; it acts on the active one and moves with it.
      const balancer = new AutoBalancer(this.controllers, {
        ...(typeof options.autobalancer === 'object' ? { config: options.autobalancer } : {}),
        ...(options.balancerGoals ? { goals: options.balancerGoals } : {}),
      });
      this.balancer = balancer;
      if (options.balancerLog ?? true) {
        this.sim.trace.subscribe((e) => {
          if (e.kind.startsWith('balancer.')) for (const line of decisionLogLines(e)) this.out(line);
        });
      }
      for (const [id, broker] of this.brokers) {
        const reporter = new AutoBalancerMetricsReporter(broker, {
          controllers: controllerIds,
          // A broker key in AutoMQ; kafkasim keeps one effective value for the whole cluster.
          reportingIntervalMs: () => balancer.config['autobalancer.reporter.metrics.reporting.interval.ms'],
        });
        this.metricsReporters.set(id, reporter.start());
      }
    } else if (options.balancerGoals) {
      throw new Error('balancerGoals needs the auto-balancer (autobalancer: true or its keys)');
    }
    this.admin = new ClusterAdmin(
      this.sim,
      new AdminClient(this.sim, 'admin', { controllers: controllerIds, bootstrap: this.bootstrap() }),
    );
  }

  /** Starts the controller and brokers and runs until every broker is registered and unfenced. */
  start(timeout: number | string = '30s'): this {
    for (const c of this.controllers) c.start();
    for (const b of this.brokers.values()) b.start();
    this.admin.client.start();
    this.sim.runUntil(
      () => [...this.brokers.values()].every((b) => b.up && !b.fenced && b.brokerEpoch >= 0),
      {
        timeout,
        description: 'all brokers registered and unfenced',
      },
    );
    return this;
  }

  /**
   * The committed metadata image with the highest offset any controller has ever held. What a majority committed
   * stays committed even while no live controller knows it yet (the one that learned it crashed and replays, the
   * others have the entry but not the news that it committed), so the newest image seen is kept, never an older
   * one.
   */
  latestCommittedImage(): MetadataImage {
    let best = this.#committedHigh;
    for (const c of this.controllers)
      if (best === undefined || c.committedImage.offset > best.offset) best = c.committedImage;
    this.#committedHigh = best;
    return best!;
  }

  #committedHigh: MetadataImage | undefined;

  bootstrap(): NodeId[] {
    return [...this.brokers.keys()].map(brokerNodeId);
  }

  broker(id: number): Broker {
    const b = this.brokers.get(id);
    if (!b) throw new Error(`no broker ${id} (brokers: ${[...this.brokers.keys()].join(', ')})`);
    return b;
  }

  // ---- clients ---------------------------------------------------------------------------------------------

  /** Creates and starts a producer whose deliveries are tracked for the no-loss check. */
  producer(
    name: string,
    options: { flavour?: ClientFlavour; config?: ProducerConfigInput; keepContent?: boolean } = {},
  ): Producer {
    const p = new Producer(this.sim, name, { bootstrap: this.bootstrap(), ...options });
    const tracker = new DeliveryTracker(name);
    p.onDelivery((r) => tracker.note(r));
    const dataPlane = this.dataPlane;
    if (dataPlane && p.config.acks === -1) {
      p.onDelivery((r) => {
        if (!r.error && r.baseOffset >= 0 && r.count > 0)
          dataPlane.acknowledged({
            topic: r.topic,
            partition: r.partition,
            baseOffset: r.baseOffset,
            count: r.count,
            origin: p.id,
            firstIndex: r.runs[0]!.index,
          });
      });
    }
    this.trackers.set(name, tracker);
    this.clients.set(name, p);
    p.start();
    return p;
  }

  consumer(name: string, options: { flavour?: ClientFlavour; config?: ConsumerConfigInput } = {}): Consumer {
    const c = new Consumer(this.sim, name, { bootstrap: this.bootstrap(), ...options });
    this.clients.set(name, c);
    c.start();
    return c;
  }

  /**
   * Creates and starts a consumer group member (subscribe mode) on `topics`. Java members get the client.id
   * `consumer-<group>-<n>` (n counting this group's members), librdkafka ones `rdkafka`, unless configured.
   */
  groupConsumer(
    name: string,
    options: Omit<GroupConsumerOptions, 'bootstrap' | 'clientSequence'> & { start?: boolean },
  ): GroupConsumer {
    const n = (this.groupMemberCounts.get(options.groupId) ?? 0) + 1;
    this.groupMemberCounts.set(options.groupId, n);
    const { start, ...rest } = options;
    const c = new GroupConsumer(this.sim, name, { ...rest, bootstrap: this.bootstrap(), clientSequence: n });
    this.clients.set(name, c);
    if (start !== false) c.start();
    return c;
  }

  /**
   * kafka-producer-perf-test: starts a producer (client id perf-producer-client by default) and the workload,
   * printing the tool's lines (and the producer's WARN lines) to `out`.
   */
  producerPerfTest(options: {
    topic: string;
    numRecords: number;
    throughput: number;
    recordSize: number;
    name?: string;
    flavour?: ClientFlavour;
    config?: ProducerConfigInput;
  }): PerfProducerReport {
    const name = options.name ?? 'perf-producer';
    const producer = this.producer(name, {
      ...(options.flavour ? { flavour: options.flavour } : {}),
      config: { 'client.id': 'perf-producer-client', ...options.config },
      keepContent: false,
    });
    attachProducerLog(producer, this.out);
    const workload = new ProducerPerfWorkload(producer, options);
    // On shared storage the tools are AutoMQ's, whose perf test stamps each window line.
    const report = reportProducerPerf(workload, this.out, { windowTimestamps: this.storage === 'shared' });
    workload.start();
    return report;
  }

  /**
   * kafka-consumer-perf-test: a group member (client id perf-consumer-client, group perf-consumer-<n>,
   * auto.offset.reset earliest unless `fromLatest`) reading `messages` records from `topic`, printing the header
   * and, with `showDetailedStats`, a row per reporting interval, otherwise the summary row, to `out`.
   */
  consumerPerfTest(options: {
    topic: string;
    messages: number;
    group?: string;
    name?: string;
    showDetailedStats?: boolean;
    reportingIntervalMs?: number;
    timeoutMs?: number;
    fromLatest?: boolean;
    flavour?: ClientFlavour;
    config?: GroupConsumerConfigInput;
    /** Virtual time 0 as epoch milliseconds for the printed dates (default: the run's `startTime`). */
    epochMs?: number;
  }): PerfConsumerReport {
    // The tool picks `perf-consumer-` + a random number below 100000; a seeded draw keeps runs reproducible.
    const group =
      options.group ?? `perf-consumer-${this.sim.rng.stream('perf-consumer/group').int(0, 99_999)}`;
    const consumer = this.groupConsumer(options.name ?? 'perf-consumer', {
      groupId: group,
      topics: [options.topic],
      ...(options.flavour ? { flavour: options.flavour } : {}),
      config: {
        'client.id': 'perf-consumer-client',
        'auto.offset.reset': options.fromLatest ? 'latest' : 'earliest',
        ...options.config,
      },
      start: false,
    });
    const workload = new ConsumerPerfWorkload(consumer, {
      messages: options.messages,
      ...(options.reportingIntervalMs !== undefined
        ? { reportingIntervalMs: options.reportingIntervalMs }
        : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    const report = reportConsumerPerf(workload, this.out, {
      showDetailedStats: options.showDetailedStats ?? false,
      epochMs: options.epochMs ?? this.sim.startTime,
    });
    workload.start();
    return report;
  }

  // ---- faults ----------------------------------------------------------------------------------------------

  /** The controller that serves requests now (the Raft leader with a quorum), if any. */
  activeController(): QuorumController | undefined {
    return this.controllers.find((c) => c.ready);
  }

  /** A controller by node id (3000...) or network id (controller-3000). */
  controllerNode(id: number | NodeId): QuorumController {
    const c = this.controllers.find(
      (x) => x.id === id || (typeof id === 'number' && x.id === controllerNodeId(id)),
    );
    if (!c)
      throw new Error(`no controller ${id} (controllers: ${this.controllers.map((x) => x.id).join(', ')})`);
    return c;
  }

  /**
   * The metadata quorum as the run saw it: the current Raft epoch and leader, how often the active controller
   * changed, and how long no controller was active after the first became active.
   */
  quorumStatus(): QuorumStatus {
    return quorumStatusOf(this.controllers, this.activeController(), this.#activity, this.sim.now);
  }

  /**
   * The metadata append load summed over the controllers: appends made, committed (acknowledged) and abandoned
   * by a failover; the counter value committed on the active controller (else the highest on a running one);
   * the highest acknowledged value; the first broken sequence, if any. Undefined without `metadataLoad`.
   */
  metadataLoadStatus(): MetadataLoadStatus | undefined {
    return metadataLoadStatusOf(this.metadataLoads, this.activeController());
  }

  crashController(id: number | NodeId): void {
    this.controllerNode(id).crash();
  }

  restartController(id: number | NodeId): void {
    const c = this.controllerNode(id);
    if (c.up) c.crash();
    c.start();
  }

  crashBroker(id: number): void {
    this.broker(id).crash();
  }

  restartBroker(id: number): void {
    const b = this.broker(id);
    if (b.up) b.crash();
    b.start();
  }

  // ---- run control -----------------------------------------------------------------------------------------

  runFor(duration: number | string): this {
    this.sim.runFor(duration);
    return this;
  }

  runUntil(predicate: () => boolean, options: RunUntilOptions = {}): number {
    return this.sim.runUntil(predicate, options);
  }

  get now(): number {
    return this.sim.now;
  }

  // ---- views -----------------------------------------------------------------------------------------------

  /** The controller's committed metadata image. */
  get image(): MetadataImage {
    return (this.activeController() ?? this.controller).image;
  }

  /** A live broker to read from (the first by id), as a tool's bootstrap connection would. */
  /** The ids of the brokers that are up, read as iterated (a request in between may crash or restart one). */
  *liveBrokerIds(): Generator<number> {
    for (const b of this.brokers.values()) if (b.up) yield b.brokerId;
  }

  liveBroker(): Broker {
    for (const b of this.brokers.values()) if (b.up) return b;
    throw new Error('no broker is up');
  }

  /** `kafka-topics --describe --topic <name>` as it would print now. */
  describeTopic(name: string, opts: { elr?: boolean } = {}): string {
    const b = this.liveBroker();
    return describeTopicView(b.image, name, describeTopicConfigs(b.image, name, b.staticConfigs), opts);
  }

  /** The authoritative log of each partition of a topic (its leader's, or the shared one). */
  partitionLogs(topic?: string): PartitionLog[] {
    const out: PartitionLog[] = [];
    const img = this.image;
    for (const t of Object.values(img.topics)) {
      if (topic !== undefined && t.name !== topic) continue;
      t.partitions.forEach((reg, p) => {
        const log = this.shared
          ? this.shared.get(t.topicId, p)
          : reg.leader >= 0
            ? this.brokers.get(reg.leader)?.replicas.get(`${t.topicId}:${p}`)?.log
            : undefined;
        if (log) out.push(log);
      });
    }
    return out;
  }

  // ---- consumer groups -------------------------------------------------------------------------------------

  /** The broker that coordinates a group now (leader of its __consumer_offsets partition), or -1. */
  groupCoordinator(groupId: string): number {
    const topic = this.image.topics[OFFSETS_TOPIC];
    if (!topic) return -1;
    return topic.partitions[partitionForGroup(groupId, topic.partitions.length)]?.leader ?? -1;
  }

  /** The group as kafka-consumer-groups sees it (state, members, committed and log end offsets). */
  groupView(groupId: string): ConsumerGroupView {
    return consumerGroupView(this.admin, () => this.liveBroker(), groupId);
  }

  /** `kafka-consumer-groups --describe --group <g>` [--state | --members [--verbose]]: stdout and stderr. */
  describeGroup(groupId: string, options: DescribeGroupOptions = {}): ToolOutput {
    return describeConsumerGroup(this.admin, () => this.liveBroker(), groupId, options);
  }

  /** `kafka-consumer-groups --list` with each group's state. */
  listGroups(): { groupId: string; state: string }[] {
    return listConsumerGroups(this.admin, this.liveBrokerIds());
  }

  // ---- the Lake and its sink (workflow B) ------------------------------------------------------------------

  private lakeState: { lake: Lake; api: LakeHttpApi | undefined } | undefined;
  private explicitProducers = 0;

  /** The Lake (a Databend-compatible warehouse on DuckDB, loaded on the first query). Created on first use. */
  get lake(): Lake {
    this.lakeState ??= { lake: new Lake(this.sim, this.lakeOptions), api: undefined };
    return this.lakeState.lake;
  }

  /** The Lake if anything used it yet (a read that must not create it: the snapshot). */
  get lakeIfUsed(): Lake | undefined {
    return this.lakeState?.lake;
  }

  /** The Lake's Databend HTTP API as a handler (POST /v1/query, GET /health), for the HTTP server to mount. */
  get lakeApi(): LakeHttpApi {
    const lake = this.lake;
    const state = this.lakeState!;
    state.api ??= new LakeHttpApi(lake);
    return state.api;
  }

  /**
   * Starts a bend-ingest-kafka service with the workflow's JSON config (object or text). The Lake accepts the
   * lakeDSN's user, as the guide's warehouse is set up for it. Its log lines go to `out` unless `log` is given.
   */
  ingestService(
    config: IngestConfigInput | string,
    options: Omit<IngestServiceOptions, 'lake' | 'bootstrap'> & { start?: boolean } = {},
  ): IngestService {
    const { start, ...rest } = options;
    const svc = new IngestService(this.sim, config, {
      lake: this.lake,
      bootstrap: this.bootstrap(),
      log: this.out,
      ...rest,
    });
    const dsn = parseLakeDsn(svc.config.lakeDSN);
    // A user the Lake already has keeps its password (a wrong one in the DSN fails the service's login).
    if (!this.lake.hasUser(dsn.user)) this.lake.addUser(dsn.user, dsn.password);
    if (start !== false) svc.start();
    return svc;
  }

  /**
   * Workflow B's explicit-partition load producer (a new librdkafka producer process per run): prints
   * `produced=N remaining=0 failed=0 elapsed=... rate=... msg/s` to `out` when it is done.
   */
  explicitProducer(
    options: ExplicitProducerOptions & { name?: string; config?: ProducerConfigInput },
  ): ExplicitProducerRun {
    const name = options.name ?? `explicit-producer-${++this.explicitProducers}`;
    // The guide's producer: confluent-kafka-go with linger.ms=20, batch.num.messages=10000.
    const producer = this.producer(name, {
      flavour: 'librdkafka',
      config: { 'client.id': name, 'linger.ms': 20, ...options.config },
    });
    const run = new ExplicitProducerRun(producer, options);
    run.onDone((r) => this.out(formatExplicitProducerSummary(r).trimEnd()));
    // A new process asks for metadata before its first Produce.
    producer.schedule(0, () => run.start(), 'explicit-producer.start');
    return run;
  }

  /**
   * Scripted request faults (an error, added latency or a dropped answer for requests matched by API, topic,
   * partition, client and broker), for simulated and real clients alike: `cluster.requestFaults.add({ api:
   * 'Produce', topic: 'orders', partition: 0, error: 'NOT_LEADER_OR_FOLLOWER', count: 3 })`.
   */
  get requestFaults(): RequestFaults {
    return (this.#requestFaults ??= new RequestFaults(this.sim));
  }

  #requestFaults: RequestFaults | undefined;

  /** Registers the delivery tracker of a producer that is not a simulated one (a real client on the Kafka listener). */
  trackDelivery(name: string, tracker: DeliveryTracker): void {
    this.trackers.set(name, tracker);
  }

  /** Exact accounting of one producer's records: acknowledged, lost, duplicated. */
  deliveryReport(producer: string, topic?: string): DeliveryReport {
    const t = this.trackers.get(producer);
    if (!t) throw new Error(`no tracked producer "${producer}"`);
    const p = this.clients.get(producer);
    return t.check(this.partitionLogs(topic), p instanceof Producer ? p.recordsSent : undefined);
  }
}

/** Builds and starts a cluster. */
export function createCluster(options: ClusterOptions = {}): Cluster {
  return new Cluster(options).start();
}
