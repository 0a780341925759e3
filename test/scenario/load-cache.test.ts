// A sweep's worker loads each (scenario file, --set flags) once: the cache answers the same text with the same flags
// from memory, gives every caller its own copy, loads an edited file afresh and never caches an error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadScenarioFile, ScenarioError } from '../../src/scenario/index.ts';
import { ScenarioLoadCache } from '../../src/scenario/load-cache.ts';

const SCENARIO = `name: demo
cluster:
  brokers: 2
topics:
  - name: orders
    partitions: 4
timeline:
  - run: 5s
`;

function scenarioFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-load-cache-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'demo.yaml');
  writeFileSync(file, text);
  return file;
}

describe('ScenarioLoadCache', () => {
  it('loads what loadScenarioFile loads, and the same text with the same flags only once', () => {
    const file = scenarioFile(SCENARIO);
    const cache = new ScenarioLoadCache();
    const set = ['topics.0.partitions=8'];
    const first = cache.load(file, set);
    expect(first).toEqual(loadScenarioFile(file, { set }));
    expect(first.spec.topics?.[0]?.partitions).toBe(8);
    expect(cache.load(file, set)).toEqual(first);
    expect(cache.hits).toBe(1);
    // Other flags are another scenario.
    expect(cache.load(file, ['topics.0.partitions=16']).spec.topics?.[0]?.partitions).toBe(16);
    expect(cache.hits).toBe(1);
    expect(cache.size).toBe(2);
  });

  it('gives each caller its own copy', () => {
    const file = scenarioFile(SCENARIO);
    const cache = new ScenarioLoadCache();
    const a = cache.load(file);
    a.spec.name = 'changed by a run';
    a.spec.timeline.push({ run: '1s' });
    const b = cache.load(file);
    expect(cache.hits).toBe(1);
    expect(b.spec.name).toBe('demo');
    expect(b.spec.timeline).toHaveLength(1);
  });

  it('loads an edited file afresh and keeps at most `capacity` entries', () => {
    const file = scenarioFile(SCENARIO);
    const cache = new ScenarioLoadCache(2);
    cache.load(file);
    writeFileSync(file, SCENARIO.replace('brokers: 2', 'brokers: 3'));
    expect(cache.load(file).spec.cluster?.brokers).toBe(3);
    expect(cache.hits).toBe(0);
    cache.load(file, ['cluster.brokers=4']);
    expect(cache.size).toBe(2);
  });

  it('throws the ScenarioError of an invalid scenario every time', () => {
    const file = scenarioFile(SCENARIO);
    const cache = new ScenarioLoadCache();
    for (let i = 0; i < 2; i++)
      expect(() => cache.load(file, ['cluster.brokers=none'])).toThrow(ScenarioError);
    expect(() => cache.load(join(file, '..', 'missing.yaml'))).toThrow(/no such file/);
    expect(cache.size).toBe(0);
  });
});
