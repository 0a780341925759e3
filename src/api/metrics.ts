// GET /metrics: the simulation in Prometheus' text exposition format (version 0.0.4): the clock, event and
// trace counters, broker state, partition health, per-partition offsets and each workload's counters. Values are
// read from the simulation as it is; reading changes nothing.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './context.ts';
import { routeSchema } from './route-schema.ts';
import { IngestRun } from './workloads.ts';

/** Prometheus label values escape backslash, double quote and newline. */
const esc = (v: string | number) =>
  String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

class Exposition {
  private lines: string[] = [];
  metric(
    name: string,
    type: 'gauge' | 'counter',
    help: string,
    samples: [Record<string, string | number>, number][],
  ): void {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const l = Object.entries(labels)
        .map(([k, v]) => `${k}="${esc(v)}"`)
        .join(',');
      this.lines.push(`${name}${l ? `{${l}}` : ''} ${Number.isFinite(value) ? value : 'NaN'}`);
    }
  }
  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

export function metricsText(ctx: ApiContext): string {
  const world = ctx.host.world;
  const cluster = world.cluster;
  const sim = cluster.sim;
  const image = cluster.image;
  const m = new Exposition();
  m.metric('kafkasim_virtual_time_seconds', 'gauge', 'Virtual time of the simulation.', [
    [{}, sim.now / 1000],
  ]);
  m.metric('kafkasim_events_total', 'counter', 'Simulation events executed.', [[{}, sim.eventCount]]);
  m.metric('kafkasim_pending_events', 'gauge', 'Simulation events scheduled and not yet run.', [
    [{}, sim.pendingEvents],
  ]);
  m.metric('kafkasim_trace_events_total', 'counter', 'Trace events emitted.', [[{}, sim.trace.count]]);
  m.metric('kafkasim_requests_applied_total', 'counter', 'API requests applied to the simulation.', [
    [{}, ctx.host.log.length],
  ]);
  m.metric('kafkasim_halted', 'gauge', '1 when the simulation halted on a model error.', [
    [{}, ctx.host.halted === undefined ? 0 : 1],
  ]);
  const speed = ctx.pacer.speed;
  m.metric('kafkasim_speed', 'gauge', 'Virtual seconds per wall second (0 = max).', [
    [{}, speed === 'max' ? 0 : speed],
  ]);
  m.metric('kafkasim_paused', 'gauge', '1 when wall-clock pacing is paused.', [
    [{}, ctx.pacer.paused || ctx.pacer.manual ? 1 : 0],
  ]);
  const net = sim.network.stats;
  m.metric('kafkasim_network_messages_total', 'counter', 'Messages on the simulated network.', [
    [{ outcome: 'sent' }, net.sent],
    [{ outcome: 'delivered' }, net.delivered],
    [{ outcome: 'dropped' }, net.dropped],
  ]);
  const brokers = [...cluster.brokers.values()];
  m.metric(
    'kafkasim_broker_up',
    'gauge',
    '1 when the broker process is up.',
    brokers.map((b) => [{ broker: b.brokerId }, b.up ? 1 : 0]),
  );
  m.metric(
    'kafkasim_broker_fenced',
    'gauge',
    '1 when the controller has the broker fenced.',
    brokers.map((b) => [{ broker: b.brokerId }, image.brokers[b.brokerId]?.fenced === false ? 0 : 1]),
  );
  m.metric(
    'kafkasim_broker_leader_count',
    'gauge',
    'Partitions the broker leads.',
    brokers.map((b) => {
      let n = 0;
      for (const t of Object.values(image.topics))
        for (const p of t.partitions) if (p.leader === b.brokerId) n++;
      return [{ broker: b.brokerId }, n];
    }),
  );
  m.metric(
    'kafkasim_broker_bytes_in_total',
    'counter',
    'Bytes appended to the partitions the broker currently leads.',
    brokers.map((b) => {
      let n = 0;
      for (const r of b.replicas.values()) n += r.bytesIn;
      return [{ broker: b.brokerId }, n];
    }),
  );
  let partitions = 0;
  let under = 0;
  let offline = 0;
  let reassigning = 0;
  const hw: [Record<string, string | number>, number][] = [];
  for (const t of Object.values(image.topics)) {
    for (const p of t.partitions) {
      partitions++;
      if (p.isr.length < p.replicas.length) under++;
      if (p.leader < 0) offline++;
      if (p.addingReplicas.length > 0 || p.removingReplicas.length > 0) reassigning++;
      const log = cluster.shared
        ? cluster.shared.get(t.topicId, p.partition)
        : p.leader >= 0
          ? cluster.brokers.get(p.leader)?.replicas.get(`${t.topicId}:${p.partition}`)?.log
          : undefined;
      if (log) hw.push([{ topic: t.name, partition: p.partition }, log.highWatermark]);
    }
  }
  m.metric('kafkasim_topics', 'gauge', 'Topics in the cluster.', [[{}, Object.keys(image.topics).length]]);
  m.metric('kafkasim_partitions', 'gauge', 'Partitions in the cluster.', [[{}, partitions]]);
  m.metric(
    'kafkasim_under_replicated_partitions',
    'gauge',
    'Partitions whose ISR is smaller than the replica set.',
    [[{}, under]],
  );
  m.metric('kafkasim_offline_partitions', 'gauge', 'Partitions without a leader.', [[{}, offline]]);
  m.metric('kafkasim_reassigning_partitions', 'gauge', 'Partitions with a reassignment in progress.', [
    [{}, reassigning],
  ]);
  m.metric(
    'kafkasim_partition_high_watermark',
    'gauge',
    "The partition's high watermark (its leader's).",
    hw,
  );
  const workloads = world.workloads.list();
  const stat = (key: string) =>
    workloads
      .filter((w) => typeof w.stats()[key] === 'number')
      .map((w): [Record<string, string>, number] => [
        { workload: w.name, kind: w.kind },
        w.stats()[key] as number,
      ]);
  m.metric(
    'kafkasim_workload_records_acknowledged_total',
    'counter',
    'Records a producer workload had acknowledged.',
    stat('acknowledged'),
  );
  m.metric(
    'kafkasim_workload_records_failed_total',
    'counter',
    'Records a producer workload saw fail.',
    stat('failed'),
  );
  m.metric(
    'kafkasim_workload_records_consumed_total',
    'counter',
    'Records a consumer workload consumed.',
    stat('consumed'),
  );
  let text = m.text();
  // bend-ingest-kafka's own metrics (source workflow B), unlabelled as the service exposes them: one service's.
  const ingest = workloads.find((w): w is IngestRun => w instanceof IngestRun && w.service !== undefined);
  if (ingest) text += ingest.service!.metrics.text();
  return text;
}

export function registerMetricsRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/metrics',
    {
      schema: routeSchema({
        summary: 'Prometheus metrics',
        tags: ['Metrics'],
        ok: { 200: { type: 'string', description: 'text/plain; version=0.0.4' } },
      }),
    },
    async (_req, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(metricsText(ctx)),
  );
}
