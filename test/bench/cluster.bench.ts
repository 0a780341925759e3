// Issue 3's benchmark: 1,024,000 records of 1 KiB at 5120/s to 16 partitions on 5 brokers (shared storage),
// about 200 s of virtual time. Target: at most 1 s of wall time and 300 MB peak memory on the 2-core machine.
import { bench, describe } from 'vitest';
import { createCluster } from '../../src/cluster/index.ts';

function run(): void {
  const c = createCluster({ seed: 11, brokers: 5, storage: 'shared' });
  c.admin.createTopic({ name: 'perf', partitions: 16 });
  const report = c.producerPerfTest({
    topic: 'perf',
    numRecords: 1_024_000,
    throughput: 5120,
    recordSize: 1024,
  });
  c.runUntil(() => report.summary !== undefined, { timeout: '260s', description: 'perf test done' });
  const rss = process.memoryUsage().rss / 1_048_576;
  console.log(
    `1,024,000 records: ${c.sim.eventCount} events, ${(c.now / 1000).toFixed(1)} s virtual, rss ${rss.toFixed(0)} MiB`,
  );
}

describe('cluster core', () => {
  bench('perf-test 1,024,000 x 1 KiB, 16 partitions, 5 brokers, shared', run, {
    iterations: 3,
    warmupIterations: 1,
  });
});
