// Issue 10's benchmark: the shipped whatif-partitions sweep, 4 partition counts × 3 broker counts × 3 seeds = 36
// runs of about 100 s of virtual time each, in worker threads (one per core, worker start-up included). Target:
// under 60 s of wall time on the 2-core machine. Prints the sweep's table and the wall time.
// Issue 23's grid up to 10,000 partitions (100, 1,000, 10,000 partitions x 3 and 5 brokers, one seed), in the
// same budget.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { bench, describe } from 'vitest';
import { formatSweepTable, parseGrid, planSweep, runSweep } from '../../src/sweep/index.ts';

const FILE = fileURLToPath(new URL('../../scenarios/whatif-partitions.yaml', import.meta.url));

async function sweep(
  grid: string[] = ['topics.0.partitions=8,16,32,64', 'cluster.brokers=3,5,9'],
  seeds: number[] = [1, 2, 3],
): Promise<void> {
  const plan = planSweep({
    file: FILE,
    grid: parseGrid(grid),
    seeds,
    metrics: [
      'timeToBalanceMs',
      'balancerMoves',
      'finalLoadDeviation',
      'leaderSkew',
      'produceErrors',
      'produceLatencyP99Ms',
    ],
  });
  const doc = await runSweep(plan);
  const runs = doc.cells.reduce((a, c) => a + c.runs.length, 0);
  const events = doc.cells.reduce((a, c) => a + c.runs.reduce((b, r) => b + r.events, 0), 0);
  console.log(formatSweepTable(doc));
  console.log(
    `whatif-partitions sweep: ${doc.cells.length} cells, ${runs} runs, ${events.toLocaleString('en-US')} events in ${(doc.wallMs / 1000).toFixed(1)} s wall on ${Math.min(availableParallelism(), runs)} threads (target < 60 s)`,
  );
}

describe('what-if sweep', () => {
  bench('whatif-partitions: 12 cells × 3 seeds, all cores', sweep, {
    iterations: 1,
    warmupIterations: 0,
    time: 0,
    warmupTime: 0,
  });
  bench(
    'whatif-partitions up to 10,000 partitions: 3 x 2 cells, 1 seed, all cores',
    () => sweep(['topics.0.partitions=100,1000,10000', 'cluster.brokers=3,5'], [1]),
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
});
