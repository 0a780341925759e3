// Every file in scenarios/ runs as a test, and its expectations must hold. Each also runs a second time with
// the same seed and must replay event for event (same traceHash, same output), and its run must match the
// committed golden fingerprint (golden-trace-hashes.json): a refactor leaves every run exactly as it was.
//
// A deliberate behaviour change regenerates the golden file, in a commit of its own that says why:
//   npm run golden:update      (= KAFKASIM_GOLDEN=update vitest run test/scenario/scenarios.test.ts)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DATA_PLANE_INVARIANTS } from '../../models/broker/invariants.ts';
import type { Simulation } from '../../models/sim/index.ts';
import {
  loadScenarioFile,
  needsSql,
  type RunOptions,
  runScenario,
  runScenarioAsync,
  SCENARIOS_DIR,
} from '../../src/scenario/index.ts';

const files = readdirSync(SCENARIOS_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** What identifies a run: the run's fingerprint (the trace hash), its event count and its virtual duration. */
interface GoldenRun {
  traceHash: string;
  events: number;
  virtualMs: number;
}
const GOLDEN_FILE = new URL('./golden-trace-hashes.json', import.meta.url);
const updating = process.env.KAFKASIM_GOLDEN === 'update';
const golden: Record<string, GoldenRun> = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8'));
const regenerated: Record<string, GoldenRun> = {};
afterAll(() => {
  if (!updating) return;
  // Entries of scenarios that no longer exist go; a filtered run (-t) keeps the others' entries as they were.
  const merged: Record<string, GoldenRun> = {};
  for (const f of files) {
    const entry = regenerated[f] ?? golden[f];
    if (entry) merged[f] = entry;
  }
  writeFileSync(GOLDEN_FILE, `${JSON.stringify(merged, null, 2)}\n`);
});

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
    it(`${f}: every expectation holds, and the same seed replays it exactly`, async () => {
      const file = `${SCENARIOS_DIR}${f}`;
      expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
        '# yaml-language-server: $schema=../schema/scenario.schema.json',
      );
      // Scenarios that ask the Lake SQL questions need the async runner (DuckDB answers asynchronously).
      const run = needsSql(loadScenarioFile(file).spec)
        ? runScenarioAsync
        : async (x: string, o?: RunOptions) => runScenario(x, o);
      let sim: Simulation | undefined;
      const first = await run(file, { onCluster: (c) => (sim = c.sim) });
      // Issue 24: the data-plane invariants are on in every scenario run, checked after every event (a quorum of
      // Raft test servers has no data plane and no Cluster: its Raft invariants are its own expectation).
      if (!loadScenarioFile(file).spec.raftTestServer) {
        expect(sim!.invariantNames, `${f}: invariants registered at the end of the run`).toEqual(
          expect.arrayContaining([...DATA_PLANE_INVARIANTS]),
        );
        expect(sim!.invariantEvery, `${f}: invariants checked after every event`).toBe(1);
      }
      const failed = first.expectations.filter((e) => !e.passed);
      expect(failed, `failed expectations of ${f} (seed ${first.seed})`).toEqual([]);
      expect(first.passed).toBe(true);
      expect(first.expectations.length).toBeGreaterThan(0);
      expect(first.error).toBeUndefined();

      const second = await run(file);
      expect(second.traceHash).toBe(first.traceHash);
      expect(second.events).toBe(first.events);
      expect(second.virtualMs).toBe(first.virtualMs);
      expect(second.output).toEqual(first.output);

      const actual: GoldenRun = {
        traceHash: first.traceHash,
        events: first.events,
        virtualMs: first.virtualMs,
      };
      if (updating) regenerated[f] = actual;
      else
        expect(
          actual,
          `${f} no longer runs as the golden file says (seed ${first.seed}); if the change of behaviour is ` +
            'deliberate, regenerate with `npm run golden:update` and commit the new file on its own',
        ).toEqual(golden[f]);
    });
  }

  it.skipIf(updating)('the golden file names exactly the shipped scenarios', () => {
    expect(Object.keys(golden).sort()).toEqual(files);
  });
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

  it('bend-ingest-partition-expansion: producer lines, rebalance log, describe and SQL as of each moment', async () => {
    const file = `${SCENARIOS_DIR}bend-ingest-partition-expansion.yaml`;
    expect(() => runScenario(file)).toThrow(/queries the Lake with SQL.*runScenarioAsync/);
    const streamed: string[] = [];
    const r = await runScenarioAsync(file, {
      out: (l) => streamed.push(l),
      onStep: (e) => streamed.push(`STEP ${e.command}`),
    });
    expect(r.passed).toBe(true);
    // out and onStep see the SQL answers where they were asked, in order.
    expect(streamed.filter((l) => !l.startsWith('STEP '))).toEqual(r.output);
    const o = r.output;
    const produced = o.filter((l) => l.startsWith('produced='));
    expect(produced).toHaveLength(2);
    expect(produced[0]).toMatch(/^produced=10000 remaining=0 failed=0 elapsed=\S+ rate=[\d.]+ msg\/s$/);
    expect(produced[1]).toMatch(/^produced=90000 remaining=0 failed=0 /);
    // The phase-1 count is the Lake as of that moment (10000), not the final 100000.
    const firstCount = o.indexOf('total_rows');
    expect(o[firstCount + 2]).toBe('10000');
    const alterIndex = streamed.findIndex((l) =>
      l.includes('--alter --topic e2e_auto_rebalance --partitions 8'),
    );
    expect(streamed.indexOf('total_rows')).toBeLessThan(alterIndex);
    const revoked = o.filter((l) => l.includes('kafka_rebalance: Partitions revoked'));
    expect(revoked.some((l) => l.includes('[e2e_auto_rebalance[0]@unset]'))).toBe(true);
    const assigned = o.filter((l) => /kafka_rebalance: Partitions assigned: \[\S+ \S+\]/.test(l));
    expect(assigned).toHaveLength(4);
    const describeRows = o.filter((l) => l.startsWith('e2e-auto-rebalance '));
    expect(describeRows).toHaveLength(2 + 8);
    for (const row of describeRows) expect(row.split(/\s+/)[5]).toBe('0');
    expect(o).toContain('100000      100000              0             99999');
    expect(o.filter((l) => /^[2-7] +11250 +0 +11249$/.test(l))).toHaveLength(6);
    expect(r.metrics['bend-ingest-kafka.rowsTotal']).toBe(100_000);
  });

  it('a sql expectation that does not hold fails with the rows DuckDB returned', async () => {
    const r = await runScenarioAsync(`${SCENARIOS_DIR}bend-ingest-partition-expansion.yaml`, {
      set: ['expectations.2.sql.equals.0.0=99999'],
    });
    expect(r.passed).toBe(false);
    const e = r.expectations[2]!;
    expect(e.passed).toBe(false);
    expect(e.actual).toEqual([['100000', '100000', '0', '99999']]);
  });
});
