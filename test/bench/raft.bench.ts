// Issue 5's benchmarks. (1) The whole Raft property suite: every RaftEventSimulationTest scenario x 100 seeds,
// every invariant after every event, as the normal test run does it (target: under 60 s on this machine).
// (2) A 3-voter quorum under a steady append load (the test server's 5000 records/s), Kafka's default quorum
// settings and every invariant on, simulated at >= 500x real time. Each task prints its figures.
import fc from 'fast-check';
import { bench, describe } from 'vitest';
import { RaftQuorum } from '../../models/raft/index.ts';
import { RUNS, SCENARIOS } from '../models/raft/simulation-scenarios.ts';

/** CPU ms of this process since `from` (the machine is shared: wall time alone can mislead). */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
};

function suite(): void {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let events = 0;
  let virtualMs = 0;
  const lines: string[] = [];
  for (const s of SCENARIOS) {
    const s0 = performance.now();
    let e = 0;
    // The same 100 parameter sets on every run of the bench.
    for (const p of fc.sample(s.params, { numRuns: RUNS, seed: 42 })) {
      const q = s.run(p);
      e += q.sim.eventCount;
      virtualMs += q.sim.now;
      q.dispose();
    }
    events += e;
    lines.push(`  ${s.name}: ${(performance.now() - s0).toFixed(0)} ms, ${e.toLocaleString('en')} events`);
  }
  const ms = performance.now() - t0;
  console.log(
    `Raft property suite, ${SCENARIOS.length} scenarios x ${RUNS} seeds: ${(ms / 1000).toFixed(2)} s wall ` +
      `(${(cpuMs(c0) / 1000).toFixed(2)} s CPU), ` +
      `${events.toLocaleString('en')} events, ${(virtualMs / 1000).toFixed(0)} s virtual\n${lines.join('\n')}`,
  );
}

const LOAD_VIRTUAL_S = 120;

function steadyLoad(): void {
  // 50 values every 10 ms = 5000 records/s; the leader's accumulator batches them every append.linger.ms (25 ms).
  const q = new RaftQuorum({
    seed: 1,
    voters: 3,
    appendIntervalMs: 10,
    appendJitterMs: 0,
    recordsPerAppend: 50,
  });
  q.startAll();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  q.sim.runFor(`${LOAD_VIRTUAL_S}s`);
  const ms = performance.now() - t0;
  const cpu = cpuMs(c0);
  q.consistentCommittedData.validate();
  const hw = q.maxHighWatermarkReached();
  console.log(
    `3-voter quorum, 5000 records/s, ${LOAD_VIRTUAL_S} s virtual: ${ms.toFixed(0)} ms wall = ` +
      `${((LOAD_VIRTUAL_S * 1000) / ms).toFixed(0)}x real time (CPU ${cpu.toFixed(0)} ms: ` +
      `${((LOAD_VIRTUAL_S * 1000) / cpu).toFixed(0)}x); ${q.sim.eventCount.toLocaleString('en')} events, ` +
      `high watermark ${hw.toLocaleString('en')}`,
  );
  q.dispose();
}

// One measured run each (plus a warm-up for the short one): the figures are printed by the tasks themselves.
const ONCE = { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 };

describe('raft', () => {
  bench('property suite: all scenarios x 100 seeds', suite, ONCE);
  bench('3-voter quorum under 5000 records/s', steadyLoad, { ...ONCE, iterations: 3, warmupIterations: 1 });
});
