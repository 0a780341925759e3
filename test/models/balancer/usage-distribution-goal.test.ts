// UsageDistributionGoal (AutoMQ's AbstractResourceUsageDistributionGoal) through a user goal whose loads are small
// integers (so every band and score is exact): the band's closed bounds and the detect threshold, the search in
// each direction (an over-loaded broker gives its heaviest partitions to the least loaded brokers first and stops
// once acceptable; an under-loaded one pulls from the most loaded first), ties broken by partition and broker id,
// internal topics moved last, the trivial-change filter at its exact limit, and the decisions it records (or
// not, when nobody records).
import { describe, expect, it } from 'vitest';
import {
  type BalancerDecision,
  type ClusterSnapshot,
  NetworkInUsageDistributionGoal,
  optimize,
  type SnapshotBroker,
  UsageDistributionGoal,
  type UsageDistributionSettings,
} from '../../../models/balancer/index.ts';
import { MiB, type PartitionSpec, snapshotOf } from './fixtures.ts';

/**
 * A user goal: partition p weighs `weights[p]`, a broker the sum of its partitions'. Every broker is eligible;
 * the brokers in `untrusted` have loads it does not trust.
 */
class WeightGoal extends UsageDistributionGoal {
  readonly name = 'WeightGoal';
  readonly group = 'Weight';

  constructor(
    private readonly weights: readonly number[],
    settings?: Partial<UsageDistributionSettings>,
    private readonly untrusted: readonly number[] = [],
  ) {
    super();
    if (settings) this.settings = { ...this.settings, ...settings };
  }
  protected brokerLoad(b: SnapshotBroker): number {
    let load = 0;
    for (const p of b.replicas) load += this.weights[p]!;
    return load;
  }
  protected partitionLoad(_s: ClusterSnapshot, p: number): number {
    return this.weights[p]!;
  }
  protected linearNormalizerThreshold(): number {
    return 10;
  }
  protected override partitionLoadTrusted(): boolean {
    return true;
  }
  protected override brokerLoadTrusted(b: SnapshotBroker): boolean {
    return !this.untrusted.includes(b.brokerId);
  }
  override isEligibleBroker(): boolean {
    return true;
  }
}

/** Partitions on brokers: `[leader, ...]` per partition, in partition order (topic t, or `critical` ones on __c). */
function layout(leaders: number[], critical: number[] = []): PartitionSpec[] {
  return leaders.map((leader, p) =>
    critical.includes(p)
      ? { topic: '__c', partition: p, leader, bytesIn: 0, critical: true }
      : { topic: 't', partition: p, leader, bytesIn: 0 },
  );
}

function run(s: ClusterSnapshot, goal: UsageDistributionGoal) {
  const decisions: BalancerDecision[] = [];
  const actions = optimize(s, [goal], { record: (d) => decisions.push(d) });
  return {
    moves: actions.map((a) => [a.partition, a.srcBrokerId, a.destBrokerId]),
    decisions,
    /** Each partition the search tried: [partition, from, candidates in the order tried, chosen]. */
    tried: decisions.flatMap((d) =>
      d.kind === 'candidates'
        ? [[d.partition, d.srcBrokerId, d.candidates.map((c) => c.destBrokerId), d.chosen]]
        : [],
    ),
    of: <K extends BalancerDecision['kind']>(kind: K) =>
      decisions.filter((d): d is Extract<BalancerDecision, { kind: K }> => d.kind === kind),
  };
}

describe('UsageDistributionGoal: the band', () => {
  it('defaults to a 10% band with no threshold and no trivial filter, and describes itself', () => {
    const g = new WeightGoal([1, 1, 1, 5]);
    const s = snapshotOf([1, 2], layout([1, 1, 1, 2]));
    g.initialize(s, s.brokers);
    expect(g.hard).toBe(false);
    expect(g.describe()).toEqual({
      avg: 4,
      lowerBound: 3.6,
      upperBound: 4.4,
      detectThreshold: 0,
      avgDeviation: 0.1,
      trivialChangeRatio: 0,
      normalizerRange: 10,
    });
  });

  it('with no eligible broker the average is 0, not NaN', () => {
    const g = new WeightGoal([1]);
    const s = snapshotOf([1], layout([1]));
    g.initialize(s, []);
    expect(g.describe()).toMatchObject({ avg: 0, lowerBound: 0, upperBound: 0 });
  });

  it('accepts loads on both bounds, and below the threshold only when the average is below it too', () => {
    const g = new WeightGoal([2, 2, 2, 2], { avgDeviation: 0.5 });
    const s = snapshotOf([1, 2], layout([1, 1, 1, 1]));
    g.initialize(s, s.brokers); // avg 4, band [2, 6]
    expect([1.99, 2, 6, 6.01].map((l) => g.isLoadAcceptable(l))).toEqual([false, true, true, false]);
    // Threshold 8 above the average 4: anything below 8 is left alone, 8 itself is judged by the band.
    g.settings.detectThreshold = 8;
    expect([0, 7.99, 8].map((l) => g.isLoadAcceptable(l))).toEqual([true, true, false]);
    // Threshold equal to the average: the band decides.
    g.settings.detectThreshold = 4;
    expect([1, 3.99].map((l) => g.isLoadAcceptable(l))).toEqual([false, true]);
  });
});

describe('UsageDistributionGoal: action scores', () => {
  it('a partition not on the named source is not acceptable', () => {
    // Broker 2 holds 2 and 2, broker 3 holds 1, broker 1 nothing.
    const g = new WeightGoal([2, 2, 1]);
    const s = snapshotOf([1, 2, 3], layout([2, 2, 3]));
    g.initialize(s, s.brokers);
    expect(g.actionAcceptanceScore(s.moveAction(0, 1), s)).toBeGreaterThan(0.5);
    expect(g.actionAcceptanceScore({ ...s.moveAction(0, 1), srcBrokerId: 3 }, s)).toBe(-1);
  });

  it('is neutral about a loaded partition of an ineligible source, and about an idle one of an untrusted broker', () => {
    const g = new NetworkInUsageDistributionGoal();
    const s = snapshotOf(
      [1, { id: 2, outOfDate: 'stale' }, 3],
      [
        { leader: 2, bytesIn: 8 * MiB },
        { leader: 3, bytesIn: 0 },
        { leader: 3, bytesIn: MiB, trusted: false },
        { leader: 1, bytesIn: MiB },
      ],
    );
    g.initialize(
      s,
      s.brokers.filter((b) => g.isEligibleBroker(b)),
    );
    expect(g.actionAcceptanceScore(s.moveAction(0, 1), s)).toBe(0.5);
    // Broker 3 holds a partition without metrics: its load is untrusted, but moving an idle partition is fine.
    expect(g.actionAcceptanceScore(s.moveAction(1, 1), s)).toBe(0.5);
    expect(g.actionAcceptanceScore(s.moveAction(3, 3), s)).toBe(-1);
  });
});

describe('UsageDistributionGoal: the search', () => {
  it('an over-loaded broker gives its heaviest partitions to the least loaded brokers first, until acceptable', () => {
    // Broker 1 holds 4, 1, 3, 3 (11); brokers 2, 3, 4 hold 1, 3, 1: avg 4, band [3.6, 4.4].
    const r = run(
      snapshotOf([1, 2, 3, 4], layout([1, 1, 1, 1, 2, 3, 4])),
      new WeightGoal([4, 1, 3, 3, 1, 3, 1]),
    );
    expect(r.of('violation').map((d) => [d.brokerId, d.load, d.need])).toEqual([
      [1, 11, 'less'],
      [2, 1, 'more'],
      [3, 3, 'more'],
      [4, 1, 'more'],
    ]);
    expect(r.tried).toEqual([
      // Broker 1: the 4 first, to the least loaded (2 and 4 tie at 1 and score alike: 2 by id); then a 3 (partition
      // 2 before 3) to broker 4, now the least loaded; at 4 broker 1 is acceptable and gives no more.
      [0, 1, [2, 4, 3], 2],
      [2, 1, [4, 3, 2], 4],
      // Broker 2, now at 5: its 4 helps nobody, its 1 goes to broker 3 (the least loaded); all are at 4.
      [0, 2, [3, 1, 4], null],
      [4, 2, [3, 1, 4], 3],
    ]);
    expect(r.moves).toEqual([
      [0, 1, 2],
      [2, 1, 4],
      [4, 2, 3],
    ]);
    expect(r.of('balance-failed')).toEqual([]);
    expect(r.of('goal-done')[0]!.actions).toEqual([
      { topic: 't', partition: 0, srcBrokerId: 1, destBrokerId: 2 },
      { topic: 't', partition: 2, srcBrokerId: 1, destBrokerId: 4 },
      { topic: 't', partition: 4, srcBrokerId: 2, destBrokerId: 3 },
    ]);
  });

  it('destinations of equal load are tried in broker id order, even after an earlier move reordered them', () => {
    // Broker 1 holds six, broker 2 one, broker 3 none (one each is the unit): 3 is the least loaded and takes the
    // first; then 2 and 3 tie at 1 (and score alike), and 2 comes first by id.
    const r = run(
      snapshotOf([1, 2, 3], layout([1, 1, 1, 1, 1, 1, 2])),
      new WeightGoal([1, 1, 1, 1, 1, 1, 1]),
    );
    expect(r.moves.slice(0, 2)).toEqual([
      [0, 1, 3],
      [1, 1, 2],
    ]);
  });

  it('an under-loaded broker pulls from the most loaded broker first, its heaviest partition first', () => {
    // avg 3.25, band [1.3, 5.2] (60%): brokers 1, 2, 3 at 4, 5, 4 are inside it; broker 4 is empty.
    const g = new WeightGoal([2, 2, 3, 2, 4], { avgDeviation: 0.6 });
    const r = run(snapshotOf([1, 2, 3, 4], layout([1, 1, 2, 2, 3])), g);
    expect(r.of('violation').map((d) => [d.brokerId, d.need])).toEqual([[4, 'more']]);
    expect(r.tried).toEqual([[2, 2, [4], 4]]);
    expect(r.moves).toEqual([[2, 2, 4]]);
  });

  it('an under-loaded broker pulls until acceptable, and no further', () => {
    // Four brokers hold four units each, broker 5 none: avg 3.2, band [1.6, 4.8] (50%). Broker 5 pulls two units
    // from broker 1 (the first of the most loaded) and stops.
    const weights = Array.from({ length: 16 }, () => 1);
    const leaders = weights.map((_, p) => 1 + Math.floor(p / 4));
    const r = run(
      snapshotOf([1, 2, 3, 4, 5], layout(leaders)),
      new WeightGoal(weights, { avgDeviation: 0.5 }),
    );
    expect(r.tried).toEqual([
      [0, 1, [5], 5],
      [1, 1, [5], 5],
    ]);
    expect(r.moves).toEqual([
      [0, 1, 5],
      [1, 1, 5],
    ]);
  });

  it('ties between partitions go by partition number whatever the order the broker holds them in', () => {
    // Broker 1 holds five units, broker 2 none; moving partition 0 away and back leaves broker 1 holding them in
    // the order 4, 1, 2, 3, 0. Two moves are worth making: partitions 0 and 1.
    const s = snapshotOf([1, 2], layout([1, 1, 1, 1, 1]));
    const there = s.moveAction(0, 2);
    s.applyAction(there);
    s.undoAction(there);
    expect(s.broker(1)!.replicas).toEqual([4, 1, 2, 3, 0]);
    expect(run(s, new WeightGoal([1, 1, 1, 1, 1])).moves).toEqual([
      [0, 1, 2],
      [1, 1, 2],
    ]);
  });

  it('internal topics go last, then by partition number', () => {
    // As above, with partitions 0 and 1 internal (__c): 2 and 3 go.
    const s = snapshotOf([1, 2], layout([1, 1, 1, 1, 1], [0, 1]));
    const there = s.moveAction(0, 2);
    s.applyAction(there);
    s.undoAction(there);
    expect(run(s, new WeightGoal([1, 1, 1, 1, 1])).moves).toEqual([
      [2, 1, 2],
      [3, 1, 2],
    ]);
    // A heavier internal partition still comes after lighter ordinary ones, the heaviest of those first: 3, 1, 1
    // go (avg 5) and the internal 5 is never tried.
    const t = snapshotOf([1, 2], layout([1, 1, 1, 1], [0]));
    expect(run(t, new WeightGoal([5, 1, 3, 1])).tried.map(([p]) => p)).toEqual([2, 1, 3]);
  });

  it('an over-loaded broker with only slow brokers around tries nothing', () => {
    const s = snapshotOf([1, { id: 2, slow: true }], layout([1, 1, 1, 1]));
    const r = run(s, new WeightGoal([1, 1, 1, 1]));
    expect(r.tried).toEqual([]);
    expect(r.of('balance-failed').map((d) => [d.brokerId, d.load, d.reason])).toEqual([
      [1, 4, 'still outside the band: no acceptable move is left'],
    ]);
    // The slow broker is below the band but pulls nothing, and says why.
    expect(r.of('skip-broker')).toEqual([
      {
        kind: 'skip-broker',
        goal: 'WeightGoal',
        brokerId: 2,
        reason: 'slow broker (pending latency 20000 ms): it receives no partitions',
      },
    ]);
    expect(
      optimize(snapshotOf([1, { id: 2, slow: true }], layout([1, 1])), [new WeightGoal([1, 1])]),
    ).toEqual([]);
  });

  it('a partition heavier than the band helps nobody: both brokers fail, nothing is undone or moved', () => {
    const r = run(snapshotOf([1, 2], layout([1, 2])), new WeightGoal([10, 1], { trivialChangeRatio: 0.5 }));
    expect(r.moves).toEqual([]);
    expect(r.of('trivial')).toEqual([]);
    expect(r.of('balance-failed').map((d) => d.brokerId)).toEqual([1, 2]);
  });

  it('a broker whose load is not trusted is skipped, and nothing moves from it', () => {
    const r = run(snapshotOf([1, 2], layout([1, 1, 1, 1])), new WeightGoal([1, 1, 1, 1], {}, [1]));
    expect(r.of('skip-broker')).toEqual([
      { kind: 'skip-broker', goal: 'WeightGoal', brokerId: 1, reason: 'untrusted load' },
    ]);
    expect(r.of('violation').map((d) => d.brokerId)).toEqual([2]);
    expect(r.moves).toEqual([]);
    expect(optimize(snapshotOf([1, 2], layout([1, 1])), [new WeightGoal([1, 1], {}, [1])])).toEqual([]);
  });

  it('brokers ineligible for the goal are neither judged nor offered partitions', () => {
    const s = snapshotOf(
      [1, { id: 2, outOfDate: 'stale' }, 3],
      [
        { leader: 1, bytesIn: 4 * MiB },
        { leader: 1, bytesIn: 4 * MiB },
        { leader: 2, bytesIn: 40 * MiB },
      ],
    );
    const r = run(s, new NetworkInUsageDistributionGoal());
    expect(r.of('violation').map((d) => d.brokerId)).toEqual([1, 3]);
    expect(r.tried.map(([, , candidates]) => candidates)).toEqual([[3]]);
  });
});

describe('UsageDistributionGoal: the trivial-change filter', () => {
  // The first search above: broker 1 gives 4 then 3 (a change of -7), broker 2 gives 1; avg 4.
  const first = () => snapshotOf([1, 2, 3, 4], layout([1, 1, 1, 1, 2, 3, 4]));
  const weights = [4, 1, 3, 3, 1, 3, 1];

  it('keeps a change exactly at ratio x average', () => {
    const r = run(first(), new WeightGoal(weights, { trivialChangeRatio: 7 / 4 }));
    expect(r.moves.slice(0, 2)).toEqual([
      [0, 1, 2],
      [2, 1, 4],
    ]);
    // Broker 2's later move of 1 (and then broker 3's pull of 1) are below 7: undone.
    expect(r.of('trivial').map((d) => d.brokerId)).toEqual([2, 3]);
  });

  it('undoes a smaller change, recording the signed change, the limit and the moves undone', () => {
    const r = run(first(), new WeightGoal(weights, { trivialChangeRatio: 2 }));
    expect(r.of('trivial')[0]).toEqual({
      kind: 'trivial',
      goal: 'WeightGoal',
      brokerId: 1,
      loadChange: -7,
      limit: 8,
      undone: [
        { topic: 't', partition: 0, srcBrokerId: 1, destBrokerId: 2 },
        { topic: 't', partition: 2, srcBrokerId: 1, destBrokerId: 4 },
      ],
    });
    expect(r.moves).not.toContainEqual([0, 1, 2]);
    expect(r.moves).not.toContainEqual([2, 1, 4]);
    // The same without anybody recording decisions.
    const quiet = optimize(first(), [new WeightGoal(weights, { trivialChangeRatio: 2 })]);
    expect(quiet.map((a) => [a.partition, a.srcBrokerId, a.destBrokerId])).toEqual(r.moves);
  });

  it('an under-loaded broker pulling a trivial amount records a positive change', () => {
    const weights16 = Array.from({ length: 16 }, () => 1);
    const leaders = weights16.map((_, p) => 1 + Math.floor(p / 4));
    const r = run(
      snapshotOf([1, 2, 3, 4, 5], layout(leaders)),
      new WeightGoal(weights16, { avgDeviation: 0.5, trivialChangeRatio: 1 }),
    );
    expect(r.moves).toEqual([]);
    expect(r.of('trivial').map((d) => [d.brokerId, d.loadChange, d.limit, d.undone.length])).toEqual([
      [5, 2, 3.2, 2],
    ]);
  });
});
