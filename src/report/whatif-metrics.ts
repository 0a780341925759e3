// The what-if metrics: numbers a sweep compares across partition counts, broker counts and configs, computed from
// a run's recording (and its result). Each reads the data it needs by kind; a metric whose data the run does not
// have (no balancer, no consumer group, no Raft events yet) is null, shown as n/a, never a made-up 0.
import type { ScenarioResult } from '../scenario/index.ts';
import type { TraceEvent } from '../sim/index.ts';
import type { PlacementChange, Recording } from './recording.ts';

export interface WhatIfMetric {
  name: string;
  unit: string;
  description: string;
}

export const WHATIF_METRICS: readonly WhatIfMetric[] = [
  {
    name: 'timeToBalanceMs',
    unit: 'ms',
    description:
      'From the first balancer plan with moves to the end of the last move it started (n/a without balancer.* events).',
  },
  {
    name: 'balancerMoves',
    unit: 'moves',
    description: 'Partition moves the balancer executed (n/a without balancer.* events).',
  },
  {
    name: 'moves',
    unit: 'moves',
    description:
      'Partitions whose replica set changed and settled elsewhere (reassignments, balancer, failover).',
  },
  {
    name: 'maxLoadDeviation',
    unit: 'ratio',
    description:
      "Largest distance of a live broker's network-in from the live brokers' mean, over the mean (5 s windows; 0.25 = 25%).",
  },
  {
    name: 'finalLoadDeviation',
    unit: 'ratio',
    description: 'The same deviation in the last 5 s window with traffic.',
  },
  {
    name: 'produceErrors',
    unit: 'errors',
    description: 'Produce errors the producers saw (each retried or failed batch counts).',
  },
  {
    name: 'produceLatencyP50Ms',
    unit: 'ms',
    description: 'Median record latency (send to acknowledgement).',
  },
  { name: 'produceLatencyP99Ms', unit: 'ms', description: '99th percentile record latency.' },
  { name: 'produceLatencyMaxMs', unit: 'ms', description: 'Highest record latency.' },
  {
    name: 'alterToProducedMs',
    unit: 'ms',
    description:
      'From a partition expansion (kafka-topics --alter) until producers wrote to every new partition.',
  },
  {
    name: 'alterToAssignedMs',
    unit: 'ms',
    description:
      "From a partition expansion until every partition had an owner among the running consumers (workflow B's 'all new partitions covered'; n/a unless consumers follow the expansion, i.e. groups).",
  },
  {
    name: 'maxLag',
    unit: 'records',
    description: 'Highest total consumer lag over the run (n/a without consumers).',
  },
  {
    name: 'finalLag',
    unit: 'records',
    description: 'Total consumer lag at the end (n/a without consumers).',
  },
  {
    name: 'lost',
    unit: 'records',
    description: 'Acknowledged records missing from the logs, over all producers.',
  },
  {
    name: 'duplicated',
    unit: 'records',
    description: 'Extra copies of records in the logs, over all producers.',
  },
  {
    name: 'groupRebalances',
    unit: 'generations',
    description: 'Consumer group generations completed (n/a without group.* events).',
  },
  {
    name: 'raftLeaderChanges',
    unit: 'changes',
    description: 'Times the Raft leader changed after the first election (n/a without raft.* role events).',
  },
  {
    name: 'raftUnavailableMs',
    unit: 'ms',
    description: 'Time without a Raft leader after the first election (n/a without raft.* role events).',
  },
];

export const WHATIF_METRIC_NAMES: readonly string[] = WHATIF_METRICS.map((m) => m.name);

/** The deviation window: long enough to smooth batch arrival, short enough to see a move. */
const LOAD_WINDOW_MS = 5000;

/** Every what-if metric of a run (null: no data for it in this run). */
export function whatIfMetrics(
  rec: Recording,
  result?: Pick<ScenarioResult, 'metrics'>,
): Record<string, number | null> {
  const balancer = balancerTiming(rec);
  const deviation = loadDeviation(rec);
  const lag = lagTotals(rec);
  const raft = raftTimeline(rec.events, rec.end);
  const generations = rec.events.filter((e) => e.kind === 'group.join-completed').length;
  const anyGroup = rec.events.some((e) => e.kind.startsWith('group.'));
  const firstAlter = rec.alters[0];
  return {
    timeToBalanceMs: balancer.timeToBalanceMs,
    balancerMoves: balancer.moves,
    moves: countMoves(rec.placement),
    maxLoadDeviation: deviation.max,
    finalLoadDeviation: deviation.final,
    produceErrors: rec.producers.length > 0 ? rec.produceErrorCount : null,
    produceLatencyP50Ms: rec.latency.p50,
    produceLatencyP99Ms: rec.latency.p99,
    produceLatencyMaxMs: rec.latency.max,
    alterToProducedMs:
      firstAlter && firstAlter.producedAt !== null ? round(firstAlter.producedAt - firstAlter.t) : null,
    alterToAssignedMs:
      firstAlter && firstAlter.assignedAt !== null ? round(firstAlter.assignedAt - firstAlter.t) : null,
    maxLag: lag.max,
    finalLag: lag.final,
    lost: sumOf(result?.metrics, '.lost'),
    duplicated: sumOf(result?.metrics, '.duplicated'),
    groupRebalances: anyGroup ? generations : null,
    raftLeaderChanges: raft ? raft.leaderChanges : null,
    raftUnavailableMs: raft ? round(raft.unavailableMs) : null,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function sumOf(metrics: Record<string, number | null> | undefined, suffix: string): number | null {
  if (!metrics) return null;
  let found = false;
  let sum = 0;
  for (const [k, v] of Object.entries(metrics)) {
    if (!k.endsWith(suffix) || v === null) continue;
    found = true;
    sum += v;
  }
  return found ? sum : null;
}

/** A move: a partition's replica set settles (no reassignment in progress) on a set other than its last one. */
export function countMoves(placement: readonly PlacementChange[]): number {
  const settled = new Map<string, string>();
  let moves = 0;
  for (const p of placement) {
    if (p.adding.length > 0 || p.removing.length > 0) continue;
    const key = `${p.topic}-${p.partition}`;
    const set = [...p.replicas].sort((a, b) => a - b).join(',');
    const before = settled.get(key);
    if (before !== undefined && before !== set) moves++;
    settled.set(key, set);
  }
  return moves;
}

interface BalancerTiming {
  timeToBalanceMs: number | null;
  moves: number | null;
}

interface MoveRef {
  topic: string;
  partition: number;
  destBrokerId: number;
}

/** Reads `balancer.plan` ({moves}) and `balancer.execute` ({moves: [{topic, partition, destBrokerId}]}). */
export function balancerTiming(rec: Recording): BalancerTiming {
  const plans = rec.events.filter((e) => e.kind === 'balancer.plan' && Number(e.moves) > 0);
  const executes = rec.events.filter((e) => e.kind === 'balancer.execute');
  if (plans.length === 0 && executes.length === 0) return { timeToBalanceMs: null, moves: null };
  let moves = 0;
  let end: number | undefined;
  for (const ex of executes) {
    const list = Array.isArray(ex.moves) ? (ex.moves as MoveRef[]) : [];
    moves += list.length;
    for (const m of list) {
      // The move is over when the partition settles with the destination among its replicas and leading.
      const done = rec.placement.find(
        (p) =>
          p.t >= ex.t &&
          p.topic === m.topic &&
          p.partition === m.partition &&
          p.adding.length === 0 &&
          p.removing.length === 0 &&
          p.replicas.includes(m.destBrokerId) &&
          p.leader >= 0,
      );
      const at = done?.t ?? ex.t;
      if (end === undefined || at > end) end = at;
    }
  }
  const start = plans[0]?.t ?? executes[0]?.t;
  return {
    timeToBalanceMs: start !== undefined && end !== undefined && moves > 0 ? round(end - start) : null,
    moves,
  };
}

/** Max and final relative deviation of live brokers' network-in over trailing windows. */
export function loadDeviation(rec: Recording): { max: number | null; final: number | null } {
  const span = Math.max(1, Math.round(LOAD_WINDOW_MS / rec.sampleMs));
  let max: number | null = null;
  let final: number | null = null;
  for (let i = span - 1; i < rec.times.length; i++) {
    const loads: number[] = [];
    for (const id of rec.brokers) {
      const series = rec.networkIn[id]!;
      let sum = 0;
      let live = true;
      for (let j = i - span + 1; j <= i && live; j++) {
        const v = series[j];
        if (v === null || v === undefined) live = false;
        else sum += v;
      }
      if (live) loads.push(sum / span);
    }
    if (loads.length < 2) continue;
    const mean = loads.reduce((a, b) => a + b, 0) / loads.length;
    if (mean <= 0) continue;
    const dev = Math.max(...loads.map((l) => Math.abs(l - mean))) / mean;
    const rounded = Math.round(dev * 1e4) / 1e4;
    if (max === null || rounded > max) max = rounded;
    final = rounded;
  }
  return { max, final };
}

function lagTotals(rec: Recording): { max: number | null; final: number | null } {
  if (rec.consumers.length === 0) return { max: null, final: null };
  let max = 0;
  let final = 0;
  for (let i = 0; i < rec.times.length; i++) {
    let total = 0;
    for (const series of Object.values(rec.lag)) total += series[i] ?? 0;
    if (total > max) max = total;
    final = total;
  }
  return { max, final };
}

export interface RoleInterval {
  node: string;
  role: string;
  epoch: number | null;
  start: number;
  end: number;
}

/**
 * Raft roles over time from `raft.*` events that carry the new `role` (or `to`) of their node, with `epoch` when
 * known; a crashed node (node.crash) has no role until its next event. Undefined when the run has no such events.
 */
export function raftTimeline(
  events: readonly TraceEvent[],
  end: number,
): { intervals: RoleInterval[]; leaderChanges: number; unavailableMs: number } | undefined {
  const open = new Map<string, RoleInterval>();
  const intervals: RoleInterval[] = [];
  const close = (node: string, t: number) => {
    const cur = open.get(node);
    if (!cur) return;
    cur.end = t;
    intervals.push(cur);
    open.delete(node);
  };
  let any = false;
  for (const e of events) {
    if (e.kind === 'node.crash' || e.kind === 'node.stop') {
      if (e.node !== undefined) close(e.node, e.t);
      continue;
    }
    if (!e.kind.startsWith('raft.') || e.node === undefined) continue;
    const role = typeof e.role === 'string' ? e.role : typeof e.to === 'string' ? e.to : undefined;
    if (role === undefined) continue;
    any = true;
    const cur = open.get(e.node);
    const epoch = typeof e.epoch === 'number' ? e.epoch : null;
    if (cur && cur.role === role && cur.epoch === epoch) continue;
    close(e.node, e.t);
    open.set(e.node, { node: e.node, role: role.toLowerCase(), epoch, start: e.t, end });
  }
  if (!any) return undefined;
  for (const node of [...open.keys()]) close(node, end);
  intervals.sort((a, b) => a.start - b.start || (a.node < b.node ? -1 : 1));
  const leaders = intervals.filter((i) => i.role === 'leader');
  // Unavailability: after the first leader, the time covered by no leader interval.
  let unavailableMs = 0;
  if (leaders.length > 0) {
    let coveredTo = leaders[0]!.start;
    for (const l of leaders) {
      if (l.start > coveredTo) unavailableMs += l.start - coveredTo;
      coveredTo = Math.max(coveredTo, l.end);
    }
    if (coveredTo < end) unavailableMs += end - coveredTo;
  }
  return { intervals, leaderChanges: Math.max(0, leaders.length - 1), unavailableMs };
}
