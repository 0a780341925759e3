// Every file in scenarios/ runs as a test, and its expectations must hold. Each also runs a second time with
// the same seed and must replay event for event (same traceHash, same output).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runScenario, SCENARIOS_DIR } from '../../src/scenario/index.ts';

const files = readdirSync(SCENARIOS_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('shipped scenarios', () => {
  it('there are scenarios to run (the three this language shipped with, at least)', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'automq-reassign-hotspot.yaml',
        'broker-failure-rf3.yaml',
        'acks1-leader-loss.yaml',
      ]),
    );
  });

  for (const f of files) {
    it(`${f}: every expectation holds, and the same seed replays it exactly`, () => {
      const file = `${SCENARIOS_DIR}${f}`;
      expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
        '# yaml-language-server: $schema=../schema/scenario.schema.json',
      );
      const first = runScenario(file);
      const failed = first.expectations.filter((e) => !e.passed);
      expect(failed, `failed expectations of ${f} (seed ${first.seed})`).toEqual([]);
      expect(first.passed).toBe(true);
      expect(first.expectations.length).toBeGreaterThan(0);
      expect(first.error).toBeUndefined();

      const second = runScenario(file);
      expect(second.traceHash).toBe(first.traceHash);
      expect(second.events).toBe(first.events);
      expect(second.virtualMs).toBe(first.virtualMs);
      expect(second.output).toEqual(first.output);
    });
  }
});

describe('what the shipped scenarios show', () => {
  it('automq-reassign-hotspot: describe before and after the moves, in the tool format', () => {
    const r = runScenario(`${SCENARIOS_DIR}automq-reassign-hotspot.yaml`);
    const describes = r.output.filter((l) => l.startsWith('Topic: continuous-self-balancing-topic\t'));
    expect(describes).toHaveLength(2);
    const partitionLines = r.output.filter((l) => l.startsWith('\tTopic: continuous-self-balancing-topic\t'));
    expect(partitionLines).toHaveLength(16);
    // Before: spread over both brokers. After: all on broker 2.
    expect(new Set(partitionLines.slice(0, 8).map((l) => /Leader: (\d)/.exec(l)![1]))).toEqual(
      new Set(['1', '2']),
    );
    for (const l of partitionLines.slice(8)) expect(l).toMatch(/\tLeader: 2\tReplicas: 2\tIsr: 2$/);
    expect(r.output).toContain(
      'Successfully started partition reassignments for ' +
        Array.from({ length: 8 }, (_, p) => `continuous-self-balancing-topic-${p}`).join(','),
    );
    expect(
      r.output.some((l) => /^1024000 records sent, 51\d\d\.\d+ records\/sec \(5\.00 MB\/sec\)/.test(l)),
    ).toBe(true);
    expect(r.metrics['perf-producer.lost']).toBe(0);
  });

  it('acks1-leader-loss: the acknowledged records written after the cut are exactly the ones lost', () => {
    const r = runScenario(`${SCENARIOS_DIR}acks1-leader-loss.yaml`);
    // 1000 records/s for the 3 s between the cut (5s) and the crash (8s).
    expect(r.metrics['app.lost']).toBeGreaterThan(2900);
    expect(r.metrics['app.lost']).toBeLessThanOrEqual(3000);
    expect(
      r.output.some(
        (l) => l.startsWith(`Delivery report for app: `) && l.includes(`lost=${r.metrics['app.lost']}`),
      ),
    ).toBe(true);
  });

  it('another seed gives another run (the seed reaches the models)', () => {
    const a = runScenario(`${SCENARIOS_DIR}broker-failure-rf3.yaml`);
    const b = runScenario(`${SCENARIOS_DIR}broker-failure-rf3.yaml`, { seed: 7 });
    expect(b.seed).toBe(7);
    expect(b.passed).toBe(true);
    expect(b.traceHash).not.toBe(a.traceHash);
  });
});
