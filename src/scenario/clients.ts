// The clients a scenario declares, created when they start: steady producers (a workload at a fixed rate),
// consumers in assign mode, consumer groups (members in subscribe mode) and kafka-producer-perf-test runs. Keeps
// what conditions and metrics read from them.
import {
  type Consumer,
  type ConsumerConfigInput,
  type GroupConsumer,
  type GroupConsumerConfigInput,
  type Producer,
  type ProducerConfigInput,
  SteadyLoad,
} from '../../models/clients/index.ts';
import type { IngestConfigInput, IngestService } from '../../models/lake/index.ts';
import type { Timer } from '../../models/sim/index.ts';
import type { Cluster, PerfProducerReport } from '../cluster/index.ts';
import type {
  ConsumerSpec,
  GroupSpec,
  IngestSpec,
  PerfProducerSpec,
  ProducerSpec,
  ScenarioSpec,
} from './types.ts';

type Handle =
  | { kind: 'producer'; spec: ProducerSpec; producer?: Producer; workload?: SteadyLoad }
  | { kind: 'consumer'; spec: ConsumerSpec; consumer?: Consumer }
  | { kind: 'perfProducer'; spec: PerfProducerSpec; report?: PerfProducerReport }
  | { kind: 'group'; spec: GroupSpec; members?: GroupConsumer[] }
  | { kind: 'ingest'; spec: IngestSpec; service?: IngestService };

/** The ingest service's log lines a scenario prints by default: its rebalance log and its errors. */
const REBALANCE_OR_ERROR = /kafka_rebalance| level=(error|fatal) /;

export interface IngestStats {
  rowsTotal: number;
  errorsTotal: number;
  consumeRowsTotal: number;
  lostBatches: number;
  /** Records in the batches the service gave up on. */
  lostRecords: number;
  /** Distinct partitions in the workers' current assignment. */
  assigned: number;
  minPerWorker: number;
  maxPerWorker: number;
}

export interface PerfStats {
  done: boolean;
  completed: number;
  /** From the summary line, once the test finished. */
  recordsPerSec?: number;
  avgLatencyMs?: number;
  maxLatencyMs?: number;
  /** The lowest records/sec of a progress line. */
  minRecordsPerSec?: number;
}

type DeliveryField = 'sent' | 'acknowledged' | 'failed' | 'lost' | 'duplicated';

export class ScenarioClients {
  private readonly handles = new Map<string, Handle>();
  /** Client processes still starting up (see afterStartup). */
  private readonly pending = new Map<string, Timer>();
  /** Once the timeline is over (see settle), each producer's delivery accounting, computed once. */
  private settled: Map<string, Record<DeliveryField, number>> | undefined;

  constructor(
    private readonly cluster: Cluster,
    spec: ScenarioSpec,
  ) {
    for (const p of spec.clients?.producers ?? []) this.handles.set(p.name, { kind: 'producer', spec: p });
    for (const c of spec.clients?.consumers ?? []) this.handles.set(c.name, { kind: 'consumer', spec: c });
    for (const p of spec.clients?.perfProducers ?? [])
      this.handles.set(p.name, { kind: 'perfProducer', spec: p });
    for (const g of spec.clients?.groups ?? []) this.handles.set(g.name, { kind: 'group', spec: g });
    for (const i of spec.clients?.ingest ?? []) this.handles.set(i.name, { kind: 'ingest', spec: i });
  }

  names(): string[] {
    return [...this.handles.keys()];
  }

  autoStartNames(): string[] {
    return [...this.handles.values()].filter((h) => h.spec.autoStart).map((h) => h.spec.name);
  }

  private handle(name: string): Handle {
    const h = this.handles.get(name);
    if (!h) throw new Error(`no client '${name}'`);
    return h;
  }

  isStarted(name: string): boolean {
    const h = this.handle(name);
    if (h.kind === 'group') return !!h.members;
    if (h.kind === 'ingest') return !!h.service;
    return h.kind === 'producer' ? !!h.producer : h.kind === 'consumer' ? !!h.consumer : !!h.report;
  }

  /** Creates and starts a client; starting one that already runs is an error (as it would be a second process). */
  start(name: string): void {
    const h = this.handle(name);
    if (this.isStarted(name)) {
      if (h.kind === 'consumer' && h.consumer && !h.consumer.up) {
        h.consumer.start();
        return;
      }
      throw new Error(`client '${name}' was already started`);
    }
    if (h.kind === 'ingest') {
      const mode = h.spec.log ?? 'rebalance';
      const out = this.cluster.out;
      const service = this.cluster.ingestService(h.spec.config as IngestConfigInput, {
        id: name,
        log: (line) => {
          if (mode === 'all' || (mode === 'rebalance' && REBALANCE_OR_ERROR.test(line))) out(line);
        },
        ...(h.spec.kafkaConfig ? { kafkaConfig: h.spec.kafkaConfig as GroupConsumerConfigInput } : {}),
        ...(h.spec.flavour ? { flavour: h.spec.flavour } : {}),
        start: false,
      });
      h.service = service;
      // One process: its workers' clients are created together once it has started up.
      this.afterStartup(name, () => service.start());
      return;
    }
    const flavour = h.spec.flavour ?? 'java';
    if (h.kind === 'producer') {
      h.producer = this.cluster.producer(name, {
        flavour,
        config: (h.spec.config ?? {}) as ProducerConfigInput,
        keepContent: false,
      });
      h.workload = new SteadyLoad(h.producer, h.spec, 'scenario.producer.tick');
      h.workload.start();
    } else if (h.kind === 'consumer') {
      h.consumer = this.cluster.consumer(name, {
        flavour,
        config: (h.spec.config ?? {}) as ConsumerConfigInput,
      });
      const topic = this.cluster.image.topics[h.spec.topic];
      const partitions = h.spec.partitions ?? topic?.partitions.map((_, i) => i) ?? [];
      h.consumer.assign(partitions.map((partition) => ({ topic: h.spec.topic, partition })));
    } else if (h.kind === 'group') {
      const spec = h.spec;
      // A process per member, each with its own start-up: their refresh timers are out of phase.
      h.members = Array.from({ length: spec.members }, (_, i) => {
        const member = this.cluster.groupConsumer(`${name}-${i + 1}`, {
          flavour,
          groupId: name,
          topics: [spec.topic],
          config: (spec.config ?? {}) as GroupConsumerConfigInput,
          start: false,
        });
        this.afterStartup(member.id, () => member.start());
        return member;
      });
    } else {
      h.report = this.cluster.producerPerfTest({
        name,
        topic: h.spec.topic,
        numRecords: h.spec.numRecords,
        throughput: h.spec.throughput,
        recordSize: h.spec.recordSize,
        flavour,
        ...(h.spec.config ? { config: h.spec.config as ProducerConfigInput } : {}),
      });
    }
  }

  /**
   * Runs `launch` once the client process `name` has started up (kafkasim.client.startup.ms, drawn per process);
   * a process stopped before that never launches.
   */
  private afterStartup(name: string, launch: () => void): void {
    const ms = this.cluster.startup.clientMs(name);
    if (ms <= 0) return launch();
    const timer = this.cluster.sim.schedule(
      ms,
      () => {
        this.pending.delete(name);
        launch();
      },
      'scenario.client-startup',
    );
    this.pending.set(name, timer);
  }

  /** Stops generating (records already handed to a producer still complete); a consumer stops. */
  stop(name: string): void {
    const h = this.handle(name);
    if (h.kind === 'producer') h.workload?.stop();
    else if (h.kind === 'consumer') h.consumer?.stop();
    else if (h.kind === 'group') {
      for (const m of h.members ?? []) {
        this.pending.get(m.id)?.cancel();
        this.pending.delete(m.id);
        m.close();
      }
    } else if (h.kind === 'ingest') {
      this.pending.get(name)?.cancel();
      this.pending.delete(name);
      h.service?.stop();
    } else h.report?.workload.stop();
  }

  producerOf(name: string): Producer | undefined {
    const h = this.handle(name);
    if (h.kind === 'producer') return h.producer;
    if (h.kind === 'perfProducer') return h.report?.workload.producer;
    return undefined;
  }

  /** Cheap counters (no log scan). */
  counters(name: string): Record<'sent' | 'acknowledged' | 'failed', number> {
    const p = this.producerOf(name);
    return { sent: p?.recordsSent ?? 0, acknowledged: p?.recordsAcked ?? 0, failed: p?.recordsFailed ?? 0 };
  }

  /**
   * The timeline is over: nothing runs any more, so the logs stay as they are and each producer's accounting (a
   * scan of every record it sent) is computed once for the expectations and the metrics that ask for it.
   */
  settle(): void {
    this.settled ??= new Map();
  }

  /** Exact accounting against the partition logs (scans them). */
  delivery(name: string): Record<DeliveryField, number> {
    const known = this.settled?.get(name);
    if (known) return { ...known };
    if (!this.producerOf(name)) return { sent: 0, acknowledged: 0, failed: 0, lost: 0, duplicated: 0 };
    const d = this.cluster.deliveryReport(name);
    const out = {
      sent: d.sent,
      acknowledged: d.acknowledged,
      failed: d.failed,
      lost: d.lost,
      duplicated: d.duplicated,
    };
    this.settled?.set(name, { ...out });
    return out;
  }

  errorCounts(name: string): Record<string, number> {
    const counts = this.producerOf(name)?.errorCounts ?? {};
    return Object.fromEntries(
      Object.entries(counts)
        .filter(([, n]) => n !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ) as Record<string, number>;
  }

  errorCount(name: string, error?: string): number {
    const counts = this.errorCounts(name);
    if (error !== undefined) return counts[error] ?? 0;
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  consumerStats(name: string): Record<'consumed' | 'lag', number> {
    const h = this.handle(name);
    const c = h.kind === 'consumer' ? h.consumer : undefined;
    return { consumed: c?.recordsConsumed ?? 0, lag: c?.lag ?? 0 };
  }

  /** A group's Stable members: distinct partitions owned (-1 when one is owned twice), the fewest per member. */
  groupStats(name: string): Record<'assigned' | 'perMember' | 'members' | 'unowned' | 'spread', number> {
    const h = this.handle(name);
    const members = h.kind === 'group' ? (h.members ?? []).filter((m) => m.up) : [];
    const stable = members.filter((m) => m.memberState === 'Stable');
    const owned = stable.flatMap((m) => m.ownedPartitions().map((tp) => `${tp.topic}-${tp.partition}`));
    const distinct = new Set(owned);
    const counts = stable.map((m) => m.ownedPartitions().length);
    const allStable = stable.length === members.length && counts.length > 0;
    // perMember holds for every member only if all are Stable: report the smallest, or -1 while any is not.
    const perMember = allStable && Math.min(...counts) === Math.max(...counts) ? counts[0]! : -1;
    // The group's topic's partitions in the metadata image that no Stable member owns (new ones count at once).
    const topicName = h.kind === 'group' ? h.spec.topic : undefined;
    const topic = topicName !== undefined ? this.cluster.image.topics[topicName] : undefined;
    let unowned = 0;
    for (let p = 0; p < (topic?.partitions.length ?? 0); p++)
      if (!distinct.has(`${topicName}-${p}`)) unowned++;
    return {
      assigned: distinct.size === owned.length ? distinct.size : -1,
      perMember,
      members: stable.length,
      unowned,
      spread: allStable ? Math.max(...counts) - Math.min(...counts) : -1,
    };
  }

  /** The running ingest service of that name (an error when it is not one, or has not started). */
  ingestService(name: string): IngestService {
    const h = this.handle(name);
    if (h.kind !== 'ingest') throw new Error(`client '${name}' is not an ingest service`);
    if (!h.service) throw new Error(`ingest service '${name}' has not started`);
    return h.service;
  }

  ingestStats(name: string): IngestStats {
    const h = this.handle(name);
    const svc = h.kind === 'ingest' ? h.service : undefined;
    if (!svc)
      return {
        rowsTotal: 0,
        errorsTotal: 0,
        consumeRowsTotal: 0,
        lostBatches: 0,
        lostRecords: 0,
        assigned: 0,
        minPerWorker: 0,
        maxPerWorker: 0,
      };
    const assignment = svc.currentAssignment();
    const counts = assignment.map((a) => a.length);
    return {
      rowsTotal: svc.metrics.ingestRowsTotal,
      errorsTotal: svc.metrics.ingestErrorsTotal,
      consumeRowsTotal: svc.metrics.consumeRowsTotal,
      lostBatches: svc.losses.length,
      lostRecords: svc.losses.reduce((n, l) => n + l.records, 0),
      assigned: new Set(assignment.flat().map((p) => `${p.topic}-${p.partition}`)).size,
      minPerWorker: counts.length ? Math.min(...counts) : 0,
      maxPerWorker: counts.length ? Math.max(...counts) : 0,
    };
  }

  /** Whether a perf producer finished (the cheap part of perfStats). */
  perfDone(name: string): boolean {
    const h = this.handle(name);
    return h.kind === 'perfProducer' && h.report !== undefined && h.report.workload.done;
  }

  perfStats(name: string): PerfStats {
    const h = this.handle(name);
    const report = h.kind === 'perfProducer' ? h.report : undefined;
    if (!report) return { done: false, completed: 0 };
    const stats: PerfStats = { done: report.workload.done, completed: report.workload.completed };
    // Loops, not spread: a waitUntil on a perf producer reads these after every millisecond of virtual time.
    const windows = report.windows;
    if (windows.length > 0) {
      let min = Number.POSITIVE_INFINITY;
      for (const w of windows) if (w.recordsPerSec < min) min = w.recordsPerSec;
      stats.minRecordsPerSec = min;
    }
    // kafka-producer-perf-test's summary: "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, ..."
    const m = report.summary
      ? /records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency/.exec(
          report.summary,
        )
      : null;
    if (m) {
      stats.recordsPerSec = Number(m[1]);
      stats.avgLatencyMs = Number(m[2]);
      stats.maxLatencyMs = Number(m[3]);
    } else if (windows.length > 0) {
      let max = Number.NEGATIVE_INFINITY;
      for (const w of windows) if (w.maxLatencyMs > max) max = w.maxLatencyMs;
      stats.maxLatencyMs = max;
    }
    return stats;
  }

  /** The built-in metrics of every client that ran. */
  metrics(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, h] of this.handles) {
      if (!this.isStarted(name)) continue;
      if (h.kind === 'consumer') {
        const s = this.consumerStats(name);
        out[`${name}.consumed`] = s.consumed;
        out[`${name}.lag`] = s.lag;
        continue;
      }
      if (h.kind === 'ingest') {
        const s = this.ingestStats(name);
        for (const k of [
          'rowsTotal',
          'errorsTotal',
          'consumeRowsTotal',
          'lostBatches',
          'lostRecords',
        ] as const)
          out[`${name}.${k}`] = s[k];
        continue;
      }
      if (h.kind === 'group') {
        const s = this.groupStats(name);
        out[`${name}.members`] = s.members;
        out[`${name}.assigned`] = s.assigned;
        out[`${name}.consumed`] = (h.members ?? []).reduce((n, m) => n + m.recordsConsumed, 0);
        continue;
      }
      const d = this.delivery(name);
      for (const [k, v] of Object.entries(d)) out[`${name}.${k}`] = v;
      out[`${name}.produceErrors`] = this.errorCount(name);
      if (h.kind === 'perfProducer') {
        const s = this.perfStats(name);
        for (const k of ['recordsPerSec', 'avgLatencyMs', 'maxLatencyMs', 'minRecordsPerSec'] as const) {
          if (s[k] !== undefined) out[`${name}.${k}`] = s[k];
        }
      }
    }
    return out;
  }
}
