// Reports in a real browser: Debian's Chromium driven by playwright-core opens each report from disk (no network),
// every chart must have drawn its data (series with points, pixels on the canvas), tooltips must work, the page
// must log no errors, and a full-page screenshot goes to test-artifacts/. Skipped only when Chromium is absent
// (CI installs it).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunRecorder, runReportHtml, sweepReportHtml } from '../../src/report/index.ts';
import { runScenario, type ScenarioResult } from '../../src/scenario/index.ts';
import {
  cellsOf,
  finishCell,
  parseGrid,
  runCell,
  SWEEP_FORMAT,
  type SweepDocument,
} from '../../src/sweep/index.ts';
import { richRecording } from './synthetic.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const MODELS = fileURLToPath(new URL('./fixtures/report-models.yaml', import.meta.url));
const TINY = fileURLToPath(new URL('../sweep/fixtures/tiny.yaml', import.meta.url));
const haveChromium = existsSync(CHROMIUM);

if (!haveChromium)
  console.warn(`SKIPPED the browser report tests: ${CHROMIUM} is not installed (CI installs it).`);

// What the page-side code touches; the project's TypeScript has no DOM types (it runs in Chromium, not Node).
interface PageElement {
  textContent: string | null;
  style: { zIndex: string };
  querySelector(selector: string): PageCanvas | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
}
interface PageChart {
  getOption(): { series: { name: string; type: string; data: unknown[] }[] };
  getDom(): PageElement;
  getWidth(): number;
  getHeight(): number;
  dispatchAction(action: object): void;
}
interface PageGlobals {
  kafkasimCharts?: Record<string, PageChart>;
  document: PageElement;
}

interface ChartState {
  id: string;
  series: { name: string; type: string; points: number }[];
  /** Share of the canvas with something drawn. */
  painted: number;
  tooltip: string;
}

describe.skipIf(!haveChromium)('reports in headless Chromium', () => {
  let context: BrowserContext;
  let profile: string;
  let work: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'kafkasim-chromium-'));
    work = mkdtempSync(join(tmpdir(), 'kafkasim-report-'));
    // A fresh profile per run; launchPersistentContext is playwright's way to give Chromium its --user-data-dir.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
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
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  /** Opens a report file, checks the page logged no error, and returns each chart's state. */
  async function open(html: string, name: string): Promise<{ charts: ChartState[]; omitted: string[] }> {
    const file = join(work, `${name}.html`);
    writeFileSync(file, html);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).kafkasimCharts !== undefined);
    const state = await page.evaluate(() => {
      const page = globalThis as unknown as PageGlobals;
      const out = Object.entries(page.kafkasimCharts!).map(([id, chart]) => {
        const canvas = chart.getDom().querySelector('canvas')!;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
        // Hover the middle of the plot: the tooltip formatters run in the page.
        chart.dispatchAction({ type: 'showTip', x: chart.getWidth() * 0.55, y: chart.getHeight() * 0.3 });
        const tip = Array.from(chart.getDom().querySelectorAll('div')).find(
          (d) => d.style.zIndex === '9999999',
        );
        return {
          id,
          series: chart
            .getOption()
            .series.map((s) => ({ name: s.name, type: s.type, points: s.data.length })),
          painted: painted / (canvas.width * canvas.height),
          tooltip: tip?.textContent ?? '',
        };
      });
      const omitted = Array.from(page.document.querySelectorAll('[data-omitted="true"] h2')).map(
        (h) => h.textContent ?? '',
      );
      return { charts: out, omitted };
    });
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    await page.close();
    expect(errors, 'console errors').toEqual([]);
    expect(requests, 'network requests').toEqual([]);
    return state;
  }

  function expectDrawn(charts: ChartState[]): void {
    for (const c of charts) {
      expect(c.series.length, c.id).toBeGreaterThan(0);
      for (const s of c.series) expect(s.points, `${c.id}: ${s.name}`).toBeGreaterThan(0);
      expect(c.painted, `${c.id} canvas`).toBeGreaterThan(0.02);
    }
  }

  it('a run report (hotspot, balancer, consumer group): the charts with data drawn, the rest left out', async () => {
    const recorder = new RunRecorder();
    const result = runScenario(MODELS, { onCluster: recorder.attach });
    const { charts, omitted } = await open(
      runReportHtml({ result, recording: recorder.finish(result), description: 'report-models' }),
      'report-run',
    );
    expect(charts.map((c) => c.id)).toEqual([
      'network',
      'placement',
      'producer',
      'lag',
      'groups',
      'balancer',
    ]);
    expectDrawn(charts);
    // No Raft quorum in scenarios (one controller): that chart says so instead of drawing nothing.
    expect(omitted).toEqual(['KRaft quorum roles']);
    const tips = Object.fromEntries(charts.map((c) => [c.id, c.tooltip]));
    expect(tips.network).toMatch(/broker 1 in: [\d.]+ MiB\/s.*broker 1 out: [\d.]+ MiB\/s/);
    expect(tips.producer).toMatch(/perf-producer records\/s: [\d,.]+/);
  }, 60_000);

  it('every chart kind, from balancer, group and Raft events', async () => {
    const result: ScenarioResult = {
      scenario: 'every-chart',
      seed: 1,
      passed: true,
      expectations: [{ name: 'balanced', passed: true, expected: 'skew <= 1', actual: 0 }],
      metrics: {},
      virtualMs: 20_000,
      wallMs: 1,
      events: 1,
      traceHash: '0000000000000000',
      output: [],
      steps: [],
    };
    const { charts, omitted } = await open(
      runReportHtml({ result, recording: richRecording() }),
      'report-all-charts',
    );
    expect(charts.map((c) => c.id)).toEqual([
      'network',
      'placement',
      'producer',
      'lag',
      'groups',
      'raft',
      'balancer',
    ]);
    expect(omitted).toEqual([]);
    expectDrawn(charts);
  }, 60_000);

  it('a sweep report: each metric against the grid, with min–max bands', async () => {
    const grid = parseGrid(['topics.0.partitions=2,4,8', 'timeline.0.crashBroker=1,3']);
    const metrics = ['acked', 'produceErrors', 'produceLatencyP99Ms', 'maxLag'];
    const seeds = [1, 2];
    const cells = cellsOf(grid).map((cell) =>
      finishCell(
        cell,
        seeds.map((seed) =>
          runCell({
            path: TINY,
            set: Object.entries(cell.params).map(([p, v]) => `${p}=${v}`),
            seed,
            metrics,
          }),
        ),
        metrics,
      ),
    );
    const doc: SweepDocument = {
      format: SWEEP_FORMAT,
      scenario: 'tiny',
      file: 'tiny.yaml',
      set: [],
      grid,
      seeds,
      metrics,
      shard: null,
      identity: { id: 'test', scenarioSha256: '', kafkasimVersion: '0' },
      shards: { n: 1, have: [1] },
      totalCells: cells.length,
      totalRuns: cells.length * seeds.length,
      interrupted: false,
      cells,
      wallMs: 0,
    };
    const { charts, omitted } = await open(sweepReportHtml(doc), 'report-sweep');
    // maxLag has no data (no consumer): left out; the three others drawn, x = partitions, a line per crashBroker.
    expect(omitted).toEqual(['maxLag']);
    expect(charts).toHaveLength(3);
    expectDrawn(charts);
    for (const c of charts) {
      expect(c.series.filter((s) => s.name === 'crashBroker=1')).toHaveLength(3); // band low, band high, median
      expect(c.series.every((s) => s.points === 3)).toBe(true);
    }
  }, 120_000);
});
