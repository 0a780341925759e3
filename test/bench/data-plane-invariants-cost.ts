// What the data-plane invariants cost: the same runs with and without them, interleaved (A, B, A, B, ...) so both
// see the same machine load, timed in process CPU time. Run it:
//   npx tsx test/bench/data-plane-invariants-cost.ts [rounds=5]
// It prints the median and the best CPU time of each workload with the invariants on and off, and the overhead
// (on a loaded machine the best of many rounds is the steadier figure).
import { createCluster } from '../../src/cluster/index.ts';
import { runScenario, SCENARIOS_DIR } from '../../src/scenario/index.ts';

/** The cluster bench's workload (issue 3), shortened: 256,000 records of 1 KiB into 16 partitions, shared storage. */
function perfShared(dataPlaneInvariants: boolean): number {
  const c = createCluster({ seed: 11, brokers: 5, storage: 'shared', dataPlaneInvariants });
  c.admin.createTopic({ name: 'perf', partitions: 16 });
  const report = c.producerPerfTest({
    topic: 'perf',
    numRecords: 256_000,
    throughput: 5120,
    recordSize: 1024,
  });
  c.runUntil(() => report.summary !== undefined, { timeout: '260s', description: 'perf test done' });
  return c.sim.eventCount;
}

/** A shipped kafka-storage scenario (RF 3, a broker failure, acks=all), as the scenario tests run it. */
function scenario(file: string) {
  return (dataPlaneInvariants: boolean): number => {
    const r = runScenario(`${SCENARIOS_DIR}${file}`, {
      onCluster: (c) => {
        if (!dataPlaneInvariants) c.dataPlane?.remove();
      },
    });
    if (!r.passed) throw new Error(`${file} failed`);
    return r.events;
  };
}

const workloads: [string, (on: boolean) => number][] = [
  ['perf-test 256,000 x 1 KiB, 16 partitions, shared', perfShared],
  ['scenario broker-failure-rf3', scenario('broker-failure-rf3.yaml')],
  ['scenario whatif-partitions', scenario('whatif-partitions.yaml')],
];

function cpuMs(fn: () => number): { ms: number; events: number } {
  const start = process.cpuUsage();
  const events = fn();
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000, events };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const min = (xs: number[]): number => Math.min(...xs);

const rounds = Number(process.argv[2] ?? 5);
for (const [name, run] of workloads) {
  run(true); // warm up the JIT
  run(false);
  const on: number[] = [];
  const off: number[] = [];
  let events = 0;
  for (let i = 0; i < rounds; i++) {
    on.push(cpuMs(() => run(true)).ms);
    const b = cpuMs(() => run(false));
    off.push(b.ms);
    events = b.events;
  }
  const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)}%`;
  console.log(
    `${name}: ${events.toLocaleString('en-US')} events; CPU ms with the invariants / without: ` +
      `median ${median(on).toFixed(0)} / ${median(off).toFixed(0)} (${pct(median(on), median(off))}), ` +
      `best ${min(on).toFixed(0)} / ${min(off).toFixed(0)} (${pct(min(on), min(off))}) over ${rounds} rounds`,
  );
}
