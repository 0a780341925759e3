import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../models/sim/index.ts';
import {
  controllerAvailability,
  countMoves,
  lastPlacementChange,
  loadDeviation,
  type PlacementChange,
  raftTimeline,
  WHATIF_METRIC_NAMES,
  whatIfMetrics,
} from '../../src/report/index.ts';
import { emptyRecording, richRecording } from './synthetic.ts';

const at = (
  t: number,
  partition: number,
  replicas: number[],
  extra: Partial<PlacementChange> = {},
): PlacementChange => ({
  t,
  topic: 't',
  partition,
  leader: replicas[0] ?? -1,
  replicas,
  isr: replicas,
  adding: [],
  removing: [],
  ...extra,
});

describe('what-if metrics', () => {
  it('are all n/a (null) for a run without data, never a made-up 0', () => {
    const m = whatIfMetrics(emptyRecording());
    expect(Object.keys(m).sort()).toEqual([...WHATIF_METRIC_NAMES].sort());
    for (const name of WHATIF_METRIC_NAMES.filter((n) => n !== 'moves')) expect(m[name], name).toBeNull();
    expect(m.moves).toBe(0); // no placement change is a count, not missing data
  });

  it('read balancer, group, Raft, lag, alter and load data when the run has it', () => {
    const m = whatIfMetrics(richRecording(), {
      metrics: { 'perf.lost': 0, 'perf.duplicated': 2, 'other.lost': 1 },
    });
    expect(m).toMatchObject({
      // Plan with moves at 9 s; the moved partition leads again on broker 2 at 11.5 s.
      timeToBalanceMs: 2500,
      balancerMoves: 1,
      moves: 1,
      // Broker 2 owned nothing until the balancer's move settled at 11.5 s; from then on both carry 1 MB/s.
      maxLoadDeviation: 0,
      finalLoadDeviation: 0,
      produceErrors: 3,
      produceLatencyP99Ms: 400,
      alterToProducedMs: 1500,
      alterToAssignedMs: 7000,
      maxLag: 60,
      finalLag: 5,
      lost: 1,
      duplicated: 2,
      groupRebalances: 2,
      raftLeaderChanges: 1,
      raftUnavailableMs: 1500,
      controllerUnavailableMs: null,
    });
  });

  it('count a move once it settles, whatever the phases in between', () => {
    const kafkaMove = [
      at(0, 0, [1, 2]),
      at(10, 0, [1, 2, 3], { adding: [3], removing: [1] }),
      at(20, 0, [2, 3], { leader: 2 }),
    ];
    expect(countMoves(kafkaMove)).toBe(1);
    // A leader change or an ISR change is not a move; a replica order change is not either.
    expect(
      countMoves([
        at(0, 0, [1, 2]),
        at(5, 0, [1, 2], { leader: 2 }),
        at(6, 0, [2, 1]),
        at(7, 0, [1, 2], { isr: [1] }),
      ]),
    ).toBe(0);
    // Shared storage: the owner changes directly; there and back is two moves.
    expect(countMoves([at(0, 1, [1]), at(5, 1, [2], { leader: -1 }), at(7, 1, [2]), at(9, 1, [1])])).toBe(2);
  });

  it('measure load deviation over live brokers only', () => {
    const rec = { ...emptyRecording(), brokers: [1, 2, 3], times: [1000, 2000, 3000, 4000, 5000] };
    rec.networkIn = { 1: [3, 3, 3, 3, 3], 2: [1, 1, 1, 1, 1], 3: [null, null, null, null, null] };
    // mean 2, largest distance 1: 0.5 (broker 3 is down: not 0 load).
    expect(loadDeviation(rec)).toEqual({ max: 0.5, final: 0.5 });
    rec.networkIn = { 1: [0, 0, 0, 0, 0], 2: [0, 0, 0, 0, 0], 3: [0, 0, 0, 0, 0] };
    expect(loadDeviation(rec)).toEqual({ max: null, final: null });
  });

  it('follow Raft roles from role events, a crash ending its node’s role', () => {
    const rec = richRecording();
    const tl = raftTimeline(rec.events, rec.end)!;
    expect(tl.intervals.map((i) => `${i.node}:${i.role}:${i.start}-${i.end}`)).toEqual([
      'controller-1:candidate:0-300',
      'controller-2:follower:0-9000',
      'controller-1:leader:300-8000',
      'controller-2:candidate:9000-9500',
      'controller-2:leader:9500-20000',
    ]);
    expect(raftTimeline([{ t: 0, kind: 'raft.fetch', node: 'c-1' }], 10)).toBeUndefined();
  });

  it('take maxLoadDeviation over the windows after placement settled, not the imbalance a step made', () => {
    // Three brokers sampled every second for 30 s. Broker 3 comes back owning nothing (0 B/s) until a move
    // settles at 12 s; afterwards the loads are 3/3/2 (8 partitions on 3 brokers), then 4/2/2 from 22 s on.
    const times = Array.from({ length: 30 }, (_, i) => 1000 * (i + 1));
    const rec = { ...emptyRecording(), end: 30_000, brokers: [1, 2, 3], times };
    rec.networkIn = {
      1: times.map((t) => (t <= 12_000 ? 4 : t <= 22_000 ? 3 : 4)),
      2: times.map((t) => (t <= 12_000 ? 4 : t <= 22_000 ? 3 : 2)),
      3: times.map((t) => (t <= 12_000 ? 0 : 2)),
    };
    rec.placement = [
      at(0, 0, [1]),
      at(0, 1, [2]),
      at(5000, 1, [2], { isr: [] }), // an ISR change moves no traffic: not a placement change
      at(11_000, 2, [3], { leader: -1 }),
      at(12_000, 2, [3]),
    ];
    expect(lastPlacementChange(rec.placement)).toBe(12_000);
    const { max, final } = loadDeviation(rec);
    // Before 12 s: mean 8/3, broker 3 is 8/3 below it: 1.0 (what the old definition always reported).
    // 12-22 s: mean 8/3, largest distance 2/3: 0.25. From 22 s: mean 8/3, broker 1 is 4/3 above it: 0.5.
    expect(final).toBe(0.5);
    expect(max).toBe(0.5);
    // Windows that straddle a change do not count: with the last change at 24 s only windows from 24 s do.
    rec.placement.push(at(24_000, 2, [3], { leader: 3, replicas: [3, 1] }));
    expect(loadDeviation(rec).max).toBe(0.5);
    // Settled only at 27 s: no full 5 s window after it, so n/a (final still reads the last window).
    rec.placement.push(at(27_000, 2, [1]));
    expect(loadDeviation(rec)).toEqual({ max: null, final: 0.5 });
    // Before the 22 s change the settled windows read 0.25.
    rec.networkIn[1] = times.map((t) => (t <= 12_000 ? 4 : 3));
    rec.networkIn[2] = times.map((t) => (t <= 12_000 ? 4 : 3));
    rec.placement = rec.placement.slice(0, 5);
    expect(loadDeviation(rec)).toEqual({ max: 0.25, final: 0.25 });
    expect(whatIfMetrics(rec).maxLoadDeviation).toBe(0.25);
  });

  it('end a leader’s term at the election of a later epoch, even if the old leader has not heard', () => {
    const role = (t: number, node: string, r: string, epoch: number): TraceEvent => ({
      t,
      kind: 'raft.role',
      node,
      role: r,
      epoch,
    });
    // c1 is cut off at 5 s and keeps believing it leads until it resigns at 9 s; c2 wins epoch 2 at 6 s and
    // crashes at 7 s; c3 wins epoch 3 at 8 s. Leaderless: 7-8 s only (c1's belief does not count after 6 s).
    const events: TraceEvent[] = [
      role(0, 'c1', 'leader', 1),
      role(0, 'c2', 'follower', 1),
      role(0, 'c3', 'follower', 1),
      role(5500, 'c2', 'candidate', 2),
      role(6000, 'c2', 'leader', 2),
      role(6001, 'c3', 'follower', 2),
      { t: 7000, kind: 'node.crash', node: 'c2' },
      role(7900, 'c3', 'candidate', 3),
      role(8000, 'c3', 'leader', 3),
      role(9000, 'c1', 'resigned', 1),
      role(9100, 'c1', 'follower', 3),
    ];
    const tl = raftTimeline(events, 12_000)!;
    expect(tl.leaders.map((l) => `${l.node}@${l.epoch}:${l.start}-${l.end}`)).toEqual([
      'c1@1:0-6000',
      'c2@2:6000-7000',
      'c3@3:8000-12000',
    ]);
    // The node's own view stays in the role intervals (the chart shows what each controller believed).
    expect(tl.intervals.find((i) => i.node === 'c1' && i.role === 'leader')!.end).toBe(9000);
    expect(tl.leaderChanges).toBe(2);
    expect(tl.unavailableMs).toBe(1000);
  });

  it('measure controller unavailability from activation to renounce or crash', () => {
    const ev = (t: number, kind: string, node: string): TraceEvent => ({ t, kind, node });
    const events = [
      ev(100, 'controller.ready', 'c1'),
      ev(3000, 'node.crash', 'c1'),
      ev(4500, 'controller.ready', 'c2'),
      ev(6000, 'controller.renounce', 'c2'),
      ev(6200, 'controller.ready', 'c3'),
      ev(6300, 'controller.ready', 'c3'), // a repeat while active changes nothing
    ];
    const a = controllerAvailability(events, 10_000)!;
    expect(a.active).toEqual([
      { node: 'c1', start: 100, end: 3000 },
      { node: 'c2', start: 4500, end: 6000 },
      { node: 'c3', start: 6200, end: 10_000 },
    ]);
    expect(a.unavailableMs).toBe(1700);
    expect(controllerAvailability([ev(5, 'node.crash', 'c1')], 10)).toBeUndefined();
  });
});
