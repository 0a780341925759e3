// The A2 lesson (AutoMQ self-balancing on 5 brokers, workflow A) in headless Chromium: play pauses at each step
// with the step's note shown; played on, the partition grid turns into the hotspot (every partition led by
// broker 2), then the balancer's moves spread the leaders again, and the balancer panel and the event log say so.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/api/server.ts';
import { haveChromium, launch, lessonWorld, openUi, serve, shot, until } from './browser-helpers.ts';

const TOPIC = 'continuous-self-balancing-topic';

async function leaders(page: Page): Promise<number[]> {
  const v = (await page.evaluate('window.kafkasim.viewState()')) as { leaders: Record<string, number> };
  return Object.entries(v.leaders)
    .filter(([tp]) => tp.startsWith(`${TOPIC}-`))
    .map(([, l]) => l);
}

describe.skipIf(!haveChromium)('a lesson in headless Chromium', () => {
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let server: RunningServer;

  beforeAll(async () => {
    browser = await launch();
    server = await serve(lessonWorld('automq-self-balancing-5-brokers'), { paused: true, speed: 'max' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('A2: pause at each step, the hotspot, then the balancer spreads the leaders', async () => {
    const { page, errors } = await openUi(browser.context, `${server.url}/`);
    await until(page, 'the lesson panel', async () => !(await page.locator('#lesson').isHidden()));
    expect(await page.textContent('#lesson-title')).toBe('Lesson: automq-self-balancing-5-brokers');
    expect(await page.textContent('#lesson-note')).toMatch(/Next: Step 1: kafka-topics.sh --create/);

    // Play with "pause at each step": the first step runs where it is due, then the lesson waits.
    await page.click('#play');
    await until(
      page,
      'step 1 run and paused',
      async () =>
        /Just ran step 1: Step 1: kafka-topics.sh/.test((await page.textContent('#lesson-done')) ?? '') &&
        (await page.getAttribute('#play', 'data-playing')) === 'false',
    );
    expect(await page.textContent('#lesson-note')).toMatch(/Next: Step 2: describe the topic/);
    // What to watch after a topic is created (the hint for its kind of step).
    expect(await page.textContent('#lesson-hint')).toMatch(/^A new block of cells in the partition grid/);
    await page.waitForSelector(`.cell[data-tp="${TOPIC}-15"]`);
    expect(new Set(await leaders(page)).size).toBe(5);

    // Play on without pauses: the reassignment makes broker 2 lead everything.
    await page.uncheck('#pause-at-steps');
    await page.click('#play');
    await until(page, 'the hotspot: broker 2 leads all 16 partitions', async () => {
      const l = await leaders(page);
      return l.length === 16 && l.every((x) => x === 2);
    });
    expect(await page.textContent('#lesson-output')).toMatch(/Successfully started partition reassignments/);
    await shot(page, 'lesson-hotspot');

    // The balancer sees broker 2 outside the band and moves partitions off it.
    await until(
      page,
      'the balancer spreading the leaders over at least 4 brokers',
      async () => new Set(await leaders(page)).size >= 4,
      240_000,
    );
    const log = (await page.textContent('#log')) ?? '';
    expect(log).toMatch(/balancer moves \d+: 2->\d/);
    expect(await page.locator('#balancer .load-row').count()).toBe(5);
    expect(await page.locator('#balancer .decisions li').count()).toBeGreaterThan(0);
    await shot(page, 'lesson-balanced', { doc: true });
    await page.click('#play'); // pause
    expect(errors).toEqual([]);
    await page.close();
  }, 400_000);
});
