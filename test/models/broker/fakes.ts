// Small fakes for driving the broker's replication parts directly, without a cluster: a BrokerCore on a bare
// Simulation (its clock and timers) that records what the part emits and sends (the test answers the requests
// by hand), metadata images built from a few lines, and producer batches. The parts under test are the real
// ones (ReplicaManager, PartitionReplica, ReplicaFetcher, LogReader, appendRecords).
import type { BrokerCore } from '../../../models/broker/broker-core.ts';
import { type BrokerConfig, brokerDefaults } from '../../../models/broker/config.ts';
import { ControllerChannel } from '../../../models/broker/controller-channel.ts';
import type { PartitionReplica } from '../../../models/broker/partition-replica.ts';
import { ReplicaManager } from '../../../models/broker/replica-manager.ts';
import type { MetadataImage, PartitionRegistration } from '../../../models/metadata/index.ts';
import { type NodeId, type RequestOutcome, Simulation, type Timer } from '../../../models/sim/index.ts';
import { PartitionLog, type ProducerBatchData, type StorageMode } from '../../../models/storage/index.ts';

export interface SentRequest {
  readonly to: NodeId;
  readonly payload: unknown;
  readonly timeoutMs: number | undefined;
  readonly answer: (outcome: RequestOutcome<unknown>) => void;
}

/** A BrokerCore whose requests wait in `sent` for the test to answer, and whose trace is `events`. */
export class FakeCore implements BrokerCore {
  readonly sim = new Simulation({ seed: 1 });
  config: BrokerConfig = { ...brokerDefaults };
  storageMode: StorageMode = 'kafka';
  staticConfigs: Record<string, string> = {};
  image: MetadataImage = imageOf({});
  incarnation = 0;
  up = true;
  readonly events: { kind: string; [k: string]: unknown }[] = [];
  readonly sent: SentRequest[] = [];
  /** The label of every event scheduled (they name events in the run's fingerprint and in error messages). */
  readonly labels = new Set<string | undefined>();

  readonly id: NodeId;

  constructor(readonly brokerId: number) {
    this.id = `broker-${brokerId}`;
  }

  schedule(delay: number, fn: () => void, label?: string): Timer {
    this.labels.add(label);
    return this.sim.schedule(delay, fn, label);
  }
  emit(kind: string, fields: Record<string, unknown> = {}): void {
    this.events.push({ kind, ...fields });
  }
  request<R = unknown>(
    to: NodeId,
    payload: unknown,
    callback: (outcome: RequestOutcome<R>) => void,
    timeoutMs?: number,
  ): void {
    this.sent.push({ to, payload, timeoutMs, answer: callback as (o: RequestOutcome<unknown>) => void });
  }

  /** Removes and returns the requests sent so far. */
  take(): SentRequest[] {
    return this.sent.splice(0, this.sent.length);
  }

  /** Events of one kind, without their kind. */
  eventsOf(kind: string): Record<string, unknown>[] {
    return this.events.filter((e) => e.kind === kind).map(({ kind: _, ...rest }) => rest);
  }
}

export interface PartitionSpec {
  replicas: number[];
  isr?: number[];
  leader: number;
  leaderEpoch?: number;
  partitionEpoch?: number;
}

export interface ImageSpec {
  /** Active brokers (registered, unfenced); default 1, 2, 3. */
  brokers?: number[];
  fenced?: number[];
  shuttingDown?: number[];
  topics?: Record<string, PartitionSpec[]>;
  topicConfigs?: Record<string, Record<string, string>>;
  offset?: number;
}

/** A metadata image: topic `t` has id `id-t`. */
export function imageOf(spec: ImageSpec): MetadataImage {
  const brokers: Record<number, MetadataImage['brokers'][number]> = {};
  for (const id of [...(spec.brokers ?? [1, 2, 3]), ...(spec.fenced ?? []), ...(spec.shuttingDown ?? [])]) {
    brokers[id] = {
      brokerId: id,
      incarnationId: `inc-${id}`,
      brokerEpoch: 10 + id,
      rack: null,
      host: 'localhost',
      port: 9092 + id,
      fenced: spec.fenced?.includes(id) ?? false,
      inControlledShutdown: spec.shuttingDown?.includes(id) ?? false,
    };
  }
  const topics: Record<string, MetadataImage['topics'][string]> = {};
  const topicNamesById: Record<string, string> = {};
  for (const [name, parts] of Object.entries(spec.topics ?? {})) {
    topics[name] = {
      name,
      topicId: `id-${name}`,
      partitions: parts.map(
        (p, i): PartitionRegistration => ({
          partition: i,
          replicas: p.replicas,
          isr: p.isr ?? p.replicas,
          removingReplicas: [],
          addingReplicas: [],
          leader: p.leader,
          leaderEpoch: p.leaderEpoch ?? 0,
          partitionEpoch: p.partitionEpoch ?? 0,
        }),
      ),
    };
    topicNamesById[`id-${name}`] = name;
  }
  const topicConfigs = Object.create(null) as Record<string, Record<string, string>>;
  Object.assign(topicConfigs, spec.topicConfigs ?? {});
  return {
    offset: spec.offset ?? 1,
    brokers,
    topics,
    topicNamesById,
    configs: { topic: topicConfigs, broker: Object.create(null) },
    features: {},
  };
}

/** A producer batch of `count` records of `bytes` bytes (not idempotent unless `producerId` is given). */
export function batch(count = 1, over: Partial<ProducerBatchData> = {}): ProducerBatchData {
  return {
    count,
    bytes: 100 * count,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    origin: 'p',
    runs: [{ index: 0, count, time: 0 }],
    ...over,
  };
}

/** A log with batches of the given (epoch, count) appended as leader. */
export function logWith(batches: readonly (readonly [epoch: number, count: number])[]): PartitionLog {
  const log = new PartitionLog('t', 0);
  for (const [epoch, count] of batches) {
    log.assignEpochStart(epoch);
    log.appendAsLeader(batch(count), epoch, 0);
  }
  return log;
}

/** A broker's replica manager on a FakeCore, and what its hooks heard. */
export interface ManagedBroker {
  core: FakeCore;
  rm: ReplicaManager;
  logs: Map<string, PartitionLog>;
  woken: string[];
  followed: string[];
  roleChanges: string[];
  /** Told of every change of a replica's role, leader, epoch, ISR or replicas (the broker tells its fetcher). */
  onReplicaChanged: ((r: PartitionReplica) => void) | undefined;
  /** Applies `spec` as the broker's next image (a metadata replay). */
  apply(spec: ImageSpec): void;
}

export function managedBroker(brokerId: number, spec?: ImageSpec): ManagedBroker {
  const core = new FakeCore(brokerId);
  const logs = new Map<string, PartitionLog>();
  const woken: string[] = [];
  const followed: string[] = [];
  const roleChanges: string[] = [];
  const rm = new ReplicaManager(core, new ControllerChannel(core, ['controller-0']), undefined, {
    brokerEpoch: () => 42,
    localLogs: () => logs,
    wake: (key) => woken.push(key),
    follow: (r) => followed.push(r.key),
    onPartitionChanged: () => {},
    onRoleChange: (r) => roleChanges.push(`${r.key}=${r.role}`),
    replicaChanged: (r) => b.onReplicaChanged?.(r),
    configureLog: () => {},
  });
  const b: ManagedBroker = {
    core,
    rm,
    logs,
    woken,
    followed,
    roleChanges,
    onReplicaChanged: undefined,
    apply(s) {
      const before = core.image;
      core.image = imageOf(s);
      rm.applyDelta(before, core.image);
    },
  };
  if (spec) b.apply(spec);
  return b;
}
