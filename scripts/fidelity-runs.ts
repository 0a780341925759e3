// The runs behind the distributions in docs/fidelity.md (issue 17): the partition-expansion scenarios over 50
// seeds, from the command typed and from the request reaching the controller to the complete new assignment,
// and group-partition-expansion swept over topic.metadata.refresh.interval.ms. Writes every run's values to
// docs/fidelity-runs.json and prints the tables docs/fidelity.md shows; test/docs/fidelity-doc.test.ts checks
// that the document's numbers are those of the JSON and that the JSON's first seeds replay.
//
//   node --import tsx scripts/fidelity-runs.ts [--seeds 50] [--sweep-seeds 20] [--out docs/fidelity-runs.json]
//   node --import tsx scripts/fidelity-runs.ts --workflow-a    (workflow A's tables only, computed afresh)
//   node --import tsx scripts/fidelity-runs.ts --sources       (workflow B's and KAFKA-10533's tables, afresh)
//   node --import tsx scripts/fidelity-runs.ts --raft          (the Raft test server's table, afresh; seconds)
//
// Deterministic: the same command writes the same file (the runs are virtual time; nothing depends on the
// machine). 8.5 minutes wall on the loaded project machine (80 s of CPU), most of it the ingest scenario.

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrokerConfig } from '../models/broker/index.ts';
import type { QuorumConfig } from '../models/raft/index.ts';
import { RaftTestServerCluster } from '../src/cluster/raft-test-server.ts';
import { runScenarioAsync, type ScenarioResult, shippedScenarioFile } from '../src/scenario/index.ts';
import { workflowA } from '../test/models/balancer/workflow-a.ts';

export interface Series {
  scenario: string;
  set: string[];
  seeds: number[];
  /** Per metric, one value per seed (ms; null when the run had none). */
  values: Record<string, (number | null)[]>;
}

export interface FidelityRuns {
  expansions: Series[];
  refreshSweep: { key: string; values: number[]; series: Series[] };
}

/** The two expansions and their metric names: from the command typed, from the request applied. */
export const EXPANSIONS = [
  { scenario: 'group-partition-expansion', typed: 'typedToAssignedMs', applied: 'appliedToAssignedMs' },
  { scenario: 'bend-ingest-partition-expansion', typed: 'alterToCoveredMs', applied: 'appliedToCoveredMs' },
] as const;

export const REFRESH_KEY = 'topic.metadata.refresh.interval.ms';
export const REFRESH_VALUES = [1000, 5000, 10_000, 30_000];

export function refreshSet(ms: number): string[] {
  return [`clients.groups.0.config["${REFRESH_KEY}"]=${ms}`];
}

/** One run of a shipped scenario. */
export async function runScenario(
  scenario: string,
  seed: number,
  set: readonly string[] = [],
): Promise<ScenarioResult> {
  return runScenarioAsync(shippedScenarioFile(scenario) ?? scenario, { seed, set });
}

/** One run's metrics. */
export async function runOnce(
  scenario: string,
  seed: number,
  set: readonly string[],
): Promise<Record<string, number | null>> {
  const r = await runScenario(scenario, seed, set);
  // A failed expectation (e.g. the 9 s bound with a longer refresh interval) is data; a run that stopped is not.
  if (r.error) throw new Error(`${scenario} seed ${seed} ${set.join(' ')} stopped: ${r.error}`);
  return r.metrics as Record<string, number | null>;
}

export async function series(
  scenario: string,
  metrics: readonly string[],
  seeds: number[],
  set: string[] = [],
): Promise<Series> {
  const values: Record<string, (number | null)[]> = Object.fromEntries(metrics.map((m) => [m, []]));
  for (const seed of seeds) {
    const got = await runOnce(scenario, seed, set);
    for (const m of metrics) values[m]!.push(got[m] ?? null);
  }
  return { scenario, set, seeds, values };
}

export interface Distribution {
  n: number;
  min: number;
  median: number;
  p95: number;
  max: number;
}

/** min, median (mean of the middle two for an even count), p95 (nearest rank: the ceil(0.95 n)-th), max. */
export function distribution(values: readonly (number | null)[]): Distribution {
  const xs = values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
  if (xs.length === 0) throw new Error('no values');
  const mid = xs.length >> 1;
  const median = xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
  return {
    n: xs.length,
    min: xs[0]!,
    median,
    p95: xs[Math.ceil(0.95 * xs.length) - 1]!,
    max: xs[xs.length - 1]!,
  };
}

/** Seconds with two decimals, as the document prints them. */
export const sec = (ms: number): string => (ms / 1000).toFixed(2);

export function distributionRow(label: string, d: Distribution): string {
  return `| ${label} | ${d.n} | ${sec(d.min)} | ${sec(d.median)} | ${sec(d.p95)} | ${sec(d.max)} |`;
}

/** The tables docs/fidelity.md shows, from the runs. */
export function tables(runs: FidelityRuns): { expansions: string[]; sweep: string[] } {
  const expansions: string[] = [];
  for (const e of EXPANSIONS) {
    const s = runs.expansions.find((x) => x.scenario === e.scenario)!;
    expansions.push(distributionRow(`\`${e.scenario}\`, command typed`, distribution(s.values[e.typed]!)));
    expansions.push(
      distributionRow(`\`${e.scenario}\`, request applied`, distribution(s.values[e.applied]!)),
    );
  }
  const sweep = runs.refreshSweep.series.map((s, i) =>
    distributionRow(
      `${runs.refreshSweep.values[i]} ms, request applied`,
      distribution(s.values.appliedToAssignedMs!),
    ),
  );
  return { expansions, sweep };
}

/** How a move looks to workflow A's producer: the perf tool's windows that contain a batch of moves. */
export interface MoveShape {
  /** Highest `max latency` of a window with a move (ms). */
  maxLatencyMs: number;
  /** Lowest records/sec of a window with a move. */
  minRecordsPerSec: number;
  /** NOT_LEADER_OR_FOLLOWER WARN pairs (the "Got error produce response" line and its metadata line). */
  warnPairs: number;
  /** The longest burst: first to last retry after one batch of moves (ms). */
  longestBurstMs: number;
  /** Windows without a move: the median of their `avg latency` and of their `max latency` (ms). */
  quietAvgLatencyMs: number;
  quietMaxLatencyMs: number;
}

const median = (xs: readonly number[]): number => distribution(xs).median;

export function workflowAShape(
  variant: 'A1' | 'A2',
  seed = 1,
  brokerConfig?: Partial<BrokerConfig>,
): MoveShape {
  const w = workflowA(variant, { seed, ...(brokerConfig ? { brokerConfig } : {}) });
  const c = w.cluster;
  c.runUntil(() => w.report.summary !== undefined, { timeout: '300s', description: 'perf test done' });
  const batches = c.balancer!.history.flatMap((r) => r.batches.map((b) => b.time));
  let start = w.producerStart;
  const moving: { maxLatencyMs: number; recordsPerSec: number }[] = [];
  const quiet: { avgLatencyMs: number; maxLatencyMs: number }[] = [];
  for (const win of w.report.windows) {
    if (batches.some((b) => b > start && b <= win.time)) moving.push(win);
    else quiet.push(win);
    start = win.time;
  }
  const bursts = batches.map((b, i) => {
    const next = batches[i + 1] ?? Number.POSITIVE_INFINITY;
    const mine = w.retries.filter((t) => t >= b && t < next);
    return mine.length ? mine.at(-1)! - mine[0]! : 0;
  });
  return {
    maxLatencyMs: Math.max(...moving.map((m) => m.maxLatencyMs)),
    minRecordsPerSec: Math.min(...moving.map((m) => m.recordsPerSec)),
    warnPairs: c.output.filter(
      (l) =>
        l.includes('WARN [Producer') &&
        l.includes('Got error produce response') &&
        l.includes('NOT_LEADER_OR_FOLLOWER'),
    ).length,
    longestBurstMs: Math.max(...bursts),
    quietAvgLatencyMs: median(quiet.map((q) => q.avgLatencyMs)),
    quietMaxLatencyMs: median(quiet.map((q) => q.maxLatencyMs)),
  };
}

/** Workflow A's table: the source document's figures beside the simulated ones (seed 1). */
export function workflowATable(a1: MoveShape, a2: MoveShape): string[] {
  return [
    '| figure | real A1 | simulated A1 | real A2 | simulated A2 |',
    '| --- | --- | --- | --- | --- |',
    `| max latency of a 5 s window with a move (ms) | 41-80 | ${a1.maxLatencyMs} | 43 | ${a2.maxLatencyMs} |`,
    `| NOT_LEADER_OR_FOLLOWER WARN pairs | 13 | ${a1.warnPairs} | 10 | ${a2.warnPairs} |`,
    `| longest burst of WARN pairs after one batch of moves (ms) | about 40 | ${a1.longestBurstMs.toFixed(1)} | about 40 | ${a2.longestBurstMs.toFixed(1)} |`,
    `| lowest throughput of a window with a move (records/s; the document: one window, variant not said) | 3425.1 | ${a1.minRecordsPerSec.toFixed(1)} | 3425.1 | ${a2.minRecordsPerSec.toFixed(1)} |`,
  ];
}

/** The experiment: workflow A1 with AutoMQ's WAL write in the produce path (append latency 6 ms, not 1). */
export const WAL_EXPERIMENT: Partial<BrokerConfig> = { 'kafkasim.broker.append.latency.ms': 6 };

/**
 * The second experiment: a hand-over faster than the producer's first metadata round trip after its first
 * NOT_LEADER_OR_FOLLOWER (`kafkasim.shared.partition.close.ms` and `open.ms` 1 instead of 10).
 */
export const FAST_HANDOVER: Partial<BrokerConfig> = {
  'kafkasim.shared.partition.close.ms': 1,
  'kafkasim.shared.partition.open.ms': 1,
};

/** A1 with the defaults beside A1 with each experiment, and the document's figures. */
export function walExperimentTable(a1: MoveShape, wal: MoveShape, fast: MoveShape): string[] {
  const row = (figure: string, real: string, f: (s: MoveShape) => string) =>
    `| ${figure} | ${real} | ${f(a1)} | ${f(wal)} | ${f(fast)} |`;
  return [
    '| figure (A1, seed 1) | real | simulated, defaults (append 1 ms, close/open 10 ms) | append 6 ms | close/open 1 ms |',
    '| --- | --- | --- | --- | --- |',
    row('avg latency of a window without a move (ms; median over those windows)', '15.7', (s) =>
      s.quietAvgLatencyMs.toFixed(1),
    ),
    row('max latency of a window without a move (ms; median over those windows)', '41', (s) =>
      String(s.quietMaxLatencyMs),
    ),
    row('max latency of a 5 s window with a move (ms)', '41-80', (s) => String(s.maxLatencyMs)),
    row('NOT_LEADER_OR_FOLLOWER WARN pairs', '13', (s) => String(s.warnPairs)),
    row('longest burst of WARN pairs after one batch of moves (ms)', 'about 40', (s) =>
      s.longestBurstMs.toFixed(1),
    ),
  ];
}

/** What a shipped scenario's expectation measured, by its name (throws if the scenario has no such expectation). */
function measured(r: ScenarioResult, name: string): unknown {
  const e = r.expectations.find((x) => x.name === name);
  if (!e) throw new Error(`${r.scenario} has no expectation named '${name}'`);
  return e.actual;
}

const cells = (rows: unknown): string =>
  (rows as unknown[][]).map((row) => row.map(String).join(', ')).join('; ');

/** Workflow B: the bend-ingest guide's figures beside a run of bend-ingest-partition-expansion. */
export function workflowBTable(r: ScenarioResult): string[] {
  const perWorker = measured(r, 'about 2 partitions per worker') as [
    { minPerWorker: number },
    { maxPerWorker: number },
  ];
  const perPartition = (measured(r, 'per partition: 16250 rows on 0 and 1, 11250 on 2-7') as unknown[][]).map(
    (row) => `${row[0]}: ${row[1]}`,
  );
  const lag = measured(r, 'lag 0 on partitions 0-7') as { lag: number };
  const rows = measured(r, 'bend_ingest_kafka_ingest_rows_total 100000') as { rowsTotal: number };
  const errors = measured(r, 'bend_ingest_kafka_ingest_errors_total 0') as { errorsTotal: number };
  return [
    `| figure | real (the guide) | simulated (seed ${r.seed}) |`,
    '| --- | --- | --- |',
    `| alter -> new assignment covers partitions 0-7 | within 30 s | ${sec(r.metrics.alterToCoveredMs!)} s |`,
    `| partitions per worker after the expansion | about 2 | ${perWorker[0].minPerWorker} to ${perWorker[1].maxPerWorker} |`,
    `| total_rows, distinct_sequences, min_sequence, max_sequence | 100000, 100000, 0, 99999 | ${cells(measured(r, 'totals: 100000 rows, 100000 distinct sequences, min 0, max 99999 (no loss, no duplicates)'))} |`,
    `| rows per partition | 0: 16250, 1: 16250, 2-7: 11250 each | ${perPartition.join(', ')} |`,
    `| lag on partitions 0-7 | 0 | ${lag.lag} |`,
    `| bend_ingest_kafka_ingest_rows_total, ingest_errors_total | 100000, 0 | ${rows.rowsTotal}, ${errors.errorsTotal} |`,
  ];
}

export const KRAFT_FLUSH_OFF = ['cluster.configs.kafkasim.raft.flush.enable=false'];

/** KAFKA-10533: kraft-flush with the flush guarantees (the default) and without them. */
export function kraftFlushTable(on: ScenarioResult, off: ScenarioResult): string[] {
  const invariant = (r: ScenarioResult) =>
    r.error ? `${/invariant (\w+) violated/.exec(r.error)?.[1] ?? r.error} violated` : 'all held';
  const counter = (r: ScenarioResult) =>
    `${r.metrics['counter.acknowledged']} acknowledged, ${r.metrics['counter.committed']} committed`;
  return [
    '| figure | real (KAFKA-10533) | simulated, flush on (default) | simulated, flush off |',
    '| --- | --- | --- | --- |',
    `| Raft invariants through leader kills and a power loss (seed ${on.seed}) | hold with the flush calls; MonotonicHighWatermark fails without them | ${invariant(on)} | ${invariant(off)} |`,
    `| the append counter when the run ends or stops | every acknowledged record kept | ${counter(on)} | ${counter(off)} |`,
  ];
}

/** `raft-quorum-N.properties` as the Raft module's README writes them (`zookeeper.connect` included). */
export function raftQuorumProperties(n: number, voters: number): { file: string; text: string } {
  const list = Array.from({ length: voters }, (_, i) => `${i + 1}@localhost:${9092 + i}`).join(',');
  return {
    file: `config/raft-quorum-${n}.properties`,
    text: `broker.id=${n}\nlisteners=PLAINTEXT://localhost:${9091 + n}\nquorum.voters=${list}\nlog.dirs=/tmp/raft-logs-${n}\n\nzookeeper.connect=localhost:2181\n`,
  };
}

/**
 * The disks of the Raft test server runs (the README gives no latency): an SSD's fsync (1 ms, assumed) and a
 * 7200 rpm disk's (10 ms: a revolution takes 60/7200 s = 8.3 ms, plus the seek); the page-cache append 0.05 ms.
 */
export const RAFT_DISKS = {
  'SSD (fsync 1 ms)': { 'kafkasim.raft.append.ms': 0.05, 'kafkasim.raft.fsync.ms': 1 },
  '7200 rpm disk (fsync 10 ms)': { 'kafkasim.raft.append.ms': 0.05, 'kafkasim.raft.fsync.ms': 10 },
} as const satisfies Record<string, Partial<QuorumConfig>>;

/** A quorum of `voters` test servers from the README's properties, started until one leads. */
export function raftTestServer(
  voters: number,
  config: Partial<QuorumConfig>,
  seed = 1,
): RaftTestServerCluster {
  const c = new RaftTestServerCluster({
    seed,
    properties: Array.from({ length: voters }, (_, i) => raftQuorumProperties(i + 1, voters)),
    quorumConfig: config,
  });
  c.start();
  return c;
}

/** The README's workflow on one quorum: the VerifiableProducer (2000 at 1/s), then the perf test's final line. */
export function raftTestServerRun(
  voters: number,
  config: Partial<QuorumConfig>,
): { acked: number; avgThroughput: number; perfLine: string } {
  const c = raftTestServer(voters, config);
  const v = c.verifiableProducer({
    bootstrapServer: 'http://localhost:9092',
    maxMessages: 2000,
    throughput: 1,
  });
  c.sim.runUntil(() => v.done, { timeout: '2100s', description: 'the VerifiableProducer done' });
  const tool = JSON.parse(v.lines.at(-1)!) as { acked: number; avg_throughput: number };
  const r = c.producerPerfTest({
    bootstrapServer: 'localhost:9092',
    numRecords: 2000,
    throughput: -1,
    recordSize: 10,
  });
  c.sim.runUntil(() => r.summary !== undefined, { timeout: '60s', description: 'the perf test done' });
  return { acked: tool.acked, avgThroughput: tool.avg_throughput, perfLine: r.summary! };
}

/** The Raft test server's table: the README's two tools over each disk, flush on and off, 3 voters and 1. */
export function raftTestServerTable(): string[] {
  const rows: string[] = [];
  const perf = (line: string) => {
    const m = /records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), ([\d.]+) ms avg latency/.exec(line)!;
    return `${Number(m[1]).toFixed(0)} | ${m[2]}`;
  };
  for (const [disk, config] of Object.entries(RAFT_DISKS)) {
    for (const [voters, flush] of [
      [3, true],
      [3, false],
      [1, true],
    ] as const) {
      const r = raftTestServerRun(voters, { ...config, 'kafkasim.raft.flush.enable': flush });
      rows.push(
        `| ${disk}, ${voters} voter${voters > 1 ? 's' : ''}, flush ${flush ? 'on' : 'off'} | ${r.acked} | ${r.avgThroughput.toFixed(3)} | ${perf(r.perfLine)} |`,
      );
    }
  }
  return [
    '| quorum | VerifiableProducer acked (of 2000) | its avg_throughput (1/s asked) | perf test records/sec | perf test avg latency (ms) |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ];
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1]! : fallback;
  };
  if (process.argv.includes('--workflow-a')) {
    const a1 = workflowAShape('A1');
    console.log(workflowATable(a1, workflowAShape('A2')).join('\n'));
    console.log();
    console.log(
      walExperimentTable(
        a1,
        workflowAShape('A1', 1, WAL_EXPERIMENT),
        workflowAShape('A1', 1, FAST_HANDOVER),
      ).join('\n'),
    );
    return;
  }
  if (process.argv.includes('--raft')) {
    console.log(raftTestServerTable().join('\n'));
    return;
  }
  if (process.argv.includes('--sources')) {
    console.log(workflowBTable(await runScenario('bend-ingest-partition-expansion', 1)).join('\n'));
    console.log();
    const on = await runScenario('kraft-flush', 1);
    console.log(kraftFlushTable(on, await runScenario('kraft-flush', 1, KRAFT_FLUSH_OFF)).join('\n'));
    return;
  }
  const seeds = Array.from({ length: Number(arg('--seeds', '50')) }, (_, i) => i + 1);
  const sweepSeeds = Array.from({ length: Number(arg('--sweep-seeds', '20')) }, (_, i) => i + 1);
  const out = arg('--out', 'docs/fidelity-runs.json');
  const expansions: Series[] = [];
  for (const e of EXPANSIONS) expansions.push(await series(e.scenario, [e.typed, e.applied], seeds));
  const sweep: Series[] = [];
  for (const ms of REFRESH_VALUES)
    sweep.push(
      await series(
        'group-partition-expansion',
        ['typedToAssignedMs', 'appliedToAssignedMs'],
        sweepSeeds,
        refreshSet(ms),
      ),
    );
  const runs: FidelityRuns = {
    expansions,
    refreshSweep: { key: REFRESH_KEY, values: REFRESH_VALUES, series: sweep },
  };
  writeFileSync(out, `${JSON.stringify(runs)}\n`);
  spawnSync('npx', ['biome', 'format', '--write', out], { stdio: 'inherit' });
  const t = tables(runs);
  console.log(
    [
      '| run | seeds | min (s) | median (s) | p95 (s) | max (s) |',
      '| --- | --- | --- | --- | --- | --- |',
      ...t.expansions,
    ].join('\n'),
  );
  console.log();
  console.log(
    [
      `| ${REFRESH_KEY} | seeds | min (s) | median (s) | p95 (s) | max (s) |`,
      '| --- | --- | --- | --- | --- | --- |',
      ...t.sweep,
    ].join('\n'),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
