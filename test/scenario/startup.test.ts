// Start-up times in scenarios: an operator's tool (kafkasim.tool.startup.ms) runs before its request, so a tool
// step has two moments (the command typed, its request reaching the controller); each client process starts up
// (kafkasim.client.startup.ms) before its Kafka client exists. Both come from the seed.
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../models/sim/index.ts';
import { loadScenarioObject, runScenario, ScenarioError } from '../../src/scenario/index.ts';

const alter = (configs: Record<string, unknown> = {}) => ({
  name: 'startup',
  seed: 5,
  cluster: { brokers: 1, configs },
  topics: [{ name: 'events', partitions: 2, replicationFactor: 1 }],
  timeline: [{ at: '1s', label: 'alter', alterTopic: { name: 'events', partitions: 4 } }, { run: '1s' }],
  expectations: [{ name: 'four partitions', partitionCount: { topic: 'events', count: 4 } }],
  metrics: {
    typed: { timing: { from: 'alter', to: 'alter' } },
    applied: { timing: { from: 'alter', fromPoint: 'applied', to: 'alter' } },
  },
});

const alterStep = (r: ReturnType<typeof runScenario>) => r.steps.find((s) => s.label === 'alter')!;

describe('tool start-up (kafkasim.tool.startup.ms)', () => {
  it('a fixed start-up: the request reaches the controller that long after the command is typed', () => {
    const r = runScenario(alter({ 'kafkasim.tool.startup.ms': '2s' }));
    expect(r.passed).toBe(true);
    const step = alterStep(r);
    // Typed at 1 s, then 2 s of start-up, then one network hop to the controller.
    expect(step.start).toBe(1000);
    expect(step.applied! - step.start!).toBeGreaterThanOrEqual(2000);
    expect(step.applied! - step.start!).toBeLessThan(2010);
    // The two timings of the same step differ by exactly that.
    expect(r.metrics.typed! - r.metrics.applied!).toBeCloseTo(step.applied! - step.start!, 2);
  });

  it('0 turns it off: the request leaves when the command is typed', () => {
    const step = alterStep(runScenario(alter({ 'kafkasim.tool.startup.ms': 0 })));
    expect(step.applied! - step.start!).toBeLessThan(10);
  });

  it('the default varies with the seed (lognormal, at least 0.5 s) and replays with the same seed', () => {
    const gaps = [1, 2, 3, 4, 5, 6].map((seed) => {
      const step = alterStep(runScenario(alter(), { seed }));
      return step.applied! - step.start!;
    });
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(500);
      expect(g).toBeLessThan(10_000);
    }
    expect(new Set(gaps.map(Math.round)).size).toBe(gaps.length);
    const again = alterStep(runScenario(alter(), { seed: 3 }));
    expect(again.applied! - again.start!).toBe(gaps[2]);
  });

  it('a distribution is accepted; a bad value is an error that says where', () => {
    const r = runScenario(alter({ 'kafkasim.tool.startup.ms': { kind: 'uniform', min: 3000, max: 4000 } }));
    const gap = alterStep(r).applied! - alterStep(r).start!;
    expect(gap).toBeGreaterThanOrEqual(3000);
    expect(gap).toBeLessThan(4010);
    for (const bad of [-1, 'soon', { kind: 'lognormal', median: 0, sigma: 1 }]) {
      expect(() => loadScenarioObject(alter({ 'kafkasim.tool.startup.ms': bad }))).toThrow(ScenarioError);
    }
    expect(() => loadScenarioObject(alter({ 'kafkasim.tool.startup.ms': 'soon' }))).toThrow(
      'cluster.configs["kafkasim.tool.startup.ms"]',
    );
  });
});

describe('client start-up (kafkasim.client.startup.ms)', () => {
  const group = (configs: Record<string, unknown>, seed = 9) => {
    const starts: TraceEvent[] = [];
    const r = runScenario(
      {
        name: 'members',
        seed,
        cluster: { brokers: 1, configs },
        topics: [{ name: 'events', partitions: 4, replicationFactor: 1 }],
        clients: { groups: [{ name: 'app', topic: 'events', members: 3, autoStart: true }] },
        timeline: [
          {
            label: 'formed',
            waitUntil: { condition: { group: { name: 'app', assigned: 4, members: 3 } }, timeout: '30s' },
          },
        ],
        expectations: [{ name: 'formed', group: { name: 'app', assigned: 4 } }],
      },
      { trace: (e) => (e.kind === 'node.start' && e.node?.startsWith('app-') ? starts.push(e) : undefined) },
    );
    expect(r.passed).toBe(true);
    return starts;
  };

  it('each member process starts after its own draw, so their timers are out of phase', () => {
    const starts = group({ 'kafkasim.client.startup.ms': { kind: 'uniform', min: 1000, max: 3000 } });
    expect(starts.map((e) => e.node).sort()).toEqual(['app-1', 'app-2', 'app-3']);
    const t0 = Math.min(...starts.map((e) => e.t)) - 1000;
    for (const e of starts) expect(e.t).toBeLessThan(t0 + 3000);
    expect(new Set(starts.map((e) => e.t)).size).toBe(3);
  });

  it('0 starts every member at once', () => {
    const starts = group({ 'kafkasim.client.startup.ms': 0 });
    expect(new Set(starts.map((e) => e.t)).size).toBe(1);
  });

  it('another seed, other start times', () => {
    const a = group({}, 1).map((e) => e.t);
    const b = group({}, 2).map((e) => e.t);
    expect(a).not.toEqual(b);
  });
});
