// Records a run for its report and what-if metrics, without changing it: the recorder only reads the cluster's
// public objects, listens to producers, consumers and the trace, and never schedules an event, so a run with a
// recorder has the same events, trace hash and result as one without.
//
// Sampling needs a call after events: the kernel's passive after-event hook (sim.onAfterEvent). A timer would add
// events to the queue and could move the moment a waitUntil sees its condition, i.e. change the run. Between two
// events nothing changes, so sampling at the first event after a sample time sees the state of that time.
import type { AnyConsumer, DeliveryResult, Producer, ProducerEvent } from '../../models/clients/index.ts';
import { GroupSinkConsumer, type IngestService } from '../../models/lake/index.ts';
import type { MetadataImage } from '../../models/metadata/index.ts';
import type { TraceEvent } from '../../models/sim/index.ts';
import type { Cluster } from '../cluster/index.ts';
import type { ScenarioResult } from '../scenario/index.ts';
import { LatencyHistogram } from './latency-histogram.ts';
import type {
  AlterTiming,
  AssignmentChange,
  PlacementChange,
  ProduceErrorMark,
  ProducerSeries,
  Recording,
} from './recording.ts';

export interface RecorderOptions {
  /** Virtual ms between samples (and the width of throughput buckets). Default 1000. */
  sampleMs?: number;
  /** Most trace events kept per kind family (`balancer`, `group`, ...). Default 5000. */
  maxEventsPerFamily?: number;
}

/** Trace kinds the reports and metrics read (a prefix ending in '.' matches a family). */
const KEPT_KINDS = [
  'balancer.',
  'group.',
  'raft.',
  'scenario.step',
  'node.crash',
  'node.start',
  'node.stop',
  'controller.elect',
  'controller.ready',
  'controller.renounce',
  'controller.reassign',
  'controller.create-partitions',
  'controller.fence',
  'controller.unfence',
  'net.partition',
  'net.isolate',
  'net.drop-outbound',
  'net.heal',
  'net.slow',
  'invariant.violated',
];

function kept(kind: string): boolean {
  for (const k of KEPT_KINDS) if (k.endsWith('.') ? kind.startsWith(k) : kind === k) return true;
  return false;
}

interface ProducerState {
  name: string;
  buckets: Map<number, { records: number; latencySum: number; latencyMax: number }>;
}

interface ErrorBucket {
  count: number;
  errors: Record<string, number>;
  partitions: Set<number>;
}

interface PendingAlter extends AlterTiming {
  produced: Set<number>;
}

export class RunRecorder {
  readonly sampleMs: number;
  private readonly maxPerFamily: number;
  private cluster: Cluster | undefined;
  private lastImage: MetadataImage | undefined;
  private readonly lastPlacement = new Map<string, PlacementChange>();
  private readonly placement: PlacementChange[] = [];
  private readonly times: number[] = [];
  private readonly networkIn: Record<string, (number | null)[]> = {};
  private readonly networkOut: Record<string, (number | null)[]> = {};
  private readonly leaders: Record<string, (number | null)[]> = {};
  private readonly lastBytes = new WeakMap<object, { in: number; out: number }>();
  private lastSampleAt = 0;
  private nextSampleAt = 0;
  private readonly producers = new Map<string, { producer: Producer; state: ProducerState }>();
  private readonly consumers = new Map<string, AnyConsumer>();
  private readonly lastAssignment = new Map<string, string>();
  private readonly assignments: AssignmentChange[] = [];
  private readonly lag: Record<string, (number | null)[]> = {};
  private readonly errorBuckets = new Map<string, ErrorBucket>();
  private readonly histogram = new LatencyHistogram();
  private readonly alters: PendingAlter[] = [];
  private readonly events: TraceEvent[] = [];
  private readonly perFamily = new Map<string, number>();
  private eventsDropped = 0;
  /** Ingest services whose workers' consumers are not tracked yet. */
  private ingestServices: IngestService[] = [];
  private unsubscribe: (() => void) | undefined;
  private removeSampler: (() => void) | undefined;

  constructor(options: RecorderOptions = {}) {
    this.sampleMs = options.sampleMs ?? 1000;
    this.maxPerFamily = options.maxEventsPerFamily ?? 5000;
    if (!(this.sampleMs > 0)) throw new RangeError(`sampleMs must be > 0, got ${this.sampleMs}`);
  }

  /** Attaches to a cluster before it starts (pass as `runScenario`'s `onCluster`). */
  attach = (cluster: Cluster): void => {
    if (this.cluster) throw new Error('a RunRecorder records one run');
    this.cluster = cluster;
    for (const id of cluster.brokers.keys()) {
      this.networkIn[id] = [];
      this.networkOut[id] = [];
      this.leaders[id] = [];
    }
    this.lastSampleAt = cluster.now;
    this.nextSampleAt = cluster.now + this.sampleMs;
    this.unsubscribe = cluster.sim.trace.subscribe(this.onTrace);
    this.noteQuorumState(cluster);
    // Clients are created when a scenario starts them: wrap the cluster's factories on this instance to see
    // each one as it is made (the cluster has no client-created listener). The ingest service makes its
    // workers' consumers itself: they are read from the service once it has started.
    const makeProducer = cluster.producer.bind(cluster);
    cluster.producer = (name, options) => {
      const p = makeProducer(name, options);
      this.trackProducer(name, p);
      return p;
    };
    const makeConsumer = cluster.consumer.bind(cluster);
    cluster.consumer = (name, options) => {
      const c = makeConsumer(name, options);
      this.consumers.set(name, c);
      return c;
    };
    const makeGroupConsumer = cluster.groupConsumer.bind(cluster);
    cluster.groupConsumer = (name, options) => {
      const c = makeGroupConsumer(name, options);
      this.consumers.set(name, c);
      return c;
    };
    const makeIngestService = cluster.ingestService.bind(cluster);
    cluster.ingestService = (config, options) => {
      const svc = makeIngestService(config, options);
      this.ingestServices.push(svc);
      return svc;
    };
    this.removeSampler = cluster.sim.onAfterEvent(this.afterEvent);
  };

  /**
   * Attached to a running cluster (createCluster starts it), the recorder has missed the elections so far: the
   * Raft roles and the active controller as they are now are recorded as events of this moment, marked
   * `observed: true`, so that the Raft metrics and the role timeline start from the truth, not from nothing.
   */
  private noteQuorumState(cluster: Cluster): void {
    for (const c of cluster.controllers) {
      if (!c.up) continue;
      const raft = c.raft;
      if (raft && raft.role !== 'down')
        this.onTrace({
          t: cluster.now,
          kind: 'raft.role',
          node: c.id,
          role: raft.role,
          epoch: raft.epoch,
          leaderId: raft.leaderId ?? null,
          observed: true,
        });
      if (c.ready) this.onTrace({ t: cluster.now, kind: 'controller.ready', node: c.id, observed: true });
    }
  }

  /**
   * The services' workers' consumers, under the workers' client ids (`<service>-worker-<i>`). A service makes
   * them when it first starts, which may be after it was created.
   */
  private trackIngestWorkers(): void {
    const waiting = this.ingestServices.filter((svc) => svc.consumers.length === 0);
    for (const svc of this.ingestServices) if (svc.consumers.length > 0) this.trackConsumersOf(svc);
    this.ingestServices = waiting;
  }

  private trackConsumersOf(svc: IngestService): void {
    for (const sink of svc.consumers) {
      if (sink instanceof GroupSinkConsumer) this.consumers.set(sink.clientId, sink.member);
    }
  }

  private onTrace = (e: TraceEvent): void => {
    if (e.kind === 'controller.create-partitions') this.noteAlter(e);
    if (!kept(e.kind)) return;
    const family = e.kind.slice(0, e.kind.indexOf('.'));
    const n = this.perFamily.get(family) ?? 0;
    if (n >= this.maxPerFamily) {
      this.eventsDropped++;
      return;
    }
    this.perFamily.set(family, n + 1);
    this.events.push(e);
  };

  private noteAlter(e: TraceEvent): void {
    if (e.validateOnly || e.error !== undefined || e.errorCode !== undefined) return;
    if (typeof e.topic !== 'string' || typeof e.count !== 'number' || typeof e.previousCount !== 'number')
      return;
    this.alters.push({
      t: e.t,
      topic: e.topic,
      previousCount: e.previousCount,
      count: e.count,
      producedAt: null,
      assignedAt: null,
      produced: new Set(),
    });
  }

  private trackProducer(name: string, producer: Producer): void {
    const state: ProducerState = { name, buckets: new Map() };
    this.producers.set(name, { producer, state });
    producer.onDelivery((r) => this.onDelivery(state, r));
    producer.onEvent((e) => this.onProducerEvent(name, e));
  }

  private bucketOf(t: number): number {
    return Math.floor(t / this.sampleMs) * this.sampleMs;
  }

  private onDelivery(state: ProducerState, r: DeliveryResult): void {
    if (r.error) return;
    const key = this.bucketOf(r.time);
    let b = state.buckets.get(key);
    if (!b) state.buckets.set(key, (b = { records: 0, latencySum: 0, latencyMax: 0 }));
    for (const run of r.runs) {
      const latency = r.time - run.time;
      this.histogram.add(latency, run.count);
      b.records += run.count;
      b.latencySum += latency * run.count;
      if (latency > b.latencyMax) b.latencyMax = latency;
    }
    for (const a of this.alters) {
      if (a.producedAt !== null || a.topic !== r.topic || r.partition < a.previousCount) continue;
      a.produced.add(r.partition);
      if (a.produced.size >= a.count - a.previousCount) a.producedAt = r.time;
    }
  }

  private onProducerEvent(producer: string, e: ProducerEvent): void {
    if (e.type !== 'retry' && e.type !== 'failed') return;
    const t = this.bucketOf(this.cluster!.now);
    const key = `${producer}\u0000${t}`;
    let b = this.errorBuckets.get(key);
    if (!b) this.errorBuckets.set(key, (b = { count: 0, errors: {}, partitions: new Set() }));
    b.count++;
    b.errors[e.error] = (b.errors[e.error] ?? 0) + 1;
    b.partitions.add(e.partition);
  }

  private afterEvent = (): void => {
    const cluster = this.cluster!;
    if (this.ingestServices.length > 0) this.trackIngestWorkers();
    const image = cluster.image;
    if (image !== this.lastImage) this.diffPlacement(image, cluster.now);
    if (this.consumers.size > 0) this.checkAssigned(cluster.now);
    if (cluster.now >= this.nextSampleAt) this.sample(cluster.now);
  };

  private diffPlacement(image: MetadataImage, t: number): void {
    const last = this.lastImage;
    this.lastImage = image;
    for (const [name, topic] of Object.entries(image.topics)) {
      if (last && last.topics[name] === topic) continue;
      const before = last?.topics[name];
      topic.partitions.forEach((p, i) => {
        if (before && before.partitions[i] === p) return;
        const key = `${name}-${i}`;
        const prev = this.lastPlacement.get(key);
        if (
          prev &&
          prev.leader === p.leader &&
          sameList(prev.replicas, p.replicas) &&
          sameList(prev.isr, p.isr) &&
          sameList(prev.adding, p.addingReplicas) &&
          sameList(prev.removing, p.removingReplicas)
        )
          return;
        const change: PlacementChange = {
          t,
          topic: name,
          partition: i,
          leader: p.leader,
          replicas: [...p.replicas],
          isr: [...p.isr],
          adding: [...p.addingReplicas],
          removing: [...p.removingReplicas],
        };
        this.lastPlacement.set(key, change);
        this.placement.push(change);
      });
    }
  }

  private checkAssigned(t: number): void {
    for (const a of this.alters) {
      if (a.assignedAt !== null) continue;
      const covered = new Set<number>();
      for (const c of this.consumers.values()) {
        if (!c.up) continue;
        for (const tp of c.assignedPartitions()) if (tp.topic === a.topic) covered.add(tp.partition);
      }
      let all = true;
      for (let p = 0; p < a.count && all; p++) all = covered.has(p);
      if (all) a.assignedAt = t;
    }
  }

  private sample(t: number): void {
    const cluster = this.cluster!;
    const dt = (t - this.lastSampleAt) / 1000;
    this.times.push(t);
    for (const [id, broker] of cluster.brokers) {
      if (!broker.up) {
        this.networkIn[id]!.push(null);
        this.networkOut[id]!.push(null);
        this.leaders[id]!.push(null);
        continue;
      }
      let bytesIn = 0;
      let bytesOut = 0;
      let leading = 0;
      for (const r of broker.replicas.values()) {
        const last = this.lastBytes.get(r);
        // A replica object is new after a restart or a move; its counters start at 0.
        bytesIn += r.bytesIn - (last?.in ?? 0);
        bytesOut += r.bytesOut - (last?.out ?? 0);
        this.lastBytes.set(r, { in: r.bytesIn, out: r.bytesOut });
        if (r.role === 'leader') leading++;
      }
      this.networkIn[id]!.push(dt > 0 ? bytesIn / dt : 0);
      this.networkOut[id]!.push(dt > 0 ? bytesOut / dt : 0);
      this.leaders[id]!.push(leading);
    }
    if (this.consumers.size > 0) this.sampleConsumers(t);
    this.lastSampleAt = t;
    this.nextSampleAt = this.bucketOf(t) + this.sampleMs;
  }

  private sampleConsumers(t: number): void {
    const cluster = this.cluster!;
    const hw = new Map<string, number>();
    for (const log of cluster.partitionLogs()) hw.set(`${log.topic}-${log.partition}`, log.highWatermark);
    const lagNow = new Map<string, number>();
    for (const [name, c] of this.consumers) {
      const assigned = c.assignedPartitions();
      const names = assigned.map((tp) => `${tp.topic}-${tp.partition}`).sort();
      const joined = names.join(',');
      if (this.lastAssignment.get(name) !== joined) {
        this.lastAssignment.set(name, joined);
        this.assignments.push({ t, consumer: name, partitions: names });
      }
      if (!c.up) continue;
      for (const tp of assigned) {
        const key = `${tp.topic}-${tp.partition}`;
        const position = c.position(tp);
        const high = hw.get(key);
        if (position === undefined || high === undefined) continue;
        lagNow.set(key, (lagNow.get(key) ?? 0) + Math.max(0, high - position));
      }
    }
    const index = this.times.length - 1;
    for (const [key, value] of lagNow) {
      let series = this.lag[key];
      if (!series) this.lag[key] = series = [];
      while (series.length < index) series.push(null);
      series.push(value);
    }
    for (const series of Object.values(this.lag)) while (series.length <= index) series.push(null);
  }

  /** Stops recording and returns what was recorded; pass the run's result to align times with its timeline. */
  finish(result?: Pick<ScenarioResult, 'steps'>): Recording {
    const cluster = this.cluster;
    if (!cluster) throw new Error('the recorder was never attached to a cluster');
    this.unsubscribe?.();
    this.removeSampler?.();
    if (this.times.length === 0 || this.times[this.times.length - 1]! < cluster.now) this.sample(cluster.now);
    for (const series of Object.values(this.lag)) while (series.length < this.times.length) series.push(null);
    const origin = originOf(this.events, result);
    return {
      origin,
      end: cluster.now,
      sampleMs: this.sampleMs,
      times: this.times,
      brokers: [...cluster.brokers.keys()],
      networkIn: this.networkIn,
      networkOut: this.networkOut,
      leaders: this.leaders,
      placement: this.placement,
      producers: [...this.producers.values()].map(({ state }) => this.series(state)),
      produceErrors: this.errorMarks(),
      produceErrorCount: [...this.producers.values()].reduce(
        (sum, { producer }) =>
          sum + Object.values(producer.errorCounts).reduce<number>((a, b) => a + (b ?? 0), 0),
        0,
      ),
      latency: {
        records: this.histogram.count,
        p50: this.histogram.percentile(0.5) ?? null,
        p99: this.histogram.percentile(0.99) ?? null,
        p999: this.histogram.percentile(0.999) ?? null,
        max: this.histogram.count > 0 ? this.histogram.max : null,
        mean: this.histogram.mean ?? null,
      },
      lag: this.lag,
      consumers: [...this.consumers.keys()],
      assignments: this.assignments,
      alters: this.alters.map(({ produced: _, ...a }) => a),
      steps: (result?.steps ?? []).flatMap((step) => {
        const at = step.action === 'waitUntil' ? step.end : step.start;
        return step.label !== undefined && at !== undefined
          ? [{ t: origin + at, label: step.label, action: step.action }]
          : [];
      }),
      events: this.events,
      eventsDropped: this.eventsDropped,
    };
  }

  private series(state: ProducerState): ProducerSeries {
    const keys = [...state.buckets.keys()].sort((a, b) => a - b);
    const out: ProducerSeries = {
      name: state.name,
      t: [],
      recordsPerSec: [],
      latencyAvg: [],
      latencyMax: [],
    };
    if (keys.length === 0) return out;
    const perSec = 1000 / this.sampleMs;
    for (let t = keys[0]!; t <= keys[keys.length - 1]!; t += this.sampleMs) {
      const b = state.buckets.get(t);
      out.t.push(t);
      out.recordsPerSec.push(b ? b.records * perSec : 0);
      out.latencyAvg.push(b && b.records > 0 ? b.latencySum / b.records : null);
      out.latencyMax.push(b && b.records > 0 ? b.latencyMax : null);
    }
    return out;
  }

  private errorMarks(): ProduceErrorMark[] {
    return [...this.errorBuckets.entries()]
      .map(([key, b]) => {
        const [producer, t] = key.split('\u0000') as [string, string];
        return {
          t: Number(t),
          producer,
          count: b.count,
          errors: b.errors,
          partitions: [...b.partitions].sort((x, y) => x - y),
        };
      })
      .sort((a, b) => a.t - b.t || (a.producer < b.producer ? -1 : 1));
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The timeline's time 0: a step's trace time minus its start in timeline time. */
function originOf(events: readonly TraceEvent[], result: Pick<ScenarioResult, 'steps'> | undefined): number {
  const first = events.find((e) => e.kind === 'scenario.step');
  if (!first || !result) return 0;
  const step = result.steps[first.index as number];
  return step?.start !== undefined ? first.t - step.start : 0;
}
