// The recorder on real runs: it changes nothing, and what it records agrees with the cluster and the run's result.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/cluster/index.ts';
import { RunRecorder, whatIfMetrics } from '../../src/report/index.ts';
import { runScenario } from '../../src/scenario/index.ts';

const DEMO = fileURLToPath(new URL('./fixtures/report-demo.yaml', import.meta.url));
const REFRESH = fileURLToPath(new URL('./fixtures/producer-refresh.yaml', import.meta.url));
const INGEST = fileURLToPath(new URL('../../scenarios/whatif-metadata-refresh.yaml', import.meta.url));

function recorded(file: string, set: string[] = []) {
  const recorder = new RunRecorder();
  let cluster: Cluster | undefined;
  const result = runScenario(file, {
    set,
    onCluster: (c) => {
      cluster = c;
      recorder.attach(c);
    },
  });
  return { result, recording: recorder.finish(result), cluster: cluster! };
}

describe('RunRecorder', () => {
  const { result, recording, cluster } = recorded(DEMO);

  it('does not change the run: same events, trace hash and metrics as without it', () => {
    const plain = runScenario(DEMO);
    expect(result.traceHash).toBe(plain.traceHash);
    expect(result.events).toBe(plain.events);
    expect(result.metrics).toEqual(plain.metrics);
    expect(result.passed).toBe(true);
  });

  it('aligns its times with the timeline (step at: 6s is 6 s after the origin)', () => {
    const crash = recording.events.find((e) => e.kind === 'node.crash' && e.node === 'broker-2')!;
    expect(crash.t - recording.origin).toBeCloseTo(6000, 6);
    expect(recording.steps.map((s) => s.label)).toEqual(['move', 'crash', 'restart', 'alter']);
  });

  it('samples per-broker traffic, with a gap while a broker is down', () => {
    const rel = (t: number) => t - recording.origin;
    const down = recording.times.map((t, i) => [rel(t), recording.networkIn['2']![i]] as const);
    expect(down.filter(([t]) => t > 6500 && t < 14_000).every(([, v]) => v === null)).toBe(true);
    expect(down.filter(([t]) => t > 15_000).every(([, v]) => v !== null)).toBe(true);
    // RF 3: followers fetch what leaders take in, so "out" carries traffic too.
    const total = (s: Record<string, (number | null)[]>) =>
      Object.values(s).reduce((a, xs) => a + xs.reduce<number>((b, v) => b + (v ?? 0), 0), 0);
    expect(total(recording.networkIn)).toBeGreaterThan(0);
    expect(total(recording.networkOut)).toBeGreaterThan(total(recording.networkIn));
  });

  it('ends with the placement the controller has', () => {
    const last = new Map<string, { leader: number; replicas: number[] }>();
    for (const p of recording.placement) last.set(`${p.topic}-${p.partition}`, p);
    const image = cluster.image.topics.orders!;
    expect(last.size).toBe(image.partitions.length);
    image.partitions.forEach((p, i) => {
      expect(last.get(`orders-${i}`)).toMatchObject({ leader: p.leader, replicas: [...p.replicas] });
    });
    // The reassignment of orders-0 to [3, 2, 1] shows as its replica list.
    expect(recording.placement.some((p) => p.partition === 0 && p.replicas.join() === '3,2,1')).toBe(true);
  });

  it('counts every acknowledged record and every produce error exactly once', () => {
    const [app] = recording.producers;
    const acked = app!.recordsPerSec.reduce((a, b) => a + b, 0) * (recording.sampleMs / 1000);
    expect(acked).toBe(result.metrics['app.acknowledged']);
    expect(recording.latency.records).toBe(result.metrics['app.acknowledged']);
    const marked = recording.produceErrors.reduce((a, e) => a + e.count, 0);
    expect(marked).toBe(result.metrics['app.produceErrors']);
    expect(recording.produceErrorCount).toBe(result.metrics['app.produceErrors']);
    expect(marked).toBeGreaterThan(0); // the crash makes the producer retry
    const { p50, p99, max } = recording.latency;
    expect(p50!).toBeLessThanOrEqual(p99!);
    expect(p99!).toBeLessThanOrEqual(max!);
  });

  it('follows consumer lag per partition and the partition expansion', () => {
    expect(Object.keys(recording.lag).sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
    const m = whatIfMetrics(recording, result);
    expect(m.maxLag!).toBeGreaterThan(0);
    expect(m.finalLag).toBe(0);
    expect(result.metrics['reader.lag']).toBe(0);
    expect(recording.alters).toHaveLength(1);
    expect(recording.alters[0]).toMatchObject({ topic: 'orders', previousCount: 4, count: 6 });
    // Assign-mode consumers never take the new partitions: n/a, not a time.
    expect(m.alterToAssignedMs).toBeNull();
    // The producer refreshes metadata every 2 s (metadata.max.age.ms), so it finds the new partitions within that.
    expect(m.alterToProducedMs!).toBeGreaterThan(0);
    expect(m.alterToProducedMs!).toBeLessThanOrEqual(2100);
  });

  it('times alter-to-produced as the scenario’s own waitUntil measures it', () => {
    for (const interval of [1000, 5000]) {
      const run = recorded(REFRESH, [
        `clients.producers.0.config.topic.metadata.refresh.interval.ms=${interval}`,
      ]);
      const mine = whatIfMetrics(run.recording, run.result).alterToProducedMs!;
      // The scenario polls every 10 ms and counts from the alter's request reaching the controller (applied).
      expect(Math.abs(mine - run.result.metrics.coveredMs!)).toBeLessThanOrEqual(20);
      expect(mine).toBeLessThanOrEqual(interval + 50);
    }
  });

  it('samples after every event through the kernel hook, however rarely invariants are checked', () => {
    const sparse = recorded(DEMO, ['cluster.checkInvariantsEvery=100000']);
    expect(sparse.result.passed).toBe(true);
    // The same samples at the same moments (an invariant-driven sampler would sample every 100,000 events).
    expect(sparse.recording.times).toEqual(recording.times);
    expect(sparse.recording.networkIn).toEqual(recording.networkIn);
    expect(sparse.recording.placement).toEqual(recording.placement);
  });
});

describe('RunRecorder on an ingest service (workflow B)', () => {
  const { result, recording } = recorded(INGEST);

  it('does not change the run', () => {
    const plain = runScenario(INGEST);
    expect(result.passed).toBe(true);
    expect(result.traceHash).toBe(plain.traceHash);
    expect(result.events).toBe(plain.events);
  });

  it("follows the service's workers: their assignments, lag, and alter-to-assigned", () => {
    const workers = [0, 1, 2, 3].map((i) => `bend-ingest-kafka-worker-${i}`);
    expect([...recording.consumers].sort()).toEqual(workers);
    const last = new Map(recording.assignments.map((a) => [a.consumer, a.partitions.length]));
    expect(workers.map((w) => last.get(w))).toEqual([2, 2, 2, 2]);
    expect(Object.keys(recording.lag).sort()).toEqual(
      Array.from({ length: 8 }, (_, p) => `e2e_auto_rebalance-${p}`).sort(),
    );
    const m = whatIfMetrics(recording, result);
    expect(m.finalLag).toBe(0);
    // The recorder's alter is the controller handling CreatePartitions, the scenario's `applied` moment; its
    // waitUntil polls every 10 ms: the two agree within that.
    const covered = result.metrics.appliedToCoveredMs!;
    expect(m.alterToAssignedMs!).toBeGreaterThan(0);
    expect(m.alterToAssignedMs!).toBeLessThanOrEqual(covered);
    expect(covered - m.alterToAssignedMs!).toBeLessThanOrEqual(20);
  });
});
