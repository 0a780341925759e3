// What the web UI costs the simulation (issue 15: "the UI adds at most 10% to the simulation's wall time at the
// same speed"). The same served world (5 AutoMQ brokers with the auto-balancer, 16 partitions, a producer at
// 10,000 records/s) is run from the same moment for the same virtual time at speed max, once with nobody watching
// and once with the page open in headless Chromium (polling the snapshot 4 times a second, streaming the control
// plane's trace, animating), arms interleaved, several rounds. Reported per arm: the wall time to run, the server
// process's CPU time (the simulation plus the HTTP answers; Chromium is another process), and how many distinct
// trace hashes the runs ended with. On a shared, loaded machine the wall time mostly says how much of a core the
// process was given: compare the CPU times.
//
// Run: node --import tsx scripts/bench-ui.ts [rounds=3] [virtualSeconds=300] [recordsPerSecond=10000]
// (needs /usr/bin/chromium; builds the UI first)
import { chromium } from 'playwright-core';
import { startServer } from '../src/api/server.ts';

const rounds = Number(process.argv[2] ?? 3);
const virtualMs = Number(process.argv[3] ?? 300) * 1000;
const rate = Number(process.argv[4] ?? 10_000);

const { buildUi } = (await import('./build-ui.mjs' as string)) as { buildUi: () => Promise<string> };
await buildUi();

async function call<T>(base: string, path: string, method = 'GET', body?: unknown): Promise<T> {
  const r = await fetch(`${base}${path}`, {
    method,
    ...(method === 'GET'
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

interface Result {
  arm: 'without page' | 'with page';
  wallS: number;
  cpuS: number;
  hash: string;
  events: number;
  sent: number;
}

async function once(withPage: boolean): Promise<Result> {
  const server = await startServer({
    world: { seed: 1, brokers: 5, storage: 'shared', autobalancer: true },
    pacer: { paused: true, speed: 'max' },
    port: 0,
  });
  const base = server.url;
  const { cluster_id } = await call<{ cluster_id: string }>(base, '/sim/snapshot');
  await call(base, `/v3/clusters/${cluster_id}/topics`, 'POST', {
    topic_name: 'bench',
    partitions_count: 16,
    replication_factor: 1,
  });
  await call(base, '/sim/workloads', 'POST', { kind: 'producer', topic: 'bench', rate });
  const start = (await call<{ clock: { now_ms: number } }>(base, '/sim/snapshot')).clock.now_ms;
  const browser = withPage
    ? await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] })
    : undefined;
  if (browser) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${base}/`);
    await page.waitForSelector('.cell[data-tp="bench-15"]');
  }
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  await call(base, '/sim/resume', 'POST');
  for (;;) {
    // Polled from here too in both arms (the page's polls come on top of these).
    const now = server.host.sim.now;
    if (now >= start + virtualMs) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const wallS = (performance.now() - wall0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await call(base, '/sim/pause', 'POST');
  const snap = await call<{ events: number; workloads: { stats: { sent?: number } }[] }>(
    base,
    '/sim/snapshot',
  );
  await browser?.close();
  await server.close();
  return {
    arm: withPage ? 'with page' : 'without page',
    wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    hash: server.host.sim.trace.hash,
    events: snap.events,
    sent: snap.workloads[0]?.stats.sent ?? 0,
  };
}

// One run of each arm first, not counted: the JIT warms up on the first world built.
await once(false);
await once(true);
const results: Result[] = [];
for (let r = 0; r < rounds; r++) {
  // Interleaved, alternating which arm goes first.
  for (const withPage of r % 2 === 0 ? [false, true] : [true, false]) {
    const x = await once(withPage);
    results.push(x);
    console.log(
      `round ${r + 1} ${x.arm.padEnd(12)} wall ${x.wallS.toFixed(2)} s  server CPU ${x.cpuS.toFixed(2)} s  ` +
        `(${x.events} events, ${x.sent} records sent)`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const of = (arm: Result['arm']) => results.filter((x) => x.arm === arm);
const a = of('without page');
const b = of('with page');
console.log(
  `\n${virtualMs / 1000} s virtual at speed max, ${rounds} rounds, medians:\n` +
    `  without page  wall ${median(a.map((x) => x.wallS)).toFixed(2)} s  server CPU ${median(a.map((x) => x.cpuS)).toFixed(2)} s\n` +
    `  with page     wall ${median(b.map((x) => x.wallS)).toFixed(2)} s  server CPU ${median(b.map((x) => x.cpuS)).toFixed(2)} s\n` +
    `  page / none   wall x${(median(b.map((x) => x.wallS)) / median(a.map((x) => x.wallS))).toFixed(3)}  ` +
    `server CPU x${(median(b.map((x) => x.cpuS)) / median(a.map((x) => x.cpuS))).toFixed(3)}`,
);
// Pacing at max stops at slice boundaries decided by wall time, so the two arms may end a few events apart;
// the hashes are printed for the record.
console.log(
  `  trace hashes: ${[...new Set(results.map((x) => x.hash))].length} distinct of ${results.length} runs`,
);
process.exit(0);
