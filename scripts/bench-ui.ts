// What the web UI costs the simulation (issue 15: "the UI adds at most 10% to the simulation's wall time at the
// same speed"). The same served world (5 AutoMQ brokers with the auto-balancer, 16 partitions, a producer at
// 10,000 records/s) is run from the same moment for the same virtual time at one speed, once with nobody
// watching and once with the page open in headless Chromium (reading the snapshot 4 times a second, twice at
// max, streaming the control plane's trace, animating), arms interleaved, several rounds. Reported per arm: the
// wall time to run, the server process's CPU time (the simulation plus the HTTP answers; Chromium is another
// process), the page's own CPU time (Chromium's processes, or the page-requests process), and how many distinct
// trace hashes the runs ended with. On a shared, loaded machine the wall time mostly says how much of a core the
// process was given: compare the CPU times. A third arm, "page requests", makes the page's requests (the
// snapshot as the page reads it, the branches every 2 s, the control plane's trace stream) from a small Node
// process that renders nothing: what the server pays for a page, without Chromium competing for the same cores.
//
// At a paced speed (e.g. 10) the question is the issue's own: does the page make the paced run take longer than its
// pace? At max it is what the page costs a run that takes all the CPU it is given.
//
// Run: node --import tsx scripts/bench-ui.ts [rounds=3] [virtualSeconds=300] [recordsPerSecond=10000] [speed=max]
// (needs /usr/bin/chromium; builds the UI first)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Speed } from '../src/api/pacer.ts';
import { startServer } from '../src/api/server.ts';
import { STREAM_KINDS } from '../ui/src/words.ts';

const rounds = Number(process.argv[2] ?? 3);
const virtualMs = Number(process.argv[3] ?? 300) * 1000;
const rate = Number(process.argv[4] ?? 10_000);
const speedArg = process.argv[5] ?? 'max';
const speed: Speed = speedArg === 'max' ? 'max' : Number(speedArg);
if (speed !== 'max' && !(speed > 0)) throw new Error(`speed: a positive number or max, not '${speedArg}'`);
/** An arm that has not run its virtual time after this long is reported as stalled (not waited for). */
const STALL_MS = 180_000;
/** Wall ms every arm waits, paused, between opening the page (or not) and the run. */
const SETTLE_MS = 2000;

const { buildUi } = (await import('./build-ui.mjs' as string)) as { buildUi: () => Promise<string> };
await buildUi();

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux everywhere). */
const TICKS_PER_S = 100;

/**
 * CPU seconds (user + system) of this process's descendants now running: Chromium's processes (browser,
 * renderer, GPU, utility) or the page-requests process. What the page itself costs the machine, beside what
 * it costs the server.
 */
function childrenCpuS(): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid ... utime(14) stime(15): comm may hold spaces and parentheses, so split after it.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(name), Number(f[1]));
    ticks.set(Number(name), Number(f[11]) + Number(f[12]));
  }
  let sum = 0;
  for (const [pid, t] of ticks) {
    let p = parent.get(pid);
    while (p !== undefined && p > 1 && p !== process.pid) p = parent.get(p);
    if (p === process.pid) sum += t;
  }
  return sum / TICKS_PER_S;
}

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

type Arm = 'without page' | 'with page' | 'page requests';
const ARMS: Arm[] = ['without page', 'with page', 'page requests'];

/**
 * The page's reads and its trace stream, from a separate Node process that draws nothing: the snapshot with the
 * ETag it has (304 while nothing moved), the next read 250 ms after one is answered (500 ms while it plays at
 * max), the branches every 2 s (ui/src/main.ts's polling).
 */
const PAGE_REQUESTS = `
const [base, kinds] = process.argv.slice(1);
fetch(base + '/sim/trace/stream?kind=' + encodeURIComponent(kinds)).then(async (r) => {
  const reader = r.body.getReader();
  for (;;) if ((await reader.read()).done) break;
}).catch(() => {});
let etag;
let snapshot;
let branchesAt = -Infinity;
let ready = false;
const poll = async () => {
  const r = await fetch(base + '/sim/snapshot', { headers: etag ? { 'if-none-match': etag } : {} });
  const text = await r.text();
  if (r.status === 200) {
    etag = r.headers.get('etag') ?? undefined;
    snapshot = JSON.parse(text);
  }
  if (performance.now() - branchesAt > 2000) {
    branchesAt = performance.now();
    JSON.parse(await (await fetch(base + '/sim/branches')).text());
  }
  if (!ready) {
    ready = true;
    process.stdout.write('ready\\n');
  }
};
const next = () => {
  const racing = snapshot?.clock.paused === false && snapshot.clock.speed === 'max';
  setTimeout(() => poll().catch(() => {}).then(next), racing ? 500 : 250);
};
poll().then(next);
`;

interface Result {
  arm: Arm;
  wallS: number;
  cpuS: number;
  /** CPU seconds the page's processes used during the run (Chromium's, or the page-requests process). */
  pageCpuS: number;
  hash: string;
  events: number;
  sent: number;
}

async function once(arm: Arm): Promise<Result> {
  const withPage = arm === 'with page';
  const server = await startServer({
    world: { seed: 1, brokers: 5, storage: 'shared', autobalancer: true },
    pacer: { paused: true, speed },
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
  const requests =
    arm === 'page requests'
      ? spawn(process.execPath, ['-e', PAGE_REQUESTS, base, STREAM_KINDS], {
          stdio: ['ignore', 'pipe', 'inherit'],
        })
      : undefined;
  if (requests)
    await new Promise((resolve, reject) => {
      requests.stdout.once('data', resolve);
      requests.once('exit', (code) =>
        reject(new Error(`the page-requests process exited (${code}) before its first poll`)),
      );
    });
  // Every arm waits SETTLE_MS before the run: the page measured is one that is open (as in a class, where it
  // is open before anyone presses play), not one still starting (its first second costs Chromium about 0.4 s of
  // CPU, more than a second of it running at 10x).
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  const page0 = childrenCpuS();
  await call(base, '/sim/resume', 'POST');
  for (;;) {
    // Polled from here too in both arms (the page's polls come on top of these).
    const now = server.host.sim.now;
    if (now >= start + virtualMs) break;
    if (performance.now() - wall0 > STALL_MS) {
      // Say where it stopped rather than wait for ever (one such run was seen on the loaded machine).
      const clock = await call<Record<string, unknown>>(base, '/sim/clock');
      requests?.kill('SIGKILL');
      await browser?.close();
      throw new Error(
        `${arm}: the simulation did not reach ${virtualMs} ms in ${STALL_MS / 1000} s of wall time: ` +
          `virtual ${now - start} ms, clock ${JSON.stringify(clock)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const wallS = (performance.now() - wall0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pageCpuS = childrenCpuS() - page0;
  await call(base, '/sim/pause', 'POST');
  const snap = await call<{ events: number; workloads: { stats: { sent?: number } }[] }>(
    base,
    '/sim/snapshot',
  );
  await browser?.close();
  if (requests) {
    if (requests.exitCode === null && requests.signalCode === null) {
      const exited = new Promise((r) => requests.once('exit', r));
      requests.kill('SIGTERM');
      await exited;
    }
  }
  await server.close();
  return {
    arm,
    wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    pageCpuS,
    hash: server.host.sim.trace.hash,
    events: snap.events,
    sent: snap.workloads[0]?.stats.sent ?? 0,
  };
}

// One run of each arm first, not counted: the JIT warms up on the first world built.
for (const arm of ARMS) await once(arm);
const results: Result[] = [];
for (let r = 0; r < rounds; r++) {
  // Interleaved, rotating which arm goes first.
  for (let i = 0; i < ARMS.length; i++) {
    const x = await once(ARMS[(r + i) % ARMS.length]!);
    results.push(x);
    console.log(
      `round ${r + 1} ${x.arm.padEnd(13)} wall ${x.wallS.toFixed(2)} s  server CPU ${x.cpuS.toFixed(2)} s  ` +
        `page CPU ${x.pageCpuS.toFixed(2)} s  ` +
        `(${x.events} events, ${x.sent} records sent)`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const of = (arm: Arm) => results.filter((x) => x.arm === arm);
const wall = (arm: Arm) => median(of(arm).map((x) => x.wallS));
const cpu = (arm: Arm) => median(of(arm).map((x) => x.cpuS));
const pageCpu = (arm: Arm) => median(of(arm).map((x) => x.pageCpuS));
console.log(`\n${virtualMs / 1000} s virtual at speed ${speed}, ${rounds} rounds, medians:`);
for (const arm of ARMS)
  console.log(
    `  ${arm.padEnd(13)} wall ${wall(arm).toFixed(2)} s  server CPU ${cpu(arm).toFixed(2)} s` +
      `  page CPU ${pageCpu(arm).toFixed(2)} s` +
      (arm === 'without page'
        ? ''
        : `  (x${(wall(arm) / wall('without page')).toFixed(3)} wall, x${(cpu(arm) / cpu('without page')).toFixed(3)} CPU)`),
  );
// Pacing at max stops at slice boundaries decided by wall time, so the two arms may end a few events apart;
// the hashes are printed for the record.
console.log(
  `  trace hashes: ${[...new Set(results.map((x) => x.hash))].length} distinct of ${results.length} runs`,
);
process.exit(0);
