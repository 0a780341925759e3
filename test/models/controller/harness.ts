// A small world for controller tests: one QuorumController, fake brokers that register, heartbeat and follow the
// metadata log through the network as real brokers would, and a client node that sends admin requests.

import type { ControllerConfig, StorageMode } from '../../../models/controller/index.ts';
import { QuorumController } from '../../../models/controller/index.ts';
import {
  emptyImage,
  type MetadataImage,
  type PartitionRegistration,
  partition,
  replay,
  topicByName,
} from '../../../models/metadata/index.ts';
import type {
  BrokerHeartbeatResponse,
  BrokerRegistrationResponse,
  ControllerRequest,
  ControllerResponses,
  MetadataFetchResponse,
} from '../../../models/protocol/index.ts';
import {
  type NodeId,
  type RequestOutcome,
  SimNode,
  Simulation,
  type TraceEvent,
} from '../../../models/sim/index.ts';

export const CONTROLLER: NodeId = 'controller-3000';

/** A node that sends requests and remembers the answers. */
export class TestClient extends SimNode {
  send<T extends ControllerRequest>(
    req: T,
    to: NodeId = CONTROLLER,
  ): Pending<ControllerResponses[T['type']]> {
    const pending = new Pending<ControllerResponses[T['type']]>();
    this.request<ControllerResponses[T['type']]>(to, req, (o) => pending.settle(o, this.sim.now));
    return pending;
  }
}

export class Pending<R> {
  outcome: RequestOutcome<R> | undefined;
  at: number | undefined;
  get done(): boolean {
    return this.outcome !== undefined;
  }
  settle(outcome: RequestOutcome<R>, at: number): void {
    this.outcome = outcome;
    this.at = at;
  }
  get response(): R {
    if (!this.outcome) throw new Error('no response yet');
    if (!this.outcome.ok) throw new Error(`request failed: ${this.outcome.error}`);
    return this.outcome.response;
  }
}

export interface FakeBrokerOptions {
  id: number;
  rack?: string | null;
  heartbeatIntervalMs?: number;
}

/** Registers, heartbeats with the offset it has replayed, and long-polls the metadata log. */
export class FakeBroker extends SimNode {
  readonly brokerId: number;
  readonly rack: string | null;
  brokerEpoch = -1;
  image: MetadataImage = emptyImage();
  isFenced = true;
  shouldShutDown = false;
  wantShutDown = false;
  /** Stop sending heartbeats (without crashing): the controller should fence this broker. */
  silent = false;
  lastRegistration: BrokerRegistrationResponse | undefined;
  heartbeatResponses: BrokerHeartbeatResponse[] = [];
  private readonly intervalMs: number;

  constructor(sim: Simulation, options: FakeBrokerOptions) {
    super(sim, `broker-${options.id}`);
    this.brokerId = options.id;
    this.rack = options.rack ?? null;
    this.intervalMs = options.heartbeatIntervalMs ?? 2000;
  }

  protected override onStart(): void {
    this.brokerEpoch = -1;
    this.isFenced = true;
    this.shouldShutDown = false;
    this.image = emptyImage();
    this.register();
    this.fetchMetadata();
  }

  private register(): void {
    this.request<BrokerRegistrationResponse>(
      CONTROLLER,
      {
        type: 'BrokerRegistration',
        brokerId: this.brokerId,
        incarnationId: `${this.id}-${this.incarnation}`,
        rack: this.rack,
        host: `broker-${this.brokerId}`,
        port: 9092,
      } satisfies ControllerRequest,
      (o) => {
        if (o.ok) this.lastRegistration = o.response;
        if (!o.ok || o.response.errorCode !== 0) {
          this.schedule(1000, () => this.register(), 'fake-broker.register-retry');
          return;
        }
        this.brokerEpoch = o.response.brokerEpoch;
        this.heartbeat();
      },
    );
  }

  private heartbeat(): void {
    if (this.silent) {
      this.schedule(this.intervalMs, () => this.heartbeat(), 'fake-broker.heartbeat');
      return;
    }
    this.request<BrokerHeartbeatResponse>(
      CONTROLLER,
      {
        type: 'BrokerHeartbeat',
        brokerId: this.brokerId,
        brokerEpoch: this.brokerEpoch,
        currentMetadataOffset: this.image.offset,
        wantFence: false,
        wantShutDown: this.wantShutDown,
      } satisfies ControllerRequest,
      (o) => {
        if (o.ok) {
          this.heartbeatResponses.push(o.response);
          if (o.response.errorCode === 0) {
            this.isFenced = o.response.isFenced;
            this.shouldShutDown = o.response.shouldShutDown;
          }
        }
        this.schedule(this.intervalMs, () => this.heartbeat(), 'fake-broker.heartbeat');
      },
    );
  }

  private fetchMetadata(): void {
    this.request<MetadataFetchResponse>(
      CONTROLLER,
      { type: 'MetadataFetch', replicaId: this.brokerId, fetchOffset: this.image.offset + 1, maxWaitMs: 500 },
      (o) => {
        if (o.ok && o.response.errorCode === 0 && o.response.entries.length > 0) {
          this.image = replay(this.image, o.response.entries);
        }
        if (o.ok) this.fetchMetadata();
        else this.schedule(100, () => this.fetchMetadata(), 'fake-broker.fetch-retry');
      },
    );
  }
}

export interface HarnessOptions {
  seed?: number;
  brokers?: (number | { id: number; rack?: string | null })[];
  storageMode?: StorageMode;
  config?: Partial<ControllerConfig>;
}

export class Harness {
  readonly sim: Simulation;
  readonly controller: QuorumController;
  readonly brokers = new Map<number, FakeBroker>();
  readonly client: TestClient;
  readonly events: TraceEvent[] = [];

  constructor(options: HarnessOptions = {}) {
    this.sim = new Simulation({ seed: options.seed ?? 1 });
    this.sim.trace.subscribe((e) => {
      if (e.kind.startsWith('controller.')) this.events.push(e);
    });
    this.controller = new QuorumController(this.sim, CONTROLLER, {
      storageMode: options.storageMode ?? 'kafka',
      config: options.config ?? {},
      checkInvariants: true,
    });
    for (const spec of options.brokers ?? [0, 1, 2]) {
      const s = typeof spec === 'number' ? { id: spec } : spec;
      this.brokers.set(s.id, new FakeBroker(this.sim, { id: s.id, rack: s.rack ?? null }));
    }
    this.client = new TestClient(this.sim, 'admin');
  }

  /** Starts everything and runs until every broker is registered and unfenced. */
  start(): this {
    this.controller.start();
    this.client.start();
    for (const b of this.brokers.values()) b.start();
    this.runUntil(
      () => [...this.brokers.values()].every((b) => this.isUnfenced(b.brokerId)),
      'brokers unfenced',
    );
    return this;
  }

  broker(id: number): FakeBroker {
    const b = this.brokers.get(id);
    if (!b) throw new Error(`no broker ${id}`);
    return b;
  }

  get image(): MetadataImage {
    return this.controller.committedImage;
  }

  isUnfenced(id: number): boolean {
    const b = this.image.brokers[id];
    return b !== undefined && !b.fenced;
  }

  partition(topic: string, p: number): PartitionRegistration {
    const reg = partition(this.image, topic, p);
    if (!reg) throw new Error(`no partition ${topic}-${p}`);
    return reg;
  }

  topicId(topic: string): string {
    const t = topicByName(this.image, topic);
    if (!t) throw new Error(`no topic ${topic}`);
    return t.topicId;
  }

  runUntil(condition: () => boolean, description: string, timeout: number | string = '120s'): number {
    return this.sim.runUntil(condition, { timeout, description });
  }

  /** Sends a request from the client node and runs until its answer arrives. */
  call<T extends ControllerRequest>(req: T): ControllerResponses[T['type']] {
    const pending = this.client.send(req);
    this.runUntil(() => pending.done, `response to ${req.type}`);
    return pending.response;
  }

  /** Creates a topic and waits until it is committed. */
  createTopic(
    name: string,
    numPartitions: number,
    replicationFactor: number,
    configs?: Record<string, string>,
  ) {
    const r = this.call({
      type: 'CreateTopics',
      topics: [{ name, numPartitions, replicationFactor, ...(configs ? { configs } : {}) }],
    });
    const result = r.topics[0]!;
    if (result.errorCode !== 0) throw new Error(`create ${name} failed: ${result.errorMessage}`);
    return result;
  }

  eventsOf(kind: string): TraceEvent[] {
    return this.events.filter((e) => e.kind === kind);
  }
}
