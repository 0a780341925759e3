// The page's bounds, in headless Chromium, without timing anything (the machine is shared; figures are measured by
// scripts/bench-ui-page.ts, not asserted): a 1,000-partition grid is drawn and then updated in place (a render
// with nothing changed touches no cell; one move touches one cell); over a run with more log lines than the page
// keeps, its log and markers stay at their caps and its DOM does not grow.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crashCycle,
  haveChromium,
  json,
  launch,
  moveWidePartition,
  openUi,
  serve,
  until,
  wideTopicServer,
} from './browser-helpers.ts';

interface Counters {
  /** Snapshot reads answered (an unchanged snapshot is answered 304 and not drawn again). */
  polls: number;
  renders: number;
  log: number;
  markers: number;
  dom: number;
}

async function counters(page: Page): Promise<Counters> {
  return (await page.evaluate(`({
    polls: window.kafkasim.polls,
    renders: window.kafkasim.renderTimes.length,
    log: window.kafkasim.log.length,
    markers: window.kafkasim.timeline.markers.length,
    dom: document.getElementsByTagName('*').length,
  })`)) as Counters;
}

describe.skipIf(!haveChromium)('the web UI within bounds', () => {
  let browser: { context: BrowserContext; close: () => Promise<void> };

  beforeAll(async () => {
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('1,000 partitions: drawn as a grid, then updated in place', async () => {
    const { server, cid } = await wideTopicServer();
    const { page, errors } = await openUi(browser.context, `${server.url}/`);
    await page.waitForSelector('.cell[data-tp="wide-999"]');
    expect(await page.locator('#partitions .cell').count()).toBe(1000);
    // Count the cells touched from now on.
    await page.evaluate(`(() => {
      window.touched = new Set();
      new MutationObserver((ms) => {
        for (const m of ms) {
          const cell = m.target.nodeType === 1 ? m.target.closest('.cell') : m.target.parentElement?.closest('.cell');
          if (cell) window.touched.add(cell.dataset.tp);
        }
      }).observe(document.getElementById('partitions'), { subtree: true, attributes: true, childList: true, characterData: true });
    })()`);
    // A few more reads of the (paused) server: the snapshot did not change, so no cell is touched; the clock
    // moving on with nothing else changing draws the grid again without touching a cell either.
    const polls0 = (await counters(page)).polls;
    await until(page, 'a few more reads', async () => (await counters(page)).polls >= polls0 + 4);
    const renders0 = (await counters(page)).renders;
    await json(server.url, '/sim/advance', 'POST', { duration: '100ms' });
    await until(
      page,
      'a render after the clock moved',
      async () => (await counters(page)).renders > renders0,
    );
    expect(await page.evaluate('window.touched.size')).toBe(0);

    // Move one partition: that cell alone changes (its leader, replicas or ISR), then settles.
    await moveWidePartition(server, cid, 7);
    await until(page, 'the moved cell redrawn', async () =>
      ((await page.evaluate('[...window.touched]')) as string[]).includes('wide-7'),
    );
    expect(await page.evaluate('[...window.touched]')).toEqual(['wide-7']);
    expect(errors).toEqual([]);
    await page.close();
    await server.close();
  }, 300_000);

  it('a long run: the log and the markers stay at their caps, the DOM does not grow', async () => {
    const server = await serve({ seed: 9, brokers: 3 });
    const cid = (await json<{ cluster_id: string }>(server.url, '/sim/snapshot')).cluster_id;
    // 60 partitions: every crash and restart moves about 20 leaders, each a log line and a marker.
    await json(server.url, `/v3/clusters/${cid}/topics`, 'POST', {
      topic_name: 'orders',
      partitions_count: 60,
      replication_factor: 3,
    });
    const { page, errors } = await openUi(browser.context, `${server.url}/`);
    const cycle = (broker: number) => crashCycle(server, broker);
    // Until the page has more log lines than it keeps (MAX_LOG_LINES = 1500).
    let i = 0;
    for (; i < 120 && (await counters(page)).log < 1500; i++) await cycle(i % 3);
    await until(page, 'the log at its cap', async () => (await counters(page)).log === 1500);
    const atCap = await counters(page);
    for (let j = 0; j < 9; j++) await cycle((i + j) % 3);
    const polls = atCap.polls;
    await until(page, 'the page caught up', async () => (await counters(page)).polls > polls + 4);
    const after = await counters(page);
    console.log('long run:', JSON.stringify({ cycles: i + 9, atCap, after }));
    expect(after.log).toBe(1500);
    expect(after.markers).toBeGreaterThan(atCap.markers);
    // The markers' cap (MAX_MARKERS = 3000): this run makes fewer, so more are added the way the trace adds them.
    const capped = await page.evaluate(`(() => {
      const t = window.kafkasim.timeline;
      const last = t.markers[t.markers.length - 1].t;
      for (let i = 1; i <= 3500; i++) t.add({ t: last + i, category: 'fault', text: 'added ' + i });
      return { length: t.markers.length, first: t.markers[0].text, last: t.markers[t.markers.length - 1].text };
    })()`);
    expect(capped).toEqual({ length: 3000, first: 'added 501', last: 'added 3500' });
    // The log is a list of its lines (the page drops the oldest), so the page's DOM stays as it was at the cap.
    expect(after.dom).toBeLessThan(atCap.dom * 1.2);
    expect(errors).toEqual([]);
    await page.close();
    await server.close();
  }, 300_000);
});
