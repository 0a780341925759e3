// The what-if collectors on the models that emit their own events: the auto-balancer, consumer groups and the
// KRaft quorum, in real runs.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/index.ts';
import { countMoves, RunRecorder, raftTimeline, whatIfMetrics } from '../../src/report/index.ts';
import { runScenario } from '../../src/scenario/index.ts';

const MODELS = fileURLToPath(new URL('./fixtures/report-models.yaml', import.meta.url));
const GROUPS = fileURLToPath(new URL('../../scenarios/group-partition-expansion.yaml', import.meta.url));

function recorded(file: string) {
  const recorder = new RunRecorder();
  const result = runScenario(file, { onCluster: recorder.attach });
  const recording = recorder.finish(result);
  return { result, recording, metrics: whatIfMetrics(recording, result) };
}

describe('what-if collectors on the real models', () => {
  it('balancer: its moves are the placement changes after it first acted, and how long they took', () => {
    const { recording, metrics } = recorded(MODELS);
    const firstExecute = recording.events.find((e) => e.kind === 'balancer.execute')!;
    expect(firstExecute).toBeDefined();
    const after = recording.placement.filter((p) => p.t >= firstExecute.t);
    const before = recording.placement.filter((p) => p.t < firstExecute.t);
    // Moves counted from the placement alone: all of them, minus those made before the balancer acted.
    expect(metrics.balancerMoves).toBe(countMoves([...before, ...after]) - countMoves(before));
    expect(metrics.balancerMoves!).toBeGreaterThan(0);
    // Shared storage moves take about a second each, batches run together: seconds, not minutes.
    expect(metrics.timeToBalanceMs!).toBeGreaterThan(0);
    expect(metrics.timeToBalanceMs!).toBeLessThan(10_000);
    expect(recording.events.some((e) => e.kind === 'balancer.violation')).toBe(true);
  });

  it('groups: generations counted, and the alter covered no later than the balanced assignment', () => {
    const { result, recording, metrics } = recorded(GROUPS);
    const joins = recording.events.filter((e) => e.kind === 'group.join-completed');
    expect(metrics.groupRebalances).toBe(joins.length);
    expect(joins.length).toBeGreaterThanOrEqual(2);
    // Every partition has an owner (the guide's "covered") at the latest when each member has its 2.
    expect(metrics.alterToAssignedMs!).toBeGreaterThan(0);
    expect(metrics.alterToAssignedMs!).toBeLessThanOrEqual(result.metrics.alterToAssignedMs! + 10);
    // The four members' assignments over time end with 2 partitions each.
    const last = new Map(recording.assignments.map((a) => [a.consumer, a.partitions.length]));
    expect([...last.values()]).toEqual([2, 2, 2, 2]);
  });

  it('Raft: roles from raft.role events; a leader crash is one leader change and a gap without a leader', () => {
    const cluster = new Cluster({ controllers: 3, brokers: 3, seed: 1 });
    const recorder = new RunRecorder();
    recorder.attach(cluster);
    cluster.start();
    cluster.runFor('5s');
    const leader = cluster.activeController()!;
    const crashedAt = cluster.now;
    cluster.crashController(leader.id);
    cluster.runFor('10s');
    const recording = recorder.finish();
    const metrics = whatIfMetrics(recording);
    expect(metrics.raftLeaderChanges).toBe(1);
    const timeline = raftTimeline(recording.events, recording.end)!;
    const leaders = timeline.intervals.filter((i) => i.role === 'leader');
    expect(leaders.map((l) => l.node)).toEqual([leader.id, expect.not.stringMatching(leader.id)]);
    expect(leaders[0]!.end).toBe(crashedAt);
    expect(metrics.raftUnavailableMs).toBeCloseTo(leaders[1]!.start - crashedAt, 3);
    expect(metrics.raftUnavailableMs!).toBeGreaterThan(0);
  });
});
