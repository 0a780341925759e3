// The composition root: builds a simulated cluster (controller, brokers, storage, clients) from options and
// gives tests, scenarios and the API one object to drive it with: admin operations that take virtual time,
// clients, faults, run control and read-only views.
import type { BrokerConfig } from '../../models/broker/config.ts';
import { Broker, brokerNodeId } from '../../models/broker/index.ts';
import {
  AdminClient,
  type ClientFlavour,
  Consumer,
  type ConsumerConfigInput,
  Producer,
  type ProducerConfigInput,
  ProducerPerfWorkload,
} from '../../models/clients/index.ts';
import { type ControllerConfig, QuorumController } from '../../models/controller/index.ts';
import type { MetadataImage } from '../../models/metadata/index.ts';
import { describeTopicConfigs } from '../../models/metadata/index.ts';
import { type PartitionLog, SharedStorage, type StorageMode } from '../../models/storage/index.ts';
import { type Distribution, type NodeId, type RunUntilOptions, Simulation } from '../sim/index.ts';
import { ClusterAdmin } from './admin.ts';
import { type DeliveryReport, DeliveryTracker } from './delivery-check.ts';
import { attachProducerLog, type PerfProducerReport, reportProducerPerf } from './reporters.ts';
import { describeTopic as describeTopicView } from './views.ts';

export interface BrokerSpec {
  id: number;
  rack?: string | null;
}

export interface ClusterOptions {
  seed?: number | string;
  /** A count (ids from `firstBrokerId`, default 0) or explicit brokers with racks. Default 3. */
  brokers?: number | BrokerSpec[];
  firstBrokerId?: number;
  storage?: StorageMode;
  /** Broker settings (Kafka keys, plus kafkasim.* model parameters). */
  brokerConfig?: Partial<BrokerConfig>;
  /** Static broker configs, as server.properties would set them (e.g. log.segment.bytes). */
  serverProperties?: Record<string, string>;
  controllerConfig?: Partial<ControllerConfig>;
  /** Network latency between any two nodes. Default lognormal, median 0.5 ms. */
  latency?: Distribution;
  invariantEvery?: number;
  traceBufferSize?: number;
  /** Where tool-format output lines go (default: kept in `cluster.output`). */
  out?: (line: string) => void;
}

export const CONTROLLER_NODE: NodeId = 'controller-3000';

export class Cluster {
  readonly sim: Simulation;
  readonly controller: QuorumController;
  readonly brokers = new Map<number, Broker>();
  readonly storage: StorageMode;
  readonly shared: SharedStorage | undefined;
  readonly admin: ClusterAdmin;
  /** Tool-format lines printed so far (when no `out` was given). */
  readonly output: string[] = [];
  readonly out: (line: string) => void;
  private readonly trackers = new Map<string, DeliveryTracker>();
  private readonly clients = new Map<string, Producer | Consumer>();

  constructor(options: ClusterOptions = {}) {
    this.sim = new Simulation({
      seed: options.seed ?? 1,
      defaultLatency: options.latency ?? { kind: 'lognormal', median: 0.5, sigma: 0.3, min: 0.1 },
      ...(options.invariantEvery !== undefined ? { invariantEvery: options.invariantEvery } : {}),
      ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
    });
    this.out = options.out ?? ((line) => this.output.push(line));
    this.storage = options.storage ?? 'kafka';
    this.shared = this.storage === 'shared' ? new SharedStorage() : undefined;
    this.controller = new QuorumController(this.sim, CONTROLLER_NODE, {
      storageMode: this.storage,
      ...(options.controllerConfig ? { config: options.controllerConfig } : {}),
    });
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
          controllers: [CONTROLLER_NODE],
          storageMode: this.storage,
          ...(this.shared ? { sharedStorage: this.shared } : {}),
          ...(options.brokerConfig ? { config: options.brokerConfig } : {}),
          ...(options.serverProperties ? { staticConfigs: options.serverProperties } : {}),
        }),
      );
    }
    this.admin = new ClusterAdmin(
      this,
      new AdminClient(this.sim, 'admin', { controllers: [CONTROLLER_NODE], bootstrap: this.bootstrap() }),
    );
  }

  /** Starts the controller and brokers and runs until every broker is registered and unfenced. */
  start(timeout: number | string = '30s'): this {
    this.controller.start();
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
    const report = reportProducerPerf(workload, this.out);
    workload.start();
    return report;
  }

  // ---- faults ----------------------------------------------------------------------------------------------

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
    return this.controller.image;
  }

  /** A live broker to read from (the first by id), as a tool's bootstrap connection would. */
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
