// Issue 9's benchmark: with an A2-like cluster (5 brokers, shared storage, 16 partitions, the perf producer at
// 5120 records/s of 1 KiB) served at --speed 10, GET topic describe from autocannon on loopback for 5 s.
// Target: at least 5,000 requests/s with p99 under 20 ms. The server runs as its own process (`kafkasim
// serve`), as a user runs it, so that the load generator does not share its event loop.
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { bench, describe } from 'vitest';
import { spawnKafkasim } from '../kafkasim-process.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  duration: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const TOPIC = 'continuous-self-balancing-topic';

async function startServe(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnKafkasim(
    ['serve', '--brokers', '5', '--storage', 'shared', '--speed', '10', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = / at (http:\/\/127\.0\.0\.1:\d+), speed/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, url };
}

async function run(): Promise<void> {
  const { child, url } = await startServe();
  try {
    const json = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const cid = ((await json('GET', '/v3/clusters')).data as { cluster_id: string }[])[0]!.cluster_id;
    await json('POST', `/v3/clusters/${cid}/topics`, { topic_name: TOPIC, partitions_count: 16 });
    await json('POST', '/sim/workloads', {
      kind: 'producer-perf',
      topic: TOPIC,
      num_records: 1_024_000,
      throughput: 5120,
      record_size: 1024,
    });
    const before = (await json('GET', '/sim/clock')) as { now_ms: number; events: number };
    const result = await autocannon({
      url: `${url}/v3/clusters/${cid}/topics/${TOPIC}`,
      connections: 10,
      duration: 5,
    });
    const after = (await json('GET', '/sim/clock')) as { now_ms: number; events: number; lagging: boolean };
    const virtualS = (after.now_ms - before.now_ms) / 1000;
    console.log(
      `GET topic describe under load (5 brokers, 16 partitions, perf producer 5120 rec/s, --speed 10): ` +
        `${result.requests.average.toFixed(0)} req/s average (${result.requests.total} in ${result.duration} s), ` +
        `latency avg ${result.latency.average.toFixed(2)} ms, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
        `max ${result.latency.max} ms; non-2xx ${result.non2xx}, errors ${result.errors}; the simulation ran ` +
        `${virtualS.toFixed(1)} virtual s (${(virtualS / result.duration).toFixed(1)}x), ${after.events - before.events} events` +
        `${after.lagging ? ' (lagging)' : ''}`,
    );
    const pass = result.requests.average >= 5000 && result.latency.p99 < 20 && result.non2xx === 0;
    console.log(`target (>= 5000 req/s, p99 < 20 ms): ${pass ? 'met' : 'NOT met'}`);
  } finally {
    child.kill('SIGTERM');
  }
}

describe('HTTP API', () => {
  bench('GET topic describe, 10 connections, 5 s, A2-like cluster at --speed 10', run, {
    iterations: 1,
    warmupIterations: 0,
    time: 0,
  });
});
