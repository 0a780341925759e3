// A test workload: a producer that sends `bytesPerSec` to one partition, in 1 KiB records every 100 ms, at a
// rate the test can change while the simulation runs.
import type { Cluster } from '../../../src/cluster/index.ts';

export interface SteadyLoad {
  bytesPerSec: number;
  stop(): void;
}

export function steadyLoad(
  c: Cluster,
  name: string,
  topic: string,
  partition: number,
  bytesPerSec: number,
): SteadyLoad {
  const producer = c.producer(name, { config: { 'client.id': name }, keepContent: false });
  const load: SteadyLoad = { bytesPerSec, stop: () => timer.cancel() };
  let carry = 0;
  const timer = producer.every(100, () => {
    carry += load.bytesPerSec / 10 / 1024;
    const n = Math.floor(carry);
    carry -= n;
    if (n > 0) producer.sendMany(topic, n, 1024, partition);
  });
  return load;
}
