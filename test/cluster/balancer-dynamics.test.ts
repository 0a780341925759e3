// The auto-balancer's behaviour over time on a running cluster: detector timing, metrics freshness, a new
// empty broker, a slow broker, a hot partition, runtime configuration, a controller restart and the
// load-aware failover of a fenced broker's partitions.
import { describe, expect, it } from 'vitest';
import type { DetectReport, PartitionMove } from '../../models/balancer/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';
import { steadyLoad } from '../models/balancer/steady-load.ts';
import { leadersPerBroker, TOPIC, workflowA } from '../models/balancer/workflow-a.ts';

const KiB = 1024;

function movesTo(reports: readonly DetectReport[], broker: number): PartitionMove[] {
  return reports.flatMap((r) => r.moves.filter((m) => m.destBrokerId === broker));
}

/** A topic with explicit placement, and steady load on each partition. */
function loadedTopic(c: Cluster, topic: string, leaders: number[], bytesPerSec: number): void {
  c.admin.createTopic({ name: topic, assignments: leaders.map((l) => [l]) });
  for (let p = 0; p < leaders.length; p++) steadyLoad(c, `${topic}-load-${p}`, topic, p, bytesPerSec);
}

describe('detector timing and metrics', () => {
  it('detects first one interval after the controller starts, then that long after each detect ends', () => {
    const c = createCluster({
      seed: 3,
      brokers: 2,
      storage: 'shared',
      autobalancer: { 'autobalancer.controller.anomaly.detect.interval.ms': 30_000 },
    });
    c.runFor('100s');
    const times = c.balancer!.history.map((r) => r.time);
    expect(times).toEqual([30_000, 60_000, 90_000]);
    expect(c.balancer!.state).toBe('waiting');
  });

  it('a broker without fresh metrics is ineligible; moved partitions have none until their broker reports', () => {
    // Reports every 90 s: the detect at 60 s has no metrics at all and moves nothing.
    const w = workflowA('A1', {
      seed: 4,
      numRecords: 800_000,
      autobalancer: { 'autobalancer.reporter.metrics.reporting.interval.ms': 90_000 },
    });
    const c = w.cluster;
    const b = c.balancer!;
    c.runUntil(() => b.history.length >= 1, { timeout: '70s' });
    const first = b.history[0]!;
    expect(first.moves).toEqual([]);
    expect(first.brokers.every((s) => s.outOfDate === 'no metrics reported yet')).toBe(true);
    const band = first.decisions.find((d) => d.kind === 'band');
    expect(band?.kind === 'band' && band.eligibleBrokers).toEqual([]);
    // At 120 s the reports from 90 s are fresh: the hotspot is found.
    c.runUntil(() => b.history.length >= 2, { timeout: '70s' });
    const second = b.history[1]!;
    expect(second.time).toBe(120_000);
    expect(second.moves.length).toBeGreaterThan(0);
    // Once the moves are done (about 1.5 s) the moved partitions have no samples: their new broker is out of date.
    c.runFor('2s');
    const moved = second.moves.map((m) => m.partition);
    const topicId = c.image.topics[TOPIC]!.topicId;
    for (const p of moved) {
      expect(b.model.partitions.get(`${topicId}:${p}`)).toMatchObject({ leader: 1, sampleTime: undefined });
    }
    const snapshotNow = b.model.snapshot({
      now: c.now,
      metricsDelayMs: 60_000,
      excludedBrokers: new Set(),
      excludedTopics: new Set(),
    });
    expect(snapshotNow.broker(1)!.metricsOutOfDate).toBe(true);
    expect(snapshotNow.broker(1)!.outOfDate).toBe(`${moved.length} partition(s) without metrics yet`);
    // After broker 1's next report (90 s later) they are known again.
    c.runFor('95s');
    for (const p of moved) {
      const e = b.model.partitions.get(`${topicId}:${p}`)!;
      expect(e.leader).toBe(1);
      expect(e.sampleTime).toBeGreaterThan(second.time);
    }
  });
});

describe('brokers joining', () => {
  function clusterWithEmptyBroker(seed: number, brokerConfig?: Record<string, number>) {
    const c = createCluster({
      seed,
      brokers: 3,
      storage: 'shared',
      autobalancer: true,
      ...(brokerConfig ? { brokerConfig } : {}),
    });
    // Broker 2 is down before any topic exists, so it comes back (joins) empty.
    c.crashBroker(2);
    c.runUntil(() => c.image.brokers[2]!.fenced, { timeout: '20s', description: 'broker 2 fenced' });
    loadedTopic(c, 'orders', [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1], 300 * KiB);
    return c;
  }

  it('a new empty broker receives partitions at the first detect that sees its metrics', () => {
    const c = clusterWithEmptyBroker(5);
    const b = c.balancer!;
    c.runFor('100s');
    expect(movesTo(b.history, 2)).toEqual([]);
    const joinedAt = c.now;
    c.restartBroker(2);
    c.runFor('150s');
    const after = b.history.filter((r) => r.time > joinedAt);
    const firstEligible = after.findIndex((r) => r.brokers.some((s) => s.brokerId === 2 && !s.outOfDate));
    expect(firstEligible).toBeGreaterThanOrEqual(0);
    expect(movesTo(after.slice(0, firstEligible), 2)).toEqual([]);
    expect(movesTo([after[firstEligible]!], 2).length).toBeGreaterThan(0);
    expect(leadersPerBroker(c, 'orders')).toEqual({ 0: 4, 1: 4, 2: 4 });
  });

  it('a slow broker receives nothing (its pending append latency is over 10 s)', () => {
    const c = clusterWithEmptyBroker(5);
    c.runFor('100s');
    // The broker comes back stuck: appends take 20 s.
    c.broker(2).config['kafkasim.broker.append.latency.ms'] = 20_000;
    c.restartBroker(2);
    c.runFor('200s');
    const b = c.balancer!;
    expect(b.lastDetect!.brokers.find((s) => s.brokerId === 2)).toMatchObject({ slow: true });
    expect(movesTo(b.history, 2)).toEqual([]);
    expect(
      b.history.some((r) =>
        r.decisions.some(
          (d) => d.kind === 'skip-broker' && d.brokerId === 2 && d.reason.startsWith('slow broker'),
        ),
      ),
    ).toBe(true);
    expect(leadersPerBroker(c, 'orders')[2]).toBe(0);
  });

  it('excluded brokers are left out', () => {
    const c = clusterWithEmptyBroker(5);
    c.balancer!.reconfigure({ 'autobalancer.controller.exclude.broker.ids': '2' });
    c.runFor('50s');
    c.restartBroker(2);
    c.runFor('200s');
    expect(movesTo(c.balancer!.history, 2)).toEqual([]);
    expect(c.balancer!.lastDetect!.brokers.map((s) => s.brokerId)).toContain(2);
    expect(c.balancer!.lastDetect!.excludedBrokers).toEqual([2]);
  });
});

describe('load that changes over time', () => {
  it('follows a hot partition without oscillating', () => {
    const c = createCluster({ seed: 6, brokers: 3, storage: 'shared', autobalancer: true });
    c.admin.createTopic({ name: 'events', assignments: [[0], [1], [2], [0], [1], [2]] });
    const loads = [0, 1, 2, 3, 4, 5].map((p) => steadyLoad(c, `events-load-${p}`, 'events', p, 600 * KiB));
    const b = c.balancer!;
    c.runFor('200s');
    // Evenly loaded: nothing to do.
    expect(b.history.flatMap((r) => r.moves)).toEqual([]);
    // Partition 0 (on broker 0) becomes hot: 3 MiB/s.
    loads[0]!.bytesPerSec = 3 * 1024 * KiB;
    const hotAt = c.now;
    c.runFor('600s');
    const moves = b.history.filter((r) => r.time > hotAt).flatMap((r) => r.moves);
    expect(moves.length).toBeGreaterThan(0);
    // Broker 0 sheds its other partitions; the hot one is too big for the band and stays.
    expect(moves.every((m) => m.srcBrokerId === 0 || m.destBrokerId !== 0)).toBe(true);
    expect(moves.some((m) => m.partition === 0)).toBe(false);
    expect(c.image.topics.events!.partitions[0]!.leader).toBe(0);
    // No partition moves twice, and the last detects move nothing: it settled.
    const seen = new Set<number>();
    for (const m of moves) {
      expect(seen.has(m.partition)).toBe(false);
      seen.add(m.partition);
    }
    for (const r of b.history.slice(-4)) expect(r.moves).toEqual([]);
    const last = b.lastDetect!;
    expect(last.decisions.some((d) => d.kind === 'balance-failed' && d.brokerId === 0)).toBe(true);
  });
});

describe('runtime configuration', () => {
  it('enable=false skips detects; turning it back on balances at the next one', () => {
    const w = workflowA('A1', {
      seed: 7,
      numRecords: 900_000,
      autobalancer: { 'autobalancer.controller.enable': false },
    });
    const c = w.cluster;
    const b = c.balancer!;
    c.runFor('100s');
    expect(b.history.map((r) => r.skipped)).toEqual(['autobalancer.controller.enable is false']);
    expect(leadersPerBroker(c)).toEqual({ 1: 0, 2: 8 });
    b.reconfigure({ 'autobalancer.controller.enable': 'true' });
    c.runFor('30s');
    expect(b.history[1]!.time).toBe(120_000);
    expect(b.history[1]!.moves).toHaveLength(4);
    expect(() => b.reconfigure({ 'autobalancer.controller.topic.num.partitions': 3 })).toThrow(/runtime/);
    expect(() => b.reconfigure({ 'autobalancer.controller.metrics.delay.ms': 0 })).toThrow(/positive/);
  });

  it('takes cluster-wide dynamic broker configs from the metadata (kafka-configs --entity-default)', () => {
    const w = workflowA('A1', { seed: 8, numRecords: 600_000 });
    const c = w.cluster;
    const res = c.admin.incrementalAlterConfigs([
      {
        resourceType: 'BROKER',
        resourceName: '',
        configs: [{ name: 'autobalancer.controller.exclude.topics', op: 'SET', value: TOPIC }],
      },
    ]);
    expect(res[0]!.errorCode).toBe(0);
    expect(c.balancer!.config['autobalancer.controller.exclude.topics']).toBe(TOPIC);
    // A value the balancer cannot use is reported and ignored (the broker side does not validate these keys).
    const rejected: unknown[] = [];
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'balancer.config-rejected') rejected.push(e.key);
    });
    c.admin.incrementalAlterConfigs([
      {
        resourceType: 'BROKER',
        resourceName: '',
        configs: [{ name: 'autobalancer.controller.goals', op: 'SET', value: 'com.example.NoSuchGoal' }],
      },
    ]);
    expect(c.balancer!.goals.map((g) => g.name)).toEqual([
      'NetworkInUsageDistributionGoal',
      'NetworkOutUsageDistributionGoal',
    ]);
    expect(rejected).toEqual(['autobalancer.controller.goals']);
    c.runFor('100s');
    const first = c.balancer!.history[0]!;
    expect(first.excludedTopics).toEqual([TOPIC]);
    expect(first.moves).toEqual([]);
    expect(leadersPerBroker(c)).toEqual({ 1: 0, 2: 8 });
  });

  it('a new detect interval applies from the next scheduling (the one already due is kept)', () => {
    const c = createCluster({ seed: 2, brokers: 2, storage: 'shared', autobalancer: true });
    c.runFor('61s');
    c.balancer!.reconfigure({ 'autobalancer.controller.anomaly.detect.interval.ms': 10_000 });
    c.runFor('84s');
    expect(c.balancer!.history.map((r) => r.time)).toEqual([60_000, 120_000, 130_000, 140_000]);
  });
});

describe('execution', () => {
  it('sends one batch per execution interval and stops after 60 s; the rest waits for the next detect', () => {
    // One move per batch (execution.concurrency 1: broker 2 is the source of every move), 20 s apart.
    const w = workflowA('A2', {
      seed: 1,
      numRecords: 700_000,
      consumer: false,
      autobalancer: {
        'autobalancer.controller.execution.concurrency': 1,
        'autobalancer.controller.execution.interval.ms': 20_000,
      },
    });
    const c = w.cluster;
    const b = c.balancer!;
    c.runUntil(() => b.history.length >= 1, { timeout: '200s' });
    const first = b.history[0]!;
    expect(first.moves.length).toBeGreaterThan(4);
    // Batches at 0, 20, 40 and 60 s after the detect: the check after the fourth finds 60 s passed.
    expect(first.batches.map((x) => x.time - first.time)).toEqual([0, 20_001, 40_002, 60_003]);
    expect(first.batches.every((x) => x.moves.length === 1 && x.committedAt! > x.time)).toBe(true);
    expect(first.executionTimedOut).toBe(true);
    expect(first.finishedAt).toBe(first.batches[3]!.committedAt);
    // The next detect, a full interval later, recomputes from the new loads and continues (a report joins the
    // history when its execution ends).
    c.runUntil(() => b.history.length >= 2, { timeout: '150s' });
    expect(b.history[1]!.time - first.finishedAt!).toBe(60_000);
    expect(b.history[1]!.moves.length).toBeGreaterThan(0);
  });
});

describe('controller restart', () => {
  it('loses the balancer state and detects again one interval after the restart', () => {
    const w = workflowA('A1', { seed: 10, numRecords: 600_000 });
    const c = w.cluster;
    c.runFor('30s');
    c.controller.crash();
    c.runFor('5s');
    const restartedAt = c.now;
    c.controller.start();
    expect(c.balancer!.model.reports.size).toBe(0);
    c.runUntil(() => c.balancer!.history.length >= 1, { timeout: '70s' });
    expect(c.balancer!.history[0]!.time).toBe(restartedAt + 60_000);
    c.runFor('10s');
    expect(leadersPerBroker(c)).toEqual({ 1: 4, 2: 4 });
  });
});

describe('broker failure path', () => {
  it("sends a fenced broker's partitions to same-rack brokers weighted by 1/load (the balancer's ClusterStats)", () => {
    const c = createCluster({
      seed: 12,
      brokers: [
        { id: 0, rack: 'a' },
        { id: 1, rack: 'a' },
        { id: 2, rack: 'a' },
        { id: 3, rack: 'b' },
      ],
      storage: 'shared',
      // The balancer must not move anything itself here: every topic is excluded, their loads still count.
      autobalancer: { 'autobalancer.controller.exclude.topics': 'heavy,light,victim' },
    });
    loadedTopic(c, 'heavy', [1, 1], 4 * 1024 * KiB);
    loadedTopic(c, 'light', [2, 2, 2, 2, 2, 2], 1 * KiB);
    loadedTopic(c, 'victim', [0, 0, 0, 0, 0, 0, 0, 0], 1 * KiB);
    c.runFor('95s');
    const stats = c.controller.clusterStats!;
    expect(stats.brokerLoads.get(1)!).toBeGreaterThan(stats.brokerLoads.get(2)! * 100);
    c.crashBroker(0);
    c.runUntil(() => c.image.brokers[0]!.fenced, { timeout: '20s', description: 'broker 0 fenced' });
    c.runFor('2s');
    const leaders = c.image.topics.victim!.partitions.map((p) => p.leader);
    // Partition counts alone would favour broker 1 (2 partitions vs 6); by load broker 2 takes nearly all.
    expect(leaders.filter((l) => l === 2).length).toBeGreaterThanOrEqual(7);
    expect(leaders.includes(3)).toBe(false); // another rack
    expect(leaders.includes(0)).toBe(false);
  });
});
