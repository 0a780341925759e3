#!/usr/bin/env node
// One what-if sweep run in-process, warm: what a sweep's worker thread pays per run once it has loaded the modules
// and the JIT has warmed up. Runs dist/src/sweep/run-cell.js's runCell on scenarios/whatif-partitions.yaml once to
// warm up, then for three seeds, printing the CPU time (process.cpuUsage, all threads) of each and their trace
// hashes (the same in any checkout whose models behave the same). For an A/B, run it alternately in two built
// checkouts (npm run build in each) so both see the same load:
//
//   node scripts/bench-run-cell.mjs [DIR=.] [partitions=32] [brokers=5]
//   SET="cluster.checkInvariantsEvery=1000000000" node scripts/bench-run-cell.mjs   # extra --set flags
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir = '.', partitions = '32', brokers = '5'] = process.argv.slice(2);
const root = resolve(dir);
const { runCell } = await import(pathToFileURL(join(root, 'dist/src/sweep/run-cell.js')).href);
const task = (seed) => ({
  path: join(root, 'scenarios/whatif-partitions.yaml'),
  set: [
    `topics.0.partitions=${partitions}`,
    `cluster.brokers=${brokers}`,
    ...(process.env.SET ? process.env.SET.split(' ') : []),
  ],
  seed,
  metrics: ['timeToBalanceMs', 'balancerMoves', 'maxLoadDeviation', 'leaderSkew', 'produceLatencyP99Ms'],
});
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let t = cpuMs();
runCell(task(1));
const first = Math.round(cpuMs() - t);
const warm = [];
const hashes = [];
for (const seed of [2, 3, 4]) {
  t = cpuMs();
  const out = runCell(task(seed));
  warm.push(Math.round(cpuMs() - t));
  hashes.push(out.traceHash);
}
console.log(
  `${root}: first run ${first} ms CPU; warm runs ${warm.join(', ')} ms (sum ${warm.reduce((a, b) => a + b)}); trace hashes ${hashes.join(' ')}`,
);
