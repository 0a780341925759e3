// The sweep runner with real worker threads: the workers load TypeScript through the tsx entry (worker.js), runs
// are deterministic whatever the number of threads, and stopping keeps exactly the finished cells.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../models/sim/index.ts';
import { runScenario } from '../../src/scenario/index.ts';
import {
  guardAgainstLivelock,
  parseGrid,
  planSweep,
  runCell,
  runSweep,
  type SweepDocument,
  SweepInputError,
  shardOfRun,
} from '../../src/sweep/index.ts';

const TINY = fileURLToPath(new URL('./fixtures/tiny.yaml', import.meta.url));

const plan = () =>
  planSweep({
    file: TINY,
    grid: parseGrid(['topics.0.partitions=2,4', 'timeline.0.crashBroker=1,3']),
    seeds: [1, 2],
    metrics: ['acked', 'produceErrors', 'produceLatencyP99Ms', 'moves', 'maxLag'],
  });

/** The document without wall times (the only part that may differ between two runs of a sweep). */
function deterministic(doc: SweepDocument): unknown {
  return {
    ...doc,
    wallMs: 0,
    cells: doc.cells.map((c) => ({ ...c, runs: c.runs.map((r) => ({ ...r, wallMs: 0 })) })),
  };
}

// Each sweep starts worker threads (tsx compiles the sources in each): generous time on a busy 2-core machine.
describe('runSweep', { timeout: 180_000 }, () => {
  it('runs every cell and seed in worker threads, the same with 1 or 2 threads and as in-process runs', async () => {
    const one = await runSweep(plan(), { parallel: 1 });
    const two = await runSweep(plan(), { parallel: 2 });
    expect(one.cells).toHaveLength(4);
    expect(one.interrupted).toBe(false);
    expect(deterministic(two)).toEqual(deterministic(one));
    // Each run is the run `kafkasim run --seed S --set ...` would do: same trace hash, same metric.
    const cell = one.cells[3]!;
    expect(cell.params).toEqual({ 'topics.0.partitions': '4', 'timeline.0.crashBroker': '3' });
    for (const run of cell.runs) {
      const direct = runScenario(TINY, {
        seed: run.seed,
        set: ['topics.0.partitions=4', 'timeline.0.crashBroker=3'],
      });
      expect(run.traceHash).toBe(direct.traceHash);
      expect(run.metrics.acked).toBe(direct.metrics.acked);
      expect(run.passed).toBe(direct.passed);
    }
    // Different seeds are different runs; the summary is over them.
    expect(cell.runs[0]!.traceHash).not.toBe(cell.runs[1]!.traceHash);
    const acked = cell.runs.map((r) => r.metrics.acked!);
    expect(cell.summary.acked).toMatchObject({ min: Math.min(...acked), max: Math.max(...acked), n: 2 });
    // A metric without data (no consumer here) is n/a, not 0.
    expect(cell.summary.maxLag).toEqual({ median: null, min: null, max: null, n: 0 });
  });

  it('stops on abort: queued and running runs are cancelled, only whole finished cells are kept', async () => {
    const p = plan();
    const stop = new AbortController();
    const progress: number[] = [];
    const doc = await runSweep(p, {
      parallel: 1,
      signal: stop.signal,
      onProgress: (pr) => {
        progress.push(pr.cellsDone);
        if (pr.cellsDone === 1) stop.abort();
      },
    });
    expect(doc.interrupted).toBe(true);
    expect(doc.cells.map((c) => c.index)).toEqual([0]);
    expect(doc.cells[0]!.runs).toHaveLength(2);
    expect(progress.at(-1)).toBe(1);
  });

  it('runs only the shard’s runs (those the hash of cell and seed gives it)', async () => {
    const p = planSweep({ ...plan(), file: TINY, grid: plan().grid, seeds: [1, 2], shard: { k: 2, n: 3 } });
    const expected = p.cells.flatMap((c) =>
      [1, 2].filter((seed) => shardOfRun(c.params, seed, 3) === 2).map((seed) => `${c.index}/${seed}`),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(p.runs.map((r) => `${r.cell.index}/${r.seed}`)).toEqual(expected);
    const doc = await runSweep(p, { parallel: 1 });
    expect(doc.cells.flatMap((c) => c.runs.map((r) => `${c.index}/${r.seed}`))).toEqual(expected);
    expect(doc.shard).toEqual({ k: 2, n: 3 });
    expect(doc.shards).toEqual({ n: 3, have: [2] });
    expect(doc.totalCells).toBe(4);
    expect(doc.totalRuns).toBe(8);
    expect(doc.identity).toEqual(plan().identity);
  });

  it('runs a normal scenario to the end under the livelock guard', () => {
    const outcome = runCell({ path: TINY, set: [], seed: 1, metrics: ['acked'] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.metrics.acked).toBe(runScenario(TINY).metrics.acked);
  });
});

describe('the livelock guard', () => {
  it('stops a simulation whose virtual time no longer moves, and only that', () => {
    const stuck = new Simulation({ seed: 1 });
    const spin = (): void => void stuck.schedule(0, spin, 'spin');
    stuck.schedule(5, spin, 'spin');
    guardAgainstLivelock(stuck, 1000);
    expect(() => stuck.runFor(10)).toThrow(/virtual time stuck at 5 ms for 1,000 events/);

    const busy = new Simulation({ seed: 1 });
    const tick = (): void => void busy.schedule(0.001, tick, 'tick');
    busy.schedule(0, tick, 'tick');
    guardAgainstLivelock(busy, 1000);
    busy.runFor(100);
    expect(busy.eventCount).toBeGreaterThan(10_000);
  });
});

describe('planSweep', () => {
  it('refuses a grid path the scenario does not have, naming the --grid flag', () => {
    expect(() => planSweep({ file: TINY, grid: parseGrid(['topics.0.partitionz=2,4']) })).toThrow(
      /--grid topics\.0\.partitionz=2: topics\.0\.partitionz: unknown key/,
    );
    expect(() => planSweep({ file: TINY, grid: parseGrid(['topics.3.partitions=2']) })).toThrow(
      /--grid topics\.3\.partitions=2: .*index 3 is out of range/,
    );
  });

  it('refuses a value the schema rejects, naming the one bad value', () => {
    expect(() => planSweep({ file: TINY, grid: parseGrid(['topics.0.partitions=2,zero,4']) })).toThrow(
      /--grid topics\.0\.partitions=zero: topics\.0\.partitions: expected an integer/,
    );
  });

  it('refuses a combination the references check rejects', () => {
    // Broker 3 exists with 3 brokers, not with 2: the crash step then names a broker that is not there.
    expect(() => planSweep({ file: TINY, grid: parseGrid(['cluster.brokers=2,3']) })).toThrow(
      SweepInputError,
    );
  });

  it('defaults metrics to the scenario’s and checks names, suggesting the nearest', () => {
    expect(planSweep({ file: TINY, grid: [] }).metrics).toEqual(['acked']);
    expect(() => planSweep({ file: TINY, grid: [], metrics: ['produceLatencyP99'] })).toThrow(
      /unknown metric 'produceLatencyP99' \(did you mean 'produceLatencyP99Ms'\?\)/,
    );
    expect(
      planSweep({ file: TINY, grid: [], metrics: ['app.lost', 'timeToBalanceMs'] }).metrics,
    ).toHaveLength(2);
  });
});
