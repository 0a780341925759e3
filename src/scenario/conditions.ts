// Conditions (for waitUntil and expectations) and metrics: each measures something on the running cluster and
// reports what it expected next to what it found, so a failed expectation explains itself.

import { parseLakeTable } from '../../models/lake/index.ts';
import type { MetadataImage, PartitionRegistration } from '../../models/metadata/index.ts';
import { parseDuration } from '../../models/sim/index.ts';
import { type Cluster, groupOffsetsNow } from '../cluster/index.ts';
import type { PerfStats, ScenarioClients } from './clients.ts';
import type { ErrorWindows } from './error-windows.ts';
import type { Comparison, Condition, MetricSpec, StepPoint } from './types.ts';

/** What a step left behind for conditions that refer to it by label. */
export interface StepRecord {
  index: number;
  label: string | undefined;
  action: string;
  /** When the step started and ended, in ms since the timeline started (undefined until it did). */
  start: number | undefined;
  end: number | undefined;
  /** A tool step: when its request reached the controller, in ms since the timeline started. */
  applied?: number;
  status: 'ok' | 'failed' | 'timed-out' | 'skipped';
  /** The broker the step acted on (crashBroker, restartBroker, slowBroker). */
  broker?: number;
  /** The controller the step acted on (crashController, restartController). */
  controller?: number;
  /** The controller's committed image when the step started. */
  image?: MetadataImage;
  error?: string;
}

export interface EvalContext {
  cluster: Cluster;
  clients: ScenarioClients;
  brokerIds: readonly number[];
  steps: ReadonlyMap<string, StepRecord>;
  /** Set when the run stopped on an invariant violation. */
  invariantViolation: string | undefined;
  /** Producers' error windows (for the errorWindow metric), and the timeline's time 0 in virtual time. */
  errorWindows?: ErrorWindows;
  t0?: number;
}

export interface Outcome {
  passed: boolean;
  expected: string;
  actual: unknown;
}

// ---- comparisons ----------------------------------------------------------------------------------------------

export function compare(value: number, cmp: Comparison): boolean {
  if (typeof cmp === 'number') return value === cmp;
  return (
    (cmp.eq === undefined || value === cmp.eq) &&
    (cmp.ne === undefined || value !== cmp.ne) &&
    (cmp.gt === undefined || value > cmp.gt) &&
    (cmp.gte === undefined || value >= cmp.gte) &&
    (cmp.lt === undefined || value < cmp.lt) &&
    (cmp.lte === undefined || value <= cmp.lte)
  );
}

const OPS = { eq: '=', ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export function describeComparison(subject: string, cmp: Comparison): string {
  if (typeof cmp === 'number') return `${subject} = ${cmp}`;
  return (Object.keys(OPS) as (keyof typeof OPS)[])
    .filter((k) => cmp[k] !== undefined)
    .map((k) => `${subject} ${OPS[k]} ${cmp[k]}`)
    .join(' and ');
}

// ---- metadata helpers -----------------------------------------------------------------------------------------

function partitionsOf(
  image: MetadataImage,
  topic: string | undefined,
): { topic: string; p: PartitionRegistration }[] {
  const out: { topic: string; p: PartitionRegistration }[] = [];
  for (const name of Object.keys(image.topics).sort()) {
    if (topic !== undefined && name !== topic) continue;
    for (const p of image.topics[name]!.partitions) out.push({ topic: name, p });
  }
  return out;
}

function selected(
  image: MetadataImage,
  topic: string,
  partitions: readonly number[] | undefined,
): PartitionRegistration[] {
  const t = image.topics[topic];
  if (!t) return [];
  return partitions
    ? partitions.map((i) => t.partitions[i]).filter((p) => p !== undefined)
    : [...t.partitions];
}

function perBroker(
  image: MetadataImage,
  brokerIds: readonly number[],
  topic: string | undefined,
  count: (p: PartitionRegistration) => readonly number[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of brokerIds) counts[id] = 0;
  for (const { p } of partitionsOf(image, topic)) {
    for (const b of count(p)) if (b >= 0) counts[b] = (counts[b] ?? 0) + 1;
  }
  return counts;
}

const leadersOf = (p: PartitionRegistration) => [p.leader];
const replicasOf = (p: PartitionRegistration) => p.replicas;

function skew(counts: Record<string, number>): number {
  const v = Object.values(counts);
  return v.length === 0 ? 0 : Math.max(...v) - Math.min(...v);
}

/** The log that holds a partition's records: its leader's (kafka storage) or the shared one. */
export function partitionLog(cluster: Cluster, topic: string, partition: number) {
  const t = cluster.image.topics[topic];
  if (!t) return undefined;
  const reg = t.partitions[partition];
  if (!reg) return undefined;
  if (cluster.shared) return cluster.shared.get(t.topicId, partition);
  if (reg.leader < 0) return undefined;
  return cluster.brokers.get(reg.leader)?.replicas.get(`${t.topicId}:${partition}`)?.log;
}

function offsetSum(
  cluster: Cluster,
  topic: string,
  partitions: readonly number[] | undefined,
  field: 'highWatermark' | 'logEndOffset',
): number {
  const t = cluster.image.topics[topic];
  if (!t) return 0;
  const indices = partitions ?? t.partitions.map((_, i) => i);
  let sum = 0;
  for (const i of indices) sum += partitionLog(cluster, topic, i)?.[field] ?? 0;
  return sum;
}

// ---- conditions -----------------------------------------------------------------------------------------------

/** Checks a list of named comparisons; the outcome shows every measured field. */
/**
 * An outcome whose texts are built only when read: a waitUntil evaluates its condition after every millisecond
 * of virtual time, and only the last evaluation's texts are ever shown.
 */
function lazyOutcome(passed: boolean, expected: () => string, actual: () => unknown): Outcome {
  return new LazyOutcome(passed, expected, actual);
}

/** Getters on the prototype: cheap to create, once per evaluation. */
class LazyOutcome implements Outcome {
  #expected: string | undefined;
  #actual: { value: unknown } | undefined;
  constructor(
    readonly passed: boolean,
    private readonly makeExpected: () => string,
    private readonly makeActual: () => unknown,
  ) {}

  get expected(): string {
    this.#expected ??= this.makeExpected();
    return this.#expected;
  }

  get actual(): unknown {
    this.#actual ??= { value: this.makeActual() };
    return this.#actual.value;
  }

  toJSON(): { passed: boolean; expected: string; actual: unknown } {
    return { passed: this.passed, expected: this.expected, actual: this.actual };
  }
}

function fields(
  subject: string,
  measured: Record<string, number>,
  cmps: Record<string, Comparison | undefined>,
): Outcome {
  let passed = true;
  for (const k in cmps) {
    const cmp = cmps[k];
    if (cmp !== undefined && !compare(measured[k]!, cmp)) passed = false;
  }
  const given = () => Object.entries(cmps).filter((e): e is [string, Comparison] => e[1] !== undefined);
  return lazyOutcome(
    passed,
    () =>
      `${subject}: ${given()
        .map(([k, cmp]) => describeComparison(k, cmp))
        .join(', ')}`,
    () => Object.fromEntries(given().map(([k]) => [k, measured[k]!])),
  );
}

export function evaluate(c: Condition, ctx: EvalContext): Outcome {
  const { cluster } = ctx;
  const image = cluster.image;
  if (c.leadersPerBroker || c.replicasPerBroker) {
    const spec = (c.leadersPerBroker ?? c.replicasPerBroker)!;
    const what = c.leadersPerBroker ? 'leaders' : 'replicas';
    const counts = perBroker(image, ctx.brokerIds, spec.topic, c.leadersPerBroker ? leadersOf : replicasOf);
    const parts: string[] = [];
    let passed = true;
    if (spec.equals) {
      const want: Record<string, number> = {};
      for (const id of ctx.brokerIds) want[id] = spec.equals[id] ?? 0;
      parts.push(`${what} per broker = ${JSON.stringify(want)}`);
      if (Object.keys(want).some((id) => want[id] !== counts[id])) passed = false;
    }
    if (spec.maxSkew !== undefined) {
      parts.push(`max - min ${what} per broker <= ${spec.maxSkew}`);
      if (skew(counts) > spec.maxSkew) passed = false;
    }
    const scope = spec.topic ? ` (${spec.topic})` : '';
    return { passed, expected: parts.join(' and ') + scope, actual: counts };
  }
  if (c.ledBy) {
    const ps = selected(image, c.ledBy.topic, c.ledBy.partitions);
    const leaders = ps.map((p) => p.leader);
    return {
      passed: ps.length > 0 && leaders.every((l) => l === c.ledBy!.broker),
      expected: `every partition of ${c.ledBy.topic}${c.ledBy.partitions ? ` ${JSON.stringify(c.ledBy.partitions)}` : ''} led by broker ${c.ledBy.broker}`,
      actual: { leaders },
    };
  }
  if (c.leaderFromIsr) {
    const spec = c.leaderFromIsr;
    const since = ctx.steps.get(spec.since);
    const then = since?.image;
    if (!then) {
      return {
        passed: false,
        expected: `leaders from the ISR at step '${spec.since}'`,
        actual: `step '${spec.since}' did not run`,
      };
    }
    const before = selected(then, spec.topic, spec.partitions);
    const now = selected(image, spec.topic, spec.partitions);
    const rows = now.map((p) => {
      const old = before.find((b) => b.partition === p.partition);
      const up = p.leader >= 0 && (cluster.brokers.get(p.leader)?.up ?? false);
      return {
        partition: p.partition,
        leader: p.leader,
        isrBefore: old ? [...old.isr] : [],
        ok: up && !!old?.isr.includes(p.leader),
      };
    });
    return {
      passed: rows.length > 0 && rows.every((r) => r.ok),
      expected: `every partition of ${spec.topic} led by a live broker from its ISR at step '${spec.since}'`,
      actual: rows.map(({ partition, leader, isrBefore }) => ({ partition, leader, isrBefore })),
    };
  }
  if (c.isr) {
    const spec = c.isr;
    const ps = selected(image, spec.topic, spec.partitions);
    const expected: string[] = [];
    if (spec.size !== undefined) expected.push(describeComparison('ISR size', spec.size));
    if (spec.includes !== undefined) expected.push(`ISR includes ${spec.includes}`);
    if (spec.excludes !== undefined) expected.push(`ISR excludes ${spec.excludes}`);
    const ok = (p: PartitionRegistration) =>
      (spec.size === undefined || compare(p.isr.length, spec.size)) &&
      (spec.includes === undefined || p.isr.includes(spec.includes)) &&
      (spec.excludes === undefined || !p.isr.includes(spec.excludes));
    return {
      passed: ps.length > 0 && ps.every(ok),
      expected: `every partition of ${spec.topic}: ${expected.join(', ')}`,
      actual: Object.fromEntries(ps.map((p) => [p.partition, [...p.isr]])),
    };
  }
  if (c.offsets) {
    const o = c.offsets;
    return fields(
      `${o.topic}${o.partitions ? ` ${JSON.stringify(o.partitions)}` : ''} (sum over partitions)`,
      {
        highWatermark: offsetSum(cluster, o.topic, o.partitions, 'highWatermark'),
        logEndOffset: offsetSum(cluster, o.topic, o.partitions, 'logEndOffset'),
      },
      { highWatermark: o.highWatermark, logEndOffset: o.logEndOffset },
    );
  }
  if (c.reassignments) {
    const n = partitionsOf(image, c.reassignments.topic).filter(
      ({ p }) => p.addingReplicas.length > 0 || p.removingReplicas.length > 0,
    ).length;
    return {
      passed: compare(n, c.reassignments.count),
      expected: describeComparison(
        `partitions being reassigned${c.reassignments.topic ? ` in ${c.reassignments.topic}` : ''}`,
        c.reassignments.count,
      ),
      actual: n,
    };
  }
  if (c.partitionCount) {
    const n = image.topics[c.partitionCount.topic]?.partitions.length ?? 0;
    return {
      passed: compare(n, c.partitionCount.count),
      expected: describeComparison(`partitions of ${c.partitionCount.topic}`, c.partitionCount.count),
      actual: n,
    };
  }
  if (c.delivery) {
    const d = c.delivery;
    const cheap = d.lost === undefined && d.duplicated === undefined;
    const measured = cheap ? ctx.clients.counters(d.producer) : ctx.clients.delivery(d.producer);
    return fields(`producer ${d.producer}`, measured, {
      sent: d.sent,
      acknowledged: d.acknowledged,
      failed: d.failed,
      lost: d.lost,
      duplicated: d.duplicated,
    });
  }
  if (c.producerErrors) {
    const e = c.producerErrors;
    const n = ctx.clients.errorCount(e.producer, e.error);
    return {
      passed: compare(n, e.count),
      expected: describeComparison(`${e.error ?? 'produce errors'} seen by ${e.producer}`, e.count),
      actual: e.error ? n : { total: n, byError: ctx.clients.errorCounts(e.producer) },
    };
  }
  if (c.consumer) {
    const s = c.consumer;
    return fields(`consumer ${s.name}`, ctx.clients.consumerStats(s.name), {
      consumed: s.consumed,
      lag: s.lag,
    });
  }
  if (c.group) {
    const g = c.group;
    return fields(`consumer group ${g.name}`, ctx.clients.groupStats(g.name), {
      assigned: g.assigned,
      perMember: g.perMember,
      members: g.members,
    });
  }
  if (c.perf) {
    const s = c.perf;
    const keys = (['completed', 'minRecordsPerSec', 'maxLatencyMs'] as const).filter(
      (k) => s[k] !== undefined,
    );
    // `done` alone (what a waitUntil on a perf run asks every millisecond) needs none of the statistics.
    const stats = keys.length === 0 ? { done: ctx.clients.perfDone(s.name) } : ctx.clients.perfStats(s.name);
    let passed = s.done === undefined || stats.done === s.done;
    for (const k of keys) {
      const value = (stats as PerfStats)[k];
      if (value === undefined || !compare(value, s[k]!)) passed = false;
    }
    return lazyOutcome(
      passed,
      () =>
        `perf producer ${s.name}: ${[
          ...(s.done !== undefined ? [`done = ${s.done}`] : []),
          ...keys.map((k) => describeComparison(k, s[k]!)),
        ].join(', ')}`,
      () => ({
        ...(s.done !== undefined ? { done: stats.done } : {}),
        ...Object.fromEntries(keys.map((k) => [k, (stats as PerfStats)[k] ?? null])),
      }),
    );
  }
  if (c.timing) {
    const t = c.timing;
    const ms = timingMs(t, ctx);
    const bounds = [
      t.min !== undefined ? `>= ${t.min}` : undefined,
      t.max !== undefined ? `<= ${t.max}` : undefined,
    ].filter(Boolean);
    const expected = `time from ${t.from ? `step '${t.from}'` : 'the start'} to the end of step '${t.to}' ${bounds.join(' and ')}`;
    if (ms === undefined) return { passed: false, expected, actual: `step '${t.to}' did not finish` };
    const passed =
      (t.min === undefined || ms >= parseDuration(t.min)) &&
      (t.max === undefined || ms <= parseDuration(t.max));
    return { passed, expected, actual: `${round(ms)}ms` };
  }
  if (c.lakeRows) {
    const { database, table } = parseLakeTable(c.lakeRows.table, 'default');
    const n = cluster.lake.rowCount(database, table);
    return {
      passed: compare(n, c.lakeRows.count),
      expected: describeComparison(`rows in ${database}.${table}`, c.lakeRows.count),
      actual: n,
    };
  }
  if (c.groupLag) {
    const g = c.groupLag;
    // Read without requests: this is also checked while the simulation runs (waitUntil).
    const offsets = groupOffsetsNow(cluster, g.group);
    const byPartition: Record<string, number> = {};
    let lag = 0;
    for (const o of offsets) {
      if (g.topic !== undefined && o.topic !== g.topic) continue;
      if (g.partitions && !g.partitions.includes(o.partition)) continue;
      // kafka-consumer-groups prints LAG = LOG-END-OFFSET - CURRENT-OFFSET; without a commit, all of it.
      const l = (o.logEndOffset ?? 0) - (o.committedOffset ?? 0);
      byPartition[`${o.topic}-${o.partition}`] = l;
      lag += l;
    }
    const missing = (g.partitions ?? []).filter(
      (p) => !offsets.some((o) => o.partition === p && (g.topic === undefined || o.topic === g.topic)),
    );
    const scope = `${g.topic ?? 'every topic'}${g.partitions ? ` ${JSON.stringify(g.partitions)}` : ''}`;
    return {
      passed: missing.length === 0 && compare(lag, g.lag),
      expected: `${describeComparison(`lag of group ${g.group}`, g.lag)} (${scope})`,
      actual: missing.length ? { lag, byPartition, noOffsetsFor: missing } : { lag, byPartition },
    };
  }
  if (c.ingest) {
    const i = c.ingest;
    return fields(
      `ingest service ${i.name}`,
      { ...ctx.clients.ingestStats(i.name) },
      {
        rowsTotal: i.rowsTotal,
        errorsTotal: i.errorsTotal,
        consumeRowsTotal: i.consumeRowsTotal,
        lostBatches: i.lostBatches,
        lostRecords: i.lostRecords,
        assigned: i.assigned,
        minPerWorker: i.minPerWorker,
        maxPerWorker: i.maxPerWorker,
      },
    );
  }
  if (c.invariants) {
    return {
      passed: ctx.invariantViolation === undefined,
      expected: 'no invariant violated',
      actual: ctx.invariantViolation ?? 'none violated',
    };
  }
  if (c.quorum) {
    const q = c.quorum;
    const status = cluster.quorumStatus();
    const measured = {
      leader: status.activeController !== undefined ? 1 : 0,
      leaderChanges: status.leaderChanges,
      epoch: status.epoch,
      unavailableMs: round(status.unavailableMs),
    };
    const outcome = fields('metadata quorum', measured, {
      leader: q.leader === undefined ? undefined : q.leader ? 1 : 0,
      leaderChanges: q.leaderChanges,
      epoch: q.epoch,
      unavailableMs: q.unavailableMs,
    });
    return {
      ...outcome,
      expected:
        q.leader === undefined
          ? outcome.expected
          : outcome.expected.replace(/leader = [01]/, `leader = ${q.leader}`),
      actual: {
        ...(outcome.actual as Record<string, number>),
        ...(q.leader !== undefined ? { leader: measured.leader === 1 } : {}),
        activeController: status.activeController ?? null,
      },
    };
  }
  if (c.metadataLoad) {
    const m = c.metadataLoad;
    const status = cluster.metadataLoadStatus();
    if (!status)
      return { passed: false, expected: 'a metadata append load', actual: 'cluster.metadataLoad is not set' };
    if (m.exact) {
      // Every controller read 1, 2, 3, ...; and whatever was acknowledged as committed is still committed.
      const lost = Math.max(0, status.maxAcknowledged - status.committed);
      return {
        passed: status.violation === undefined && lost === 0,
        expected:
          'the committed counter runs exactly 1, 2, 3, ... on every controller and holds every acknowledged value',
        actual: {
          committed: status.committed,
          maxAcknowledged: status.maxAcknowledged,
          ...(status.violation !== undefined ? { violation: status.violation } : {}),
        },
      };
    }
    const counts = { committed: status.committed, acknowledged: status.acknowledged };
    return fields('metadata append load', counts, {
      committed: m.committed,
      acknowledged: m.acknowledged,
    });
  }
  if (c.metadataConsistent) {
    const active = cluster.activeController();
    if (!active)
      return { passed: false, expected: 'one metadata image everywhere', actual: 'no active controller' };
    const image = active.committedImage;
    const behind: Record<string, number> = {};
    for (const b of cluster.brokers.values())
      if (b.up && b.image !== image && !sameImage(b.image, image)) behind[b.id] = b.image.offset;
    for (const x of cluster.controllers)
      if (x.up && x !== active && !sameImage(x.committedImage, image)) behind[x.id] = x.committedImage.offset;
    return {
      passed: Object.keys(behind).length === 0,
      expected: `every running broker and controller holds the active controller's committed image`,
      actual: { activeController: active.id, offset: image.offset, differing: behind },
    };
  }
  if (c.all) {
    const results = c.all.map((x) => evaluate(x, ctx));
    return lazyOutcome(
      results.every((r) => r.passed),
      () => `all of: ${results.map((r) => r.expected).join('; ')}`,
      () => results.map((r) => r.actual),
    );
  }
  if (c.any) {
    const results = c.any.map((x) => evaluate(x, ctx));
    return lazyOutcome(
      results.some((r) => r.passed),
      () => `any of: ${results.map((r) => r.expected).join('; ')}`,
      () => results.map((r) => r.actual),
    );
  }
  if (c.not) {
    const r = evaluate(c.not, ctx);
    return lazyOutcome(
      !r.passed,
      () => `not (${r.expected})`,
      () => r.actual,
    );
  }
  throw new Error(`unknown condition ${JSON.stringify(c)}`);
}

/** Images are immutable values: the same offset and the same content (compared structurally) are equal. */
function sameImage(a: MetadataImage, b: MetadataImage): boolean {
  if (a === b) return true;
  if (a.offset !== b.offset) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function timingMs(
  t: { from?: string; fromPoint?: StepPoint; to: string },
  ctx: EvalContext,
): number | undefined {
  const to = ctx.steps.get(t.to)?.end;
  if (to === undefined) return undefined;
  const step = t.from === undefined ? undefined : ctx.steps.get(t.from);
  const from = t.from === undefined ? 0 : t.fromPoint === 'applied' ? step?.applied : step?.start;
  return from === undefined ? undefined : to - from;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

// ---- metrics --------------------------------------------------------------------------------------------------

export function measure(m: MetricSpec, ctx: EvalContext): number | null {
  if (m.delivery) {
    const f = m.delivery.field;
    if (f === 'lost' || f === 'duplicated') return ctx.clients.delivery(m.delivery.producer)[f];
    return ctx.clients.counters(m.delivery.producer)[f];
  }
  if (m.producerErrors) return ctx.clients.errorCount(m.producerErrors.producer, m.producerErrors.error);
  if (m.leadersPerBroker) {
    const counts = Object.values(
      perBroker(ctx.cluster.image, ctx.brokerIds, m.leadersPerBroker.topic, leadersOf),
    );
    if (m.leadersPerBroker.stat === 'max') return Math.max(...counts);
    if (m.leadersPerBroker.stat === 'min') return Math.min(...counts);
    return Math.max(...counts) - Math.min(...counts);
  }
  if (m.consumer) return ctx.clients.consumerStats(m.consumer.name)[m.consumer.field]!;
  if (m.perf) return ctx.clients.perfStats(m.perf.name)[m.perf.field] ?? null;
  if (m.offsets) return offsetSum(ctx.cluster, m.offsets.topic, m.offsets.partitions, m.offsets.field);
  if (m.timing) {
    const ms = timingMs(m.timing, ctx);
    return ms === undefined ? null : round(ms);
  }
  if (m.quorum) return round(ctx.cluster.quorumStatus()[m.quorum.field]);
  if (m.metadataLoad) return ctx.cluster.metadataLoadStatus()?.[m.metadataLoad.field] ?? null;
  if (m.errorWindow) {
    const field = m.errorWindow.field ?? 'windowMs';
    if (field === 'maxAckGapMs') {
      const gap = ctx.errorWindows?.maxAckGap(m.errorWindow.producer);
      return gap === undefined ? null : round(gap);
    }
    const w = ctx.errorWindows?.of(m.errorWindow.producer);
    if (!w) return null;
    if (field === 'windowMs') return round(w.last - w.first);
    return round((field === 'firstMs' ? w.first : w.last) - (ctx.t0 ?? 0));
  }
  throw new Error(`unknown metric ${JSON.stringify(m)}`);
}
