import { describe, expect, it } from 'vitest';
import {
  countMoves,
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
      maxLoadDeviation: 1,
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
});
