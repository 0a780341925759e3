// The what-if collectors on the models that emit their own events: the auto-balancer, consumer groups and the
// KRaft quorum, in real runs.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Cluster, createCluster } from '../../src/cluster/index.ts';
import {
  controllerAvailability,
  countMoves,
  RunRecorder,
  raftTimeline,
  whatIfMetrics,
} from '../../src/report/index.ts';
import { runScenario } from '../../src/scenario/index.ts';

const MODELS = fileURLToPath(new URL('./fixtures/report-models.yaml', import.meta.url));
const RAFT = fileURLToPath(new URL('./fixtures/report-raft.yaml', import.meta.url));
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
    expect(metrics.alterToAssignedMs!).toBeLessThanOrEqual(result.metrics.appliedToAssignedMs! + 10);
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

  it('Raft: createCluster({ controllers: 3 }), the active controller crashed and restarted', () => {
    const cluster = createCluster({ controllers: 3, brokers: 1, seed: 7 });
    // Attached to a running cluster: the recorder notes the quorum as it is now (the election is over).
    const recorder = new RunRecorder();
    recorder.attach(cluster);
    const first = cluster.activeController()!;
    expect(first).toBeDefined();
    const firstEpoch = first.raft!.epoch;
    cluster.runFor('2s');
    const crashedAt = cluster.now;
    cluster.crashController(first.id);
    // Measured independently of the recording: when another controller serves again.
    const activeAgainAt = cluster.runUntil(() => cluster.activeController() !== undefined, {
      timeout: '60s',
    });
    const second = cluster.activeController()!;
    expect(second.id).not.toBe(first.id);
    cluster.runFor('2s');
    cluster.restartController(first.id);
    cluster.runFor('5s');
    // The restarted controller rejoins as a follower: the second leader stays, no further election.
    expect(cluster.activeController()!.id).toBe(second.id);
    expect(first.raft!.role).toBe('follower');

    const recording = recorder.finish();
    const metrics = whatIfMetrics(recording);
    expect(metrics.raftLeaderChanges).toBe(1);
    const timeline = raftTimeline(recording.events, recording.end)!;
    expect(second.raft!.epoch).toBeGreaterThan(firstEpoch);
    expect(timeline.leaders.map((l) => [l.node, l.epoch])).toEqual([
      [first.id, firstEpoch],
      [second.id, second.raft!.epoch],
    ]);
    // The first leader was seen at attach time (observed), not at its election.
    expect(timeline.leaders[0]!.start).toBe(recording.events[0]!.t);
    expect(timeline.leaders[0]!.end).toBe(crashedAt);
    // Without a leader from the crash to the new leader's election, which is before it serves.
    expect(metrics.raftUnavailableMs).toBeCloseTo(timeline.leaders[1]!.start - crashedAt, 3);
    expect(metrics.raftUnavailableMs!).toBeGreaterThan(0);
    expect(metrics.raftUnavailableMs!).toBeLessThanOrEqual(activeAgainAt - crashedAt);
    // Without an active controller: exactly the gap the cluster showed.
    expect(metrics.controllerUnavailableMs).toBeCloseTo(activeAgainAt - crashedAt, 3);
    const active = controllerAvailability(recording.events, recording.end)!.active;
    expect(active.map((a) => a.node)).toEqual([first.id, second.id]);
    // The restarted node's roles are in the timeline too (resigned from its old epoch, then follower).
    const restarted = timeline.intervals.filter((i) => i.node === first.id && i.start > crashedAt);
    expect(restarted.map((i) => i.role)).toContain('follower');
    expect(restarted.some((i) => i.role === 'leader')).toBe(false);
  });

  it('Raft metrics are n/a without a quorum, and 0 with a quorum that kept its leader', () => {
    const single = createCluster({ brokers: 1, seed: 1 });
    const r1 = new RunRecorder();
    r1.attach(single);
    single.runFor('3s');
    const m1 = whatIfMetrics(r1.finish());
    expect(m1.raftLeaderChanges).toBeNull();
    expect(m1.raftUnavailableMs).toBeNull();
    // One controller, always active: that is data (0 ms), not missing data.
    expect(m1.controllerUnavailableMs).toBe(0);

    const quorum = createCluster({ controllers: 3, brokers: 1, seed: 1 });
    const r3 = new RunRecorder();
    r3.attach(quorum);
    quorum.runFor('3s');
    const m3 = whatIfMetrics(r3.finish());
    expect(m3).toMatchObject({ raftLeaderChanges: 0, raftUnavailableMs: 0, controllerUnavailableMs: 0 });
  });

  it('Raft in a scenario (cluster.controllers: 3, crashController: active): agrees with the quorum’s own count', () => {
    const { result, recording, metrics } = recorded(RAFT);
    expect(result.passed).toBe(true);
    // The scenario's quorum metrics come from the cluster's live quorum status, not from the trace.
    expect(metrics.raftLeaderChanges).toBe(result.metrics.quorumLeaderChanges);
    expect(metrics.raftLeaderChanges).toBe(1);
    expect(metrics.controllerUnavailableMs!).toBeCloseTo(result.metrics.quorumUnavailableMs!, 3);
    expect(metrics.controllerUnavailableMs!).toBeCloseTo(result.metrics.failoverMs!, 0);
    // A leader exists a moment before it serves (it first commits its epoch's LeaderChange record).
    expect(metrics.raftUnavailableMs!).toBeGreaterThan(0);
    expect(metrics.raftUnavailableMs!).toBeLessThan(metrics.controllerUnavailableMs!);
    const nodes = new Set(raftTimeline(recording.events, recording.end)!.intervals.map((i) => i.node));
    expect(nodes.size).toBe(3);
  });
});
