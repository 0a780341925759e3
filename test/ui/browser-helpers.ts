// Helpers for the web UI's browser tests: a served simulation with the UI built, and Debian's Chromium through
// playwright-core with the same flags as the report tests.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { PacerOptions } from '../../src/api/pacer.ts';
import { type RunningServer, startServer } from '../../src/api/server.ts';
import type { WorldOptions } from '../../src/api/world.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
/** Screenshots for the README and docs/ui.md are written there when KAFKASIM_SCREENSHOTS=1. */
export const DOC_IMAGES = fileURLToPath(new URL('../../docs/img/', import.meta.url));

let built: Promise<unknown> | undefined;

/** Builds the UI into dist/ui once per test file (esbuild: a fraction of a second). */
export function buildUiOnce(): Promise<unknown> {
  const script = '../../scripts/build-ui.mjs';
  built ??= import(script).then((m: { buildUi: () => Promise<string> }) => m.buildUi());
  return built;
}

const SCENARIOS = new URL('../../scenarios/', import.meta.url);

/** A shipped scenario served as a lesson (what `kafkasim ui NAME` serves). */
export function lessonWorld(name: string): WorldOptions {
  return {
    scenario: {
      text: readFileSync(new URL(`${name}.yaml`, SCENARIOS), 'utf8'),
      name: `${name}.yaml`,
      baseDir: fileURLToPath(SCENARIOS),
    },
    lesson: true,
  };
}

export async function serve(
  world: WorldOptions,
  pacer: PacerOptions = { paused: true },
): Promise<RunningServer> {
  await buildUiOnce();
  return startServer({ world, pacer, port: 0, lakeCredentials: { user: 'lake', password: 'lake' } });
}

export async function launch(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'kafkasim-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the UI; collects console errors and page errors (each test expects none). */
export async function openUi(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => {
    // A stream aborted on purpose (a rewind reopens it) is not an error.
    if (!r.url().includes('/sim/trace/stream')) errors.push(`request failed: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector('#cluster-svg .node.broker').catch(async (e) => {
    // Say what the page had done, for the next time this is seen.
    const state = await page
      .evaluate(
        '({ polls: window.kafkasim?.polls, snapshot: window.kafkasim?.snapshot !== undefined, status: document.getElementById("status")?.textContent, hidden: document.hidden })',
      )
      .catch((x: unknown) => String(x));
    throw new Error(
      `${(e as Error).message}: page ${JSON.stringify(state)}, errors ${JSON.stringify(errors)}`,
    );
  });
  return { page, errors };
}

export async function json<T>(base: string, path: string, method = 'GET', body?: unknown): Promise<T> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : method === 'GET' ? {} : { body: '{}' }),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Waits until `check` holds in the page (polled), with a message naming what was awaited. */
export async function until(page: Page, what: string, check: () => Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}

/**
 * A full-page screenshot into test-artifacts/; one the documentation shows (`doc`) is also copied into docs/img/
 * with KAFKASIM_SCREENSHOTS=1, so the README's pictures are what the tests saw (docs/ui.md says how).
 */
export async function shot(page: Page, name: string, options: { doc?: boolean } = {}) {
  const file = join(ARTIFACTS, `ui-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (options.doc && process.env.KAFKASIM_SCREENSHOTS === '1') {
    mkdirSync(DOC_IMAGES, { recursive: true });
    copyFileSync(file, join(DOC_IMAGES, `ui-${name}.png`));
  }
}

/** A served 5-broker cluster (paused) with one 1,000-partition topic, `wide` (RF 3): the page's dense grid. */
export async function wideTopicServer(): Promise<{ server: RunningServer; cid: string }> {
  const server = await serve({ seed: 5, brokers: 5 });
  const cid = (await json<{ cluster_id: string }>(server.url, '/sim/snapshot')).cluster_id;
  await json(server.url, `/v3/clusters/${cid}/topics`, 'POST', {
    topic_name: 'wide',
    partitions_count: 1000,
    replication_factor: 3,
  });
  return { server, cid };
}

/** Moves partition `partition` of `wide` to a new replica set (a broker it lacked first) and runs 5 s. */
export async function moveWidePartition(
  server: RunningServer,
  cid: string,
  partition: number,
): Promise<void> {
  const p = (
    await json<{ metadata: { topics: Record<string, { partitions: { replicas: number[] }[] }> } }>(
      server.url,
      '/sim/snapshot',
    )
  ).metadata.topics.wide!.partitions[partition]!;
  const target = [0, 1, 2, 3, 4]
    .filter((b) => !p.replicas.includes(b))
    .concat(p.replicas)
    .slice(0, 3);
  await json(server.url, `/v3/clusters/${cid}/topics/-/partitions/-/reassignment`, 'POST', {
    version: 1,
    partitions: [{ topic: 'wide', partition, replicas: target }],
  });
  await json(server.url, '/sim/advance', 'POST', { duration: '5s' });
}

/** Crashes broker `broker`, runs `seconds`, restarts it, runs `seconds` again (virtual time). */
export async function crashCycle(server: RunningServer, broker: number, seconds = 10): Promise<void> {
  await json(server.url, '/sim/faults/crash-broker', 'POST', { broker_id: broker });
  await json(server.url, '/sim/advance', 'POST', { duration: `${seconds}s` });
  await json(server.url, '/sim/faults/restart-broker', 'POST', { broker_id: broker });
  await json(server.url, '/sim/advance', 'POST', { duration: `${seconds}s` });
}
