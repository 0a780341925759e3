// Recordings built by hand for report and metric tests: an empty one, and one with every kind of data, including
// balancer, group and Raft trace events in the shapes models/balancer, models/group and models/raft emit
// (balancer.plan/execute, group.join-completed, raft.role with {role, epoch}).

import type { TraceEvent } from '../../models/sim/index.ts';
import type { Recording } from '../../src/report/index.ts';

export function emptyRecording(): Recording {
  return {
    origin: 0,
    end: 10_000,
    sampleMs: 1000,
    times: [],
    brokers: [1, 2],
    networkIn: { 1: [], 2: [] },
    networkOut: { 1: [], 2: [] },
    leaders: { 1: [], 2: [] },
    placement: [],
    producers: [],
    produceErrors: [],
    produceErrorCount: 0,
    latency: { records: 0, p50: null, p99: null, p999: null, max: null, mean: null },
    lag: {},
    consumers: [],
    assignments: [],
    alters: [],
    steps: [],
    events: [],
    eventsDropped: 0,
  };
}

const ev = (
  t: number,
  kind: string,
  node: string | undefined,
  fields: Record<string, unknown> = {},
): TraceEvent => ({
  t,
  kind,
  ...(node !== undefined ? { node } : {}),
  ...fields,
});

/** Two brokers over 20 s: broker 2 gets both partitions moved to it by the balancer at 10 s. */
export function richRecording(): Recording {
  const times = Array.from({ length: 20 }, (_, i) => 1000 * (i + 1));
  const inRate = (b: number) => times.map((t) => (t <= 10_000 ? (b === 1 ? 2e6 : 0) : 1e6));
  return {
    ...emptyRecording(),
    origin: 0,
    end: 20_000,
    times,
    networkIn: { 1: inRate(1), 2: inRate(2) },
    networkOut: { 1: inRate(1).map((v) => v / 2), 2: inRate(2).map((v) => v / 2) },
    leaders: { 1: times.map((t) => (t <= 10_000 ? 2 : 1)), 2: times.map((t) => (t <= 10_000 ? 0 : 1)) },
    placement: [
      { t: 0, topic: 'hot', partition: 0, leader: 1, replicas: [1], isr: [1], adding: [], removing: [] },
      { t: 0, topic: 'hot', partition: 1, leader: 1, replicas: [1], isr: [1], adding: [], removing: [] },
      {
        t: 10_000,
        topic: 'hot',
        partition: 1,
        leader: -1,
        replicas: [2],
        isr: [2],
        adding: [],
        removing: [],
      },
      { t: 11_500, topic: 'hot', partition: 1, leader: 2, replicas: [2], isr: [2], adding: [], removing: [] },
    ],
    producers: [
      {
        name: 'perf',
        t: times.map((t) => t - 1000),
        recordsPerSec: times.map((t) => (t === 11_000 ? 3000 : 5000)),
        latencyAvg: times.map((t) => (t === 11_000 ? 400 : 2)),
        latencyMax: times.map((t) => (t === 11_000 ? 1500 : 5)),
      },
    ],
    produceErrors: [
      { t: 10_000, producer: 'perf', count: 3, errors: { NOT_LEADER_OR_FOLLOWER: 3 }, partitions: [1] },
    ],
    produceErrorCount: 3,
    latency: { records: 100_000, p50: 2, p99: 400, p999: 1400, max: 1500, mean: 5 },
    lag: {
      'hot-0': times.map((t) => (t < 10_000 ? 10 : 0)),
      'hot-1': times.map((t) => (t < 12_000 ? 50 : 5)),
    },
    consumers: ['reader'],
    assignments: [
      { t: 1000, consumer: 'reader', partitions: ['hot-0'] },
      { t: 12_000, consumer: 'reader', partitions: ['hot-0', 'hot-1'] },
    ],
    alters: [{ t: 5000, topic: 'hot', previousCount: 1, count: 2, producedAt: 6500, assignedAt: 12_000 }],
    steps: [{ t: 10_000, label: 'balance', action: 'waitUntil' }],
    events: [
      ev(2000, 'group.prepare-rebalance', 'broker-1', {
        group: 'g',
        reason: 'member reader joined',
        generation: 0,
      }),
      ev(2100, 'group.join-completed', 'broker-1', {
        group: 'g',
        generation: 1,
        members: 1,
        leader: 'reader-1',
      }),
      ev(2200, 'group.stable', 'broker-1', { group: 'g', generation: 1 }),
      ev(12_000, 'group.prepare-rebalance', 'broker-1', {
        group: 'g',
        reason: 'metadata changed',
        generation: 1,
      }),
      ev(12_100, 'group.join-completed', 'broker-1', { group: 'g', generation: 2, members: 1 }),
      ev(0, 'raft.role', 'controller-1', { role: 'candidate', epoch: 1 }),
      ev(0, 'raft.role', 'controller-2', { role: 'follower', epoch: 1 }),
      ev(300, 'raft.role', 'controller-1', { role: 'leader', epoch: 1 }),
      ev(8000, 'node.crash', 'controller-1'),
      ev(9000, 'raft.role', 'controller-2', { role: 'candidate', epoch: 2 }),
      ev(9500, 'raft.role', 'controller-2', { role: 'leader', epoch: 2 }),
      ev(9000, 'balancer.detect', 'controller-1', {
        sequence: 1,
        goals: ['NetworkInUsageDistributionGoal'],
        brokers: [],
      }),
      ev(9000, 'balancer.violation', 'controller-1', {
        goal: 'NetworkInUsageDistributionGoal',
        brokerId: 1,
        load: 2e6,
        need: 'less',
      }),
      ev(9000, 'balancer.plan', 'controller-1', { sequence: 1, moves: 1, batches: [['hot-1:1->2']] }),
      ev(10_000, 'balancer.execute', 'controller-1', {
        batch: 0,
        moves: [{ topic: 'hot', partition: 1, srcBrokerId: 1, destBrokerId: 2 }],
        skipped: [],
      }),
      ev(10_010, 'balancer.executed', 'controller-1', { batch: 0, errors: [] }),
      ev(10_000, 'scenario.step', undefined, { index: 0, action: 'waitUntil', label: 'balance' }),
    ].sort((a, b) => a.t - b.t),
  };
}
