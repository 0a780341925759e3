// Scaling benchmark (issue 23): how wall time, events and memory grow with brokers and partitions.
//
// One cluster per process (so RSS is that cluster's): createCluster with kafka storage, one topic with RF 3,
// kafka-producer-perf-test at a rate (0 = idle), for a span of virtual time. Prints one JSON line.
//
//   node --import tsx scripts/scale-bench.ts --brokers 10 --partitions 1000 --rate 20000 --seconds 60
//     [--invariant-every N]   check the kernel's invariants every N events (default 1, as createCluster)
//     [--retention-ms N]      the topic's retention.ms (segments of N/4, retention checked every N/2): long runs
//                             stay flat; without it nothing is deleted within a run (Kafka's 7 days)
//   node --import tsx scripts/scale-bench.ts --matrix [--out docs/performance-scale.json] [--svg docs/scale.svg]
//     [--dist]       run the built package (dist/, what `npx kafkasim` runs; `npm run build` first) instead of the
//                    TypeScript sources through tsx (whose keepNames wraps every closure made in __name)
//     [--from FILE]  redraw --svg from an earlier --out instead of running the rows
//     [--max-partitions N] [--max-seconds S]   only rows up to N partitions; at most S virtual seconds a row
//     [--root DIR]   measure the checkout at DIR instead of this one (A/B: interleave runs of two checkouts)
//
// --matrix runs the issue's table (each row in a child process, one after the other) and, with --svg, draws
// wall/virtual and RSS against partitions. The machine is shared: compare A/B by interleaving runs, or count
// instructions (valgrind --tool=callgrind node --import tsx scripts/scale-bench.ts ...).

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { createCluster as CreateCluster } from '../src/cluster/index.ts';

let createCluster: typeof CreateCluster;

interface Row {
  brokers: number;
  partitions: number;
  rate: number;
  seconds: number;
  recordSize: number;
  /** Check the kernel's invariants every N events (createCluster's default is 1: after every event). */
  invariantEvery?: number;
  /**
   * The topic's retention.ms (segment.ms a quarter of it, the brokers' retention check every half of it), so that
   * a long run's logs stay bounded; 0: Kafka's defaults (7 days: nothing is deleted within a run).
   */
  retentionMs?: number;
}

interface Result extends Row {
  createMs: number;
  /** CPU time of the topic's creation (until every broker has it). */
  createCpuMs: number;
  wallMs: number;
  /** User + system CPU time of the run: steadier than wall time on a loaded machine. */
  cpuMs: number;
  timesRealTime: number;
  timesRealTimeCpu: number;
  events: number;
  nsPerEvent: number;
  rssMiB: number;
  heapMiB: number;
  completed: number;
}

function arg(args: string[], name: string, fallback: number): number {
  const i = args.lastIndexOf(`--${name}`); // the last one wins (scripts add defaults first)
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v < 0)
    throw new Error(`--${name} needs a non-negative number, not ${args[i + 1]}`);
  return v;
}

function runOne(row: Row): Result {
  const c = createCluster({
    seed: 23,
    brokers: row.brokers,
    storage: 'kafka',
    ...(row.invariantEvery ? { invariantEvery: row.invariantEvery } : {}),
    ...(row.retentionMs
      ? {
          brokerConfig: {
            'log.retention.check.interval.ms': Math.max(1000, Math.floor(row.retentionMs / 2)),
          },
        }
      : {}),
  });
  const t0 = performance.now();
  const createCpu0 = process.cpuUsage();
  c.admin.createTopic({
    name: 'scale',
    partitions: row.partitions,
    replicationFactor: 3,
    ...(row.retentionMs
      ? {
          configs: {
            'retention.ms': String(row.retentionMs),
            'segment.ms': String(Math.max(1, Math.floor(row.retentionMs / 4))),
          },
        }
      : {}),
  });
  // Until every broker has replayed the topic and every partition has a leader.
  c.runUntil(
    () => {
      for (const b of c.brokers.values()) if (!b.image.topics.scale) return false;
      return true;
    },
    { timeout: '60s', description: 'every broker knows the topic' },
  );
  const createMs = performance.now() - t0;
  const createCpu = process.cpuUsage(createCpu0);
  const startEvents = c.sim.eventCount;
  const startVirtual = c.now;
  const virtualMs = row.seconds * 1000;
  let report: { completed?: number } | undefined;
  const t1 = performance.now();
  const cpu0 = process.cpuUsage();
  if (row.rate > 0) {
    const r = c.producerPerfTest({
      topic: 'scale',
      numRecords: Math.round((row.rate * virtualMs) / 1000),
      throughput: row.rate,
      recordSize: row.recordSize,
    });
    report = r.workload;
  }
  c.sim.runFor(virtualMs);
  const wallMs = performance.now() - t1;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const events = c.sim.eventCount - startEvents;
  // With node --expose-gc the heap figure is what is live (after a full collection), not what is yet to be swept.
  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  return {
    ...row,
    createMs: Math.round(createMs),
    createCpuMs: Math.round((createCpu.user + createCpu.system) / 1000),
    wallMs: Math.round(wallMs),
    cpuMs: Math.round(cpuMs),
    timesRealTime: Number(((c.now - startVirtual) / wallMs).toFixed(1)),
    timesRealTimeCpu: Number(((c.now - startVirtual) / cpuMs).toFixed(1)),
    events,
    nsPerEvent: Math.round((cpuMs * 1e6) / Math.max(1, events)),
    rssMiB: Math.round(mem.rss / 1_048_576),
    heapMiB: Math.round(mem.heapUsed / 1_048_576),
    completed: report?.completed ?? 0,
  };
}

/** The issue's table, plus the 100k-partition target row. */
export const MATRIX: Row[] = [
  { brokers: 10, partitions: 1000, rate: 0, seconds: 60, recordSize: 512 },
  { brokers: 10, partitions: 1000, rate: 20_000, seconds: 60, recordSize: 512 },
  { brokers: 50, partitions: 10_000, rate: 0, seconds: 60, recordSize: 512 },
  { brokers: 50, partitions: 10_000, rate: 20_000, seconds: 60, recordSize: 512 },
  { brokers: 100, partitions: 30_000, rate: 20_000, seconds: 60, recordSize: 512 },
  { brokers: 100, partitions: 100_000, rate: 50_000, seconds: 600, recordSize: 512 },
];

function svg(results: Result[]): string {
  // Two panels: times real time (log scale) and RSS against partitions, one mark per row, labelled.
  const W = 960;
  const H = 300;
  const pad = 60;
  const xs = results.map((r) => Math.log10(r.partitions));
  // 1k to 100k partitions always (the issue's axis), wider if a row is outside.
  const xMin = Math.min(3, ...xs) - 0.2;
  const xMax = Math.max(5, ...xs) + 0.5;
  const x = (p: number) => pad + ((Math.log10(p) - xMin) / (xMax - xMin)) * (W / 2 - 1.5 * pad);
  // By CPU time: on a shared machine wall time measures the other processes too (on an idle one they agree).
  const speedOf = (r: Result) => r.timesRealTimeCpu;
  const speed = results.map((r) => Math.log10(Math.max(0.01, speedOf(r))));
  const sMin = Math.min(-1, ...speed);
  const sMax = Math.max(3, ...speed);
  const ySpeed = (v: number) =>
    H - pad - ((Math.log10(Math.max(0.01, v)) - sMin) / (sMax - sMin)) * (H - 2 * pad);
  const rMax = Math.max(...results.map((r) => r.rssMiB)) * 1.1;
  const yRss = (v: number) => H - pad - (v / rMax) * (H - 2 * pad);
  const off = W / 2;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    '<title>kafkasim: times real time (by CPU time) and RSS against partitions, per cluster size and load</title>',
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${pad}" y="20" font-size="13">times real time (by CPU, log) vs partitions</text>`,
    `<text x="${off + pad}" y="20" font-size="13">RSS (MiB) vs partitions</text>`,
    `<line x1="${pad}" y1="${H - pad}" x2="${W / 2 - pad / 2}" y2="${H - pad}" stroke="black"/>`,
    `<line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" stroke="black"/>`,
    `<line x1="${off + pad}" y1="${H - pad}" x2="${W - pad / 2}" y2="${H - pad}" stroke="black"/>`,
    `<line x1="${off + pad}" y1="${pad}" x2="${off + pad}" y2="${H - pad}" stroke="black"/>`,
  ];
  for (let e = Math.ceil(sMin); e <= sMax; e++) {
    const y = ySpeed(10 ** e);
    parts.push(`<text x="${pad - 6}" y="${y + 4}" text-anchor="end">${10 ** e}x</text>`);
    parts.push(`<line x1="${pad}" y1="${y}" x2="${W / 2 - pad / 2}" y2="${y}" stroke="#eee"/>`);
  }
  for (const p of [1000, 10_000, 100_000]) {
    parts.push(`<text x="${x(p)}" y="${H - pad + 16}" text-anchor="middle">${p / 1000}k</text>`);
    parts.push(`<text x="${off + x(p)}" y="${H - pad + 16}" text-anchor="middle">${p / 1000}k</text>`);
  }
  for (let v = 0; v <= rMax; v += Math.max(100, Math.round(rMax / 500) * 100)) {
    parts.push(`<text x="${off + pad - 6}" y="${yRss(v) + 4}" text-anchor="end">${v}</text>`);
  }
  for (const r of results) {
    const label = `${r.brokers} br, ${r.rate ? `${r.rate / 1000}k/s` : 'idle'}`;
    const color = r.rate ? '#c33' : '#36c';
    parts.push(`<circle cx="${x(r.partitions)}" cy="${ySpeed(speedOf(r))}" r="4" fill="${color}"/>`);
    parts.push(`<text x="${x(r.partitions) + 6}" y="${ySpeed(speedOf(r)) - 4}">${label}</text>`);
    parts.push(`<circle cx="${off + x(r.partitions)}" cy="${yRss(r.rssMiB)}" r="4" fill="${color}"/>`);
    parts.push(`<text x="${off + x(r.partitions) + 6}" y="${yRss(r.rssMiB) - 4}">${label}</text>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}

function stringArg(args: string[], name: string): string | undefined {
  const i = args.lastIndexOf(`--${name}`); // the last one wins (scripts add defaults first)
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value`);
  return v;
}

/** Loads createCluster from the checkout measured: its sources (through tsx) or its build (dist/). */
async function load(args: string[]): Promise<void> {
  const root = resolve(stringArg(args, 'root') ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const file = args.includes('--dist') ? 'dist/src/cluster/index.js' : 'src/cluster/index.ts';
  ({ createCluster } = (await import(pathToFileURL(join(root, file)).href)) as {
    createCluster: typeof CreateCluster;
  });
}

async function main(args: string[]): Promise<void> {
  if (args.includes('--matrix')) {
    const outI = args.indexOf('--out');
    const svgI = args.indexOf('--svg');
    const maxPartitions = arg(args, 'max-partitions', Number.POSITIVE_INFINITY);
    const maxSeconds = arg(args, 'max-seconds', Number.POSITIVE_INFINITY);
    const results: Result[] = [];
    const self = fileURLToPath(import.meta.url);
    const root = stringArg(args, 'root');
    const passOn = [...(args.includes('--dist') ? ['--dist'] : []), ...(root ? ['--root', root] : [])];
    const from = stringArg(args, 'from');
    for (const row of from ? [] : MATRIX) {
      if (row.partitions > maxPartitions) continue;
      const seconds = Math.min(row.seconds, maxSeconds);
      const out = execFileSync(
        process.execPath,
        [
          // 100,000 partitions need more than Node's default heap limit.
          ...(row.partitions >= 30_000 ? ['--max-old-space-size=8192'] : []),
          '--import',
          'tsx',
          self,
          ...['--brokers', `${row.brokers}`, '--partitions', `${row.partitions}`, '--rate', `${row.rate}`],
          ...['--seconds', `${seconds}`, '--record-size', `${row.recordSize}`],
          ...passOn,
        ],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
      );
      const line = out.trim().split('\n').pop()!;
      console.log(line);
      results.push(JSON.parse(line) as Result);
    }
    // --from FILE redraws the chart from an earlier run's --out instead of running the rows.
    if (from) results.push(...(JSON.parse(readFileSync(from, 'utf8')) as Result[]));
    if (outI >= 0 && !from) writeFileSync(args[outI + 1]!, `${JSON.stringify(results, null, 2)}\n`);
    if (svgI >= 0) writeFileSync(args[svgI + 1]!, svg(results));
    return;
  }
  const row: Row = {
    brokers: arg(args, 'brokers', 10),
    partitions: arg(args, 'partitions', 1000),
    rate: arg(args, 'rate', 20_000),
    seconds: arg(args, 'seconds', 60),
    recordSize: arg(args, 'record-size', 512),
    invariantEvery: arg(args, 'invariant-every', 1),
    retentionMs: arg(args, 'retention-ms', 0),
  };
  await load(args);
  console.log(JSON.stringify(runOne(row)));
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
