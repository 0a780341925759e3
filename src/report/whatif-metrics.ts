// The what-if metrics: numbers a sweep compares across partition counts, broker counts and configs, computed from
// a run's recording (and its result). Each reads the data it needs by kind; a metric whose data the run does not
// have (no balancer, no consumer group, no Raft events yet) is null, shown as n/a, never a made-up 0.

import type { TraceEvent } from '../../models/sim/index.ts';
import type { ScenarioResult } from '../scenario/index.ts';
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
      "Largest load deviation once placement has settled: over the 5 s windows that begin after the run's last partition move or leader change (a balancer's last move, a failover), the largest distance of a live broker's network-in from the live brokers' mean, over the mean (0.25 = 25%). The imbalance a setup step or a fault makes on purpose (a broker back with nothing) is the question, not the answer, so windows before it settles do not count. n/a when no settled window has traffic.",
  },
  {
    name: 'finalLoadDeviation',
    unit: 'ratio',
    description:
      'The same deviation in the last 5 s window with traffic (whether placement had settled or not).',
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
    unit: 'elections',
    description:
      'KRaft leader elections after the first leader the run saw: each new leader epoch counts, also when the same controller wins again (n/a without raft.role events).',
  },
  {
    name: 'raftUnavailableMs',
    unit: 'ms',
    description:
      "Time without a KRaft leader after the first one: no controller in role leader, a crashed leader's role ending at its crash and a leader's term at the election of a later epoch (n/a without raft.role events).",
  },
  {
    name: 'controllerUnavailableMs',
    unit: 'ms',
    description:
      'Time without an active controller after the first one activated (controller.ready until controller.renounce or its crash); with a quorum this is the leaderless time plus the new leader catching up before it serves (n/a without controller.ready events).',
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
  const controller = controllerAvailability(rec.events, rec.end);
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
    controllerUnavailableMs: controller ? round(controller.unavailableMs) : null,
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

/**
 * Relative deviation of live brokers' network-in over trailing 5 s windows: `final` in the last window with
 * traffic, `max` over the windows that begin at or after the last placement change (see maxLoadDeviation).
 */
export function loadDeviation(rec: Recording): { max: number | null; final: number | null } {
  const span = Math.max(1, Math.round(LOAD_WINDOW_MS / rec.sampleMs));
  const settledAt = lastPlacementChange(rec.placement);
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
    final = rounded;
    // Sample j covers (times[j-1], times[j]]; the first one starts a sample period before times[0].
    const windowStart = i - span >= 0 ? rec.times[i - span]! : rec.times[0]! - rec.sampleMs;
    if (windowStart >= settledAt && (max === null || rounded > max)) max = rounded;
  }
  return { max, final };
}

/**
 * When placement last changed: a partition appeared, or its leader or replica set changed (ISR changes move no
 * traffic between brokers and do not count). -Infinity without placement data.
 */
export function lastPlacementChange(placement: readonly PlacementChange[]): number {
  const last = new Map<string, PlacementChange>();
  let at = Number.NEGATIVE_INFINITY;
  for (const p of placement) {
    const key = `${p.topic}-${p.partition}`;
    const before = last.get(key);
    last.set(key, p);
    if (
      before &&
      before.leader === p.leader &&
      before.replicas.length === p.replicas.length &&
      before.replicas.every((r, i) => r === p.replicas[i])
    )
      continue;
    if (p.t > at) at = p.t;
  }
  return at;
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

export interface RaftTimeline {
  /** Each node's roles as the node saw them (a deposed leader that has not heard yet still says leader). */
  intervals: RoleInterval[];
  /** Leader terms as the quorum had them: a term ends when its leader leaves the role or a later epoch elects. */
  leaders: RoleInterval[];
  leaderChanges: number;
  unavailableMs: number;
}

/**
 * Raft roles over time from models/raft's `raft.role` events ({role, epoch, leaderId}); a crashed or stopped node
 * (node.crash, node.stop) has no role until its next event. Undefined when the run has no such events.
 */
export function raftTimeline(events: readonly TraceEvent[], end: number): RaftTimeline | undefined {
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
    if (e.kind !== 'raft.role' || e.node === undefined || typeof e.role !== 'string') continue;
    any = true;
    const role = e.role.toLowerCase();
    const epoch = typeof e.epoch === 'number' ? e.epoch : null;
    const cur = open.get(e.node);
    if (cur && cur.role === role && cur.epoch === epoch) continue;
    close(e.node, e.t);
    open.set(e.node, { node: e.node, role, epoch, start: e.t, end });
  }
  if (!any) return undefined;
  for (const node of [...open.keys()]) close(node, end);
  intervals.sort((a, b) => a.start - b.start || (a.node < b.node ? -1 : 1));
  const leaders = intervals.filter((i) => i.role === 'leader').map((i) => ({ ...i }));
  // A later epoch's election deposes the old leader whether or not it has heard (it can no longer commit).
  for (const l of leaders) {
    for (const later of leaders)
      if (later.start >= l.start && later.epoch !== null && l.epoch !== null && later.epoch > l.epoch)
        l.end = Math.min(l.end, later.start);
  }
  return {
    intervals,
    leaders,
    leaderChanges: Math.max(0, leaders.length - 1),
    unavailableMs: uncovered(leaders, end),
  };
}

/** Time after the first interval's start that no interval covers, up to `end`. */
function uncovered(intervals: readonly { start: number; end: number }[], end: number): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  if (sorted.length === 0) return 0;
  let gap = 0;
  let coveredTo = sorted[0]!.start;
  for (const i of sorted) {
    if (i.start > coveredTo) gap += i.start - coveredTo;
    coveredTo = Math.max(coveredTo, i.end);
  }
  if (coveredTo < end) gap += end - coveredTo;
  return gap;
}

/**
 * When a controller was active (serving requests), from models/controller's `controller.ready` and
 * `controller.renounce` events and its node's crash or stop. Undefined when the run has no controller.ready.
 */
export function controllerAvailability(
  events: readonly TraceEvent[],
  end: number,
): { active: { node: string; start: number; end: number }[]; unavailableMs: number } | undefined {
  const open = new Map<string, number>();
  const active: { node: string; start: number; end: number }[] = [];
  for (const e of events) {
    if (e.node === undefined) continue;
    if (e.kind === 'controller.ready') {
      if (!open.has(e.node)) open.set(e.node, e.t);
    } else if (e.kind === 'controller.renounce' || e.kind === 'node.crash' || e.kind === 'node.stop') {
      const start = open.get(e.node);
      if (start === undefined) continue;
      active.push({ node: e.node, start, end: e.t });
      open.delete(e.node);
    }
  }
  for (const [node, start] of open) active.push({ node, start, end });
  if (active.length === 0) return undefined;
  active.sort((a, b) => a.start - b.start || (a.node < b.node ? -1 : 1));
  return { active, unavailableMs: uncovered(active, end) };
}
