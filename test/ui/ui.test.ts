// The web UI in headless Chromium against a real served simulation: clicking a broker's crash button moves its
// partitions' leaders and the event log explains it; scrubbing the timeline back to 10 s shows exactly the
// snapshot taken at 10 s; a fork with a changed setting diverges from its parent side by side; the page logs no
// error. Skipped only when Chromium is absent (CI installs it).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/api/server.ts';
import { crashCycle, haveChromium, json, launch, openUi, serve, shot, until } from './browser-helpers.ts';

if (!haveChromium)
  console.warn('SKIPPED the web UI browser tests: /usr/bin/chromium is not installed (CI installs it).');

interface Snap {
  cluster_id: string;
  clock: { now_ms: number };
  events: number;
  trace: { hash: string };
  brokers: { broker_id: number; status: string; fenced: boolean }[];
  metadata: {
    brokers: Record<string, { fenced: boolean }>;
    topics: Record<string, { partitions: { partition: number; leader: number; isr: number[] }[] }>;
  };
}

interface View {
  now_ms: number;
  controllers: Record<string, string>;
  hash: string;
  events: number;
  leaders: Record<string, number>;
  brokers: Record<string, string>;
}

/** What the page shows (the clock's data, each partition cell's leader, each broker's status word), read from
 * the page's DOM by the UI's own viewState(). */
async function view(page: Page): Promise<View> {
  return (await page.evaluate('window.kafkasim.viewState()')) as View;
}

function leadersOf(s: Snap): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, t] of Object.entries(s.metadata.topics))
    for (const p of t.partitions) out[`${name}-${p.partition}`] = p.leader;
  return out;
}

describe.skipIf(!haveChromium)('the web UI in headless Chromium', () => {
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let server: RunningServer;
  let base: string;

  /** A paused 4-broker sandbox with a 12-partition topic and a producer. */
  async function sandbox(): Promise<RunningServer> {
    const server = await serve({ seed: 3, brokers: 4 });
    const s = await json<Snap>(server.url, '/sim/snapshot');
    await json(server.url, `/v3/clusters/${s.cluster_id}/topics`, 'POST', {
      topic_name: 'orders',
      partitions_count: 12,
      replication_factor: 3,
    });
    await json(server.url, '/sim/workloads', 'POST', { kind: 'producer', topic: 'orders', rate: 100 });
    return server;
  }

  beforeAll(async () => {
    browser = await launch();
    server = await sandbox();
    base = server.url;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('crash a broker by clicking: its partitions get new leaders and the log says why', async () => {
    const { page, errors } = await openUi(browser.context, `${base}/`);
    await page.waitForSelector('.cell[data-tp="orders-11"]');
    // Each broker's colour bar is left of its text, and the text inside its frame ("9 leaders · 52 replicas").
    const overlaps =
      await page.evaluate(`[...document.querySelectorAll('#cluster-svg .node.broker')].flatMap((g) => {
      const bar = g.querySelector('rect:last-of-type').getBBox();
      const box = g.querySelector('rect').getBBox();
      return [...g.querySelectorAll('text')]
        .map((t) => t.getBBox())
        .filter((t) => t.x < bar.x + bar.width || t.x + t.width > box.x + box.width)
        .map(() => g.dataset.node);
    })`);
    expect(overlaps).toEqual([]);
    const before = await view(page);
    const led = Object.entries(before.leaders).filter(([, l]) => l === 1);
    expect(led.length).toBeGreaterThan(0);
    await page.click('#cluster-svg .node.broker[data-node="broker-1"]');
    await page.click('#node-actions button[data-action="crash"]');
    await until(
      page,
      'broker 1 shown crashed',
      async () => (await view(page)).brokers['broker-1'] === 'crashed',
    );
    await page.selectOption('#speed', '10');
    await page.click('#play');
    await until(page, 'no partition led by broker 1', async () =>
      Object.values((await view(page)).leaders).every((l) => l !== 1),
    );
    await until(page, 'the log explaining the fence and the elections', async () => {
      const text = await page.textContent('#log');
      return (
        /broker 1 fenced: no heartbeat for \d+\.\d s; \d+ partition\(s\) change/.test(text ?? '') &&
        /leader 1 -> \d \(from ISR\), ISR \[[\d,]+\]: a broker fenced \(no heartbeat\)/.test(text ?? '')
      );
    });
    const after = await view(page);
    for (const [tp] of led) expect(after.leaders[tp], tp).not.toBe(1);
    await shot(page, 'crash');
    await page.click('#play'); // pause
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('break it by clicking: slow, isolate, cut the network, heal, crash and restart the controller', async () => {
    const own = await sandbox();
    const { page, errors } = await openUi(browser.context, `${own.url}/`);
    const faults = async () =>
      (
        await json<{
          faults: { slow: Record<string, number>; isolated: string[]; partition: string[][] | null };
        }>(own.url, '/sim/snapshot')
      ).faults;
    const brokerWord = async (id: number) => (await view(page)).brokers[`broker-${id}`];
    const nodeAction = async (node: string, action: string) => {
      await page.click(`#cluster-svg .node[data-node="${node}"]`);
      await page.click(`#node-actions button[data-action="${action}"]`);
    };

    // Slow broker 2 by 300 ms: the view says so, the network has the latency; then take it off.
    await page.fill('#slow-ms', '300');
    await nodeAction('broker-2', 'slow');
    await until(page, 'broker 2 shown slow', async () => (await brokerWord(2)) === 'slow +300ms');
    expect((await faults()).slow).toEqual({ 'broker-2': 300 });
    await nodeAction('broker-2', 'unslow');
    await until(page, 'broker 2 no longer slow', async () => (await brokerWord(2)) === 'up');
    expect((await faults()).slow).toEqual({});

    // Isolate broker 3 and play: it is shown isolated, its links cut, then the controller fences it.
    await nodeAction('broker-3', 'isolate');
    await until(page, 'broker 3 shown isolated', async () => (await brokerWord(3)) === 'up · isolated');
    expect((await faults()).isolated).toEqual(['broker-3']);
    expect(await page.locator('#cluster-svg path.link.cut').count()).toBeGreaterThan(0);
    expect(await page.textContent('#cut-caption')).toBe('isolated: broker-3');
    await page.selectOption('#speed', '10');
    await page.click('#play');
    await until(page, 'broker 3 fenced', async () => (await brokerWord(3)) === 'fenced · isolated');
    await page.click('#play'); // pause
    await shot(page, 'isolated', { doc: true });

    // Cut the network in two: each node says its side, the caption names them; heal all.
    await page.fill('#cut-groups', '0,1|2,3');
    await page.click('#cut');
    await until(page, 'the sides shown', async () => (await brokerWord(0)) === 'up · side A');
    expect((await faults()).partition).toEqual([
      ['broker-0', 'broker-1'],
      ['broker-2', 'broker-3'],
    ]);
    expect(await brokerWord(2)).toMatch(/ · side B$/);
    expect(await page.textContent('#cut-caption')).toBe(
      'network cut: A {broker-0, broker-1} | B {broker-2, broker-3} | C {the rest} · isolated: broker-3',
    );
    await page.click('#heal-all');
    await until(page, 'the cut healed', async () => (await page.textContent('#cut-caption')) === '');
    expect(await faults()).toMatchObject({ partition: null, isolated: [] });
    expect(await page.locator('#cluster-svg path.link.cut').count()).toBe(0);

    // A bad cut is refused with the server's words, nothing applied.
    await page.fill('#cut-groups', '0,9');
    await page.click('#cut');
    await until(page, 'the refusal shown', async () =>
      /cut the network: no broker 9/.test((await page.textContent('#status')) ?? ''),
    );
    expect((await faults()).partition).toBeNull();

    // The controller: crash it, then restart it.
    const controller = Object.keys((await view(page)).controllers)[0]!;
    await nodeAction(controller, 'crash');
    await until(page, 'the controller shown crashed', async () =>
      (await view(page)).controllers[controller]!.startsWith('crashed'),
    );
    await nodeAction(controller, 'restart');
    await until(page, 'the controller back', async () =>
      /^leader \(active\)/.test((await view(page)).controllers[controller]!),
    );
    // Every click was an ordinary logged request.
    const log = await json<{ entries: { url: string }[] }>(own.url, '/sim/requests');
    expect(log.entries.map((e) => e.url).filter((u) => u.startsWith('/sim/faults/'))).toEqual([
      '/sim/faults/slow-broker',
      '/sim/faults/slow-broker',
      '/sim/faults/isolate',
      '/sim/faults/partition',
      '/sim/faults/heal',
      '/sim/faults/crash-controller',
      '/sim/faults/restart-controller',
    ]);
    // The one console line is Chromium's for the refused cut (a 400 it logs for any failed fetch).
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await page.close();
    await own.close();
  }, 180_000);

  it('a sandbox with three controllers: crash the active one by clicking, another is elected', async () => {
    const own = await serve({ seed: 3, brokers: 2, controllers: 3 });
    const { page, errors } = await openUi(browser.context, `${own.url}/`);
    const controllers = async () => (await view(page)).controllers;
    const active = Object.entries(await controllers()).filter(([, w]) => w.startsWith('leader (active)'));
    expect(Object.keys(await controllers())).toHaveLength(3);
    expect(active).toHaveLength(1);
    const [old] = active[0]!;
    const epoch = async (node: string) =>
      Number(/epoch (\d+)/.exec((await page.textContent(`.node[data-node="${node}"]`)) ?? '')?.[1]);
    const epoch0 = await epoch(old);
    await page.click(`#cluster-svg .node[data-node="${old}"]`);
    await page.click('#node-actions button[data-action="crash"]');
    await page.selectOption('#speed', '10');
    await page.click('#play');
    await until(page, 'another controller elected', async () =>
      Object.entries(await controllers()).some(([c, w]) => c !== old && w.startsWith('leader (active)')),
    );
    await page.click('#play'); // pause
    expect((await controllers())[old]).toMatch(/^crashed/);
    // The new leader's epoch is higher than the one the page showed before the crash.
    const leader = Object.entries(await controllers()).find(([, w]) => w.startsWith('leader (active)'))![0];
    expect(await epoch(leader)).toBeGreaterThan(epoch0);
    expect(errors).toEqual([]);
    await page.close();
    await own.close();
  }, 120_000);

  it('the Lake: rows per partition as the ingest service writes them', async () => {
    const own = await serve({ seed: 5, brokers: 3 });
    const cid = (await json<Snap>(own.url, '/sim/snapshot')).cluster_id;
    await json(own.url, `/v3/clusters/${cid}/topics`, 'POST', {
      topic_name: 'lake-topic',
      partitions_count: 2,
      replication_factor: 3,
    });
    const config = {
      kafkaBootstrapServers: '127.0.0.1:9092',
      kafkaTopic: 'lake-topic',
      KafkaConsumerGroup: 'lake-group',
      isJsonTransform: false,
      lakeDSN: 'http://lake:lake@localhost:8002',
      lakeTable: 'default.lake_table',
      batchSize: 100,
      batchMaxInterval: 1,
      workers: 2,
    };
    await json(own.url, '/sim/workloads', 'POST', { kind: 'ingest', config });
    await json(own.url, '/sim/advance', 'POST', { duration: '5s' });
    // 300 records, sequence % 2 picks the partition: 150 each.
    await json(own.url, '/sim/workloads', 'POST', {
      kind: 'explicit-producer',
      topic: 'lake-topic',
      first_sequence: 0,
      count: 300,
      partition_count: 2,
    });
    await json(own.url, '/sim/advance', 'POST', { duration: '10s' });
    const { page, errors } = await openUi(browser.context, `${own.url}/`);
    const rows = async () =>
      page
        .locator('#lake table.lake-rows[data-table="default.lake_table"] tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    await until(page, 'the Lake rows per partition', async () => (await rows()).length === 2);
    expect(await rows()).toEqual([
      ['lake-topic-0', '150', '', 'to offset 149'],
      ['lake-topic-1', '150', '', 'to offset 149'],
    ]);
    expect(await page.locator('#lake h3', { hasText: 'default.lake_table' }).textContent()).toBe(
      'default.lake_table: 300 rows',
    );
    // The same numbers as the API's snapshot (the page has no other source).
    const lake = (
      await json<{ lake: { tables: { rows: number; partitions: { rows: number }[] }[] } }>(
        own.url,
        '/sim/snapshot',
      )
    ).lake;
    expect(lake.tables.map((t) => [t.rows, t.partitions.map((p) => p.rows)])).toEqual([[300, [150, 150]]]);
    // The ingest service's consumer group: state, generation, members, each partition's lag.
    const group = (
      await json<{ groups: { group_id: string; generation: number; state: string }[] }>(
        own.url,
        '/sim/snapshot',
      )
    ).groups.find((g) => g.group_id === 'lake-group')!;
    expect(group.generation).toBeGreaterThan(0);
    expect(await page.locator('#groups h3').allTextContents()).toContain(
      `lake-group: ${group.state} · classic · generation ${group.generation} · 2 member(s) · lag 0`,
    );
    const assigned = await page
      .locator('#groups table[data-group="lake-group"] td:nth-child(2)')
      .allTextContents();
    expect(assigned.join(' ').split(' ').sort()).toEqual(['(0)', '(0)', 'lake-topic-0', 'lake-topic-1']);
    expect(errors).toEqual([]);
    await page.close();
    await own.close();
  }, 120_000);

  it('consumer groups of both protocols added by clicking; a KIP-848 member joining: epochs, target, pending', async () => {
    const own = await serve({ seed: 5, brokers: 3 });
    const cid = (await json<Snap>(own.url, '/sim/snapshot')).cluster_id;
    await json(own.url, `/v3/clusters/${cid}/topics`, 'POST', { topic_name: 'g', partitions_count: 4 });
    const { page, errors } = await openUi(browser.context, `${own.url}/`);
    await page.selectOption('#topic', 'g');
    const add = async (mode: string) => {
      const count = async () => (await json<{ requests: number }>(own.url, '/sim/snapshot')).requests;
      const before = await count();
      await page.selectOption('#consumer-mode', mode);
      await page.click('#add-consumer');
      await until(page, `the ${mode} consumer added`, async () => (await count()) > before);
    };
    await add('consumer');
    await add('consumer');
    await add('classic');
    await json(own.url, '/sim/advance', 'POST', { duration: '12s' });
    type Group = {
      group_id: string;
      group_epoch: number;
      generation: number;
      members: {
        consumer_id: string;
        member_epoch: number;
        assignment: { partition: number }[];
        pending_assignment: { partition: number }[];
      }[];
    };
    const groups = async () => (await json<{ groups: Group[] }>(own.url, '/sim/snapshot')).groups;
    const heading = async (text: string) =>
      until(page, text, async () => (await page.locator('#groups h3').allTextContents()).includes(text));
    const [classic, kip848] = await groups();
    expect([classic!.group_id, kip848!.group_id]).toEqual(['demo-classic', 'demo-kip848']);
    await heading(`demo-classic: Stable · classic · generation ${classic!.generation} · 1 member(s) · lag 0`);
    await heading(
      `demo-kip848: Stable · consumer protocol (KIP-848) · group epoch ${kip848!.group_epoch} · 2 member(s) · lag 0`,
    );
    // A third member: the coordinator's new target gives it a partition another member still owns.
    await add('consumer');
    await json(own.url, '/sim/advance', 'POST', {
      until: { trace_kind: 'group.consumer.target-assignment' },
      timeout: '10s',
    });
    const now = (await groups()).find((g) => g.group_id === 'demo-kip848')!;
    const newcomer = now.members.find((m) => !kip848!.members.some((k) => k.consumer_id === m.consumer_id))!;
    const waiting = newcomer.pending_assignment.map((tp) => `g-${tp.partition} waiting`);
    expect(waiting.length).toBeGreaterThan(0);
    const row = (id: string) => page.locator(`#groups tr[data-member="${id}"]`);
    await until(
      page,
      'the newcomer waiting for its partition',
      async () =>
        (await row(newcomer.consumer_id).locator('.waiting').allTextContents())
          .map((w) => w.trim())
          .join(',') === waiting.join(','),
    );
    expect(await row(newcomer.consumer_id).locator('td').nth(1).textContent()).toBe(`${now.group_epoch}`);
    // The member still owning it has not heartbeated yet: its epoch is behind the group's.
    const owner = now.members.find((m) =>
      m.assignment.some((a) => waiting.includes(`g-${a.partition} waiting`)),
    )!;
    expect(await row(owner.consumer_id).locator('td').nth(1).textContent()).toBe(
      `${owner.member_epoch} (behind)`,
    );
    await shot(page, 'groups-kip848');
    expect(errors).toEqual([]);
    await page.close();
    await own.close();
  }, 120_000);

  it('admin by clicking and the keyboard: drag a partition, add partitions, stop a producer, space, arrows', async () => {
    const own = await sandbox();
    const { page, errors } = await openUi(browser.context, `${own.url}/`);
    await page.waitForSelector('.cell[data-tp="orders-11"]');
    type Reg = { partition: number; replicas: number[]; leader: number };
    const orders = async () =>
      (await json<{ metadata: { topics: Record<string, { partitions: Reg[] }> } }>(own.url, '/sim/snapshot'))
        .metadata.topics.orders!.partitions;

    // Drag orders-0 onto a broker that has no replica of it: a reassignment there.
    const p0 = (await orders())[0]!;
    const target = [0, 1, 2, 3].find((b) => !p0.replicas.includes(b))!;
    await page.dragAndDrop(
      '.cell[data-tp="orders-0"]',
      `#cluster-svg .node.broker[data-node="broker-${target}"]`,
    );
    await until(page, 'the move requested', async () =>
      new RegExp(`move orders-0 to broker ${target}: done`).test((await page.textContent('#status')) ?? ''),
    );
    // Listed above the grid while in flight (the simulation is paused): old and new replicas, the new one not
    // yet caught up; the cell is striped.
    const asked = [target, ...p0.replicas.slice(0, 2)];
    await until(page, 'the move listed in flight', async () =>
      (
        (await page
          .locator('#moving li[data-tp="orders-0"]')
          .textContent({ timeout: 1000 })
          .catch(() => '')) ?? ''
      ).startsWith(
        `orders-0: [${p0.replicas}] -> [${asked}] · adding [${target}], 0 of 1 caught up (in the ISR) · removing [${p0.replicas[2]}] · for `,
      ),
    );
    expect(await page.getAttribute('.cell[data-tp="orders-0"]', 'class')).toContain('moving');
    expect(await page.textContent('#moving h3')).toBe('Reassignments in flight: 1');
    await json(own.url, '/sim/advance', 'POST', { duration: '5s' });
    await until(
      page,
      'the move done, no longer listed',
      async () => (await page.getAttribute('#moving', 'data-count')) === '0',
    );
    const moved = (await orders())[0]!;
    expect(moved.replicas[0]).toBe(target);
    expect(moved.replicas).toHaveLength(3);
    await until(page, 'the cell shows the new replicas', async () =>
      ((await page.getAttribute('.cell[data-tp="orders-0"]', 'title')) ?? '').includes(
        `replicas [${moved.replicas.join(',')}]`,
      ),
    );

    // Add 2 partitions to orders.
    await page.selectOption('#topic', 'orders');
    await page.fill('#add-count', '2');
    await page.click('#add-partitions');
    await until(
      page,
      'the 14-partition grid',
      async () => (await page.locator('.cell[data-tp^="orders-"]').count()) === 14,
    );
    expect(await orders()).toHaveLength(14);

    // Stop the producer: it says stopped, and offers no button (a stopped workload is done).
    await page.click('.workload[data-workload="producer"] button[data-action="stop"]');
    await until(page, 'the producer stopped', async () =>
      /producer \(producer on orders\): stopped/.test((await page.textContent('#workloads')) ?? ''),
    );
    expect(await page.locator('.workload[data-workload="producer"] button').count()).toBe(0);

    // The keyboard: space plays and pauses, right arrow steps one event, left arrow goes 1 s back.
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press(' ');
    await until(page, 'playing', async () => (await page.getAttribute('#play', 'data-playing')) === 'true');
    await page.keyboard.press(' ');
    await until(page, 'paused', async () => (await page.getAttribute('#play', 'data-playing')) === 'false');
    const before = await json<{ events: number; clock: { now_ms: number } }>(own.url, '/sim/snapshot');
    await until(page, 'the view caught up', async () => (await view(page)).events === before.events);
    await page.keyboard.press('ArrowRight');
    await until(page, 'one event later', async () => (await view(page)).events === before.events + 1);
    const t = (await view(page)).now_ms;
    await page.keyboard.press('ArrowLeft');
    // (1 s back lands inside the 5 s advance above: the replay stops there, not at the advance's end.)
    await until(page, '1 s back', async () => (await view(page)).now_ms === Math.floor(t - 1000));
    expect(await page.textContent('#viewing')).toMatch(/Viewing the past at/);
    expect(errors).toEqual([]);
    await page.close();
    await own.close();
  }, 180_000);

  it('scrubbing back and switching branches keep the markers of the whole run, even those older than the trace the server keeps', async () => {
    // A trace ring of 40 events: a rebuilt world holds only its newest 40, long after the first crash.
    const own = await serve({ seed: 4, brokers: 3, traceBufferSize: 40 });
    const cid = (await json<Snap>(own.url, '/sim/snapshot')).cluster_id;
    await json(own.url, `/v3/clusters/${cid}/topics`, 'POST', {
      topic_name: 'orders',
      partitions_count: 3,
      replication_factor: 3,
    });
    await json(own.url, '/sim/workloads', 'POST', { kind: 'producer', topic: 'orders', rate: 100 });
    const { page, errors } = await openUi(browser.context, `${own.url}/`);
    for (const broker of [0, 1, 2]) await crashCycle(own, broker, 12);
    const crashes = async () =>
      (await page.evaluate(
        'window.kafkasim.timeline.markers.filter((m) => / crashed$/.test(m.text)).map((m) => m.text)',
      )) as string[];
    await until(page, 'three crash markers', async () => (await crashes()).length === 3);
    // The server is paused: its clock is the head. The view may not have polled the last advance yet, so the head
    // is read from the server, not from the view (a CI run read the view one poll early and waited forever).
    const head = (await json<Snap>(own.url, '/sim/snapshot')).clock.now_ms;
    await until(page, 'the view at the head', async () => (await view(page)).now_ms === head);
    // The server's ring no longer holds the first crash.
    const kept = await (await fetch(`${own.url}/sim/trace.jsonl?kind=node.crash`)).text();
    expect(kept).not.toContain('"node":"broker-0"');
    // The timeline's scale follows its head: wait until it has drawn the head the view shows, or the click below
    // lands on a later moment than the one computed (a CI run clicked next to the head and never went back).
    await until(
      page,
      'the timeline at the head',
      async () => (await page.evaluate('window.kafkasim.timeline.head')) === head,
    );
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    const x = (await page.evaluate(`window.kafkasim.timeline.xOf(${head - 5000})`)) as number;
    await page.mouse.click(box.x + x, box.y + box.height / 2);
    await until(page, 'the view 5 s back', async () => (await view(page)).now_ms < head - 4000).catch(
      async (e) => {
        // Say where the page and the server were, for the next time this is seen.
        const clock = await json(own.url, '/sim/clock');
        const t = await page.evaluate(
          '({ head: window.kafkasim.timeline.head, now: window.kafkasim.timeline.now })',
        );
        throw new Error(
          `${(e as Error).message}: head ${head}, clicked x ${x} of ${box.width}, view ${JSON.stringify(await view(page))}, timeline ${JSON.stringify(t)}, server clock ${JSON.stringify(clock)}`,
        );
      },
    );
    const all = ['broker 0 crashed', 'broker 1 crashed', 'broker 2 crashed'];
    const same = async () => JSON.stringify(await crashes()) === JSON.stringify(all);
    // Waited for, not slept on: the page reloads its history after the rewound world is served. A marker it lost
    // never comes back, so the wait times out and the line below shows which one.
    await until(page, 'the three crash markers after the rewind', same, 10_000).catch(() => undefined);
    expect(await crashes()).toEqual(all);
    // Fork here, then switch back to main and to the fork again: no rebuilt world's ring holds the first crash,
    // the page keeps each branch's markers from what it saw.
    await page.click('#fork');
    await until(page, 'the fork', async () => (await page.locator('#branches .branch').count()) === 2);
    for (const id of [1, 2]) {
      await page.click(`#branches .branch[data-branch="${id}"] button[data-action="checkout"]`);
      await until(
        page,
        `branch ${id} served`,
        async () => (await page.locator(`#branches .branch.active[data-branch="${id}"]`).count()) === 1,
      );
      expect(await (await fetch(`${own.url}/sim/trace.jsonl?kind=node.crash`)).text()).not.toContain(
        '"node":"broker-0"',
      );
      await until(page, `the three crash markers on branch ${id}`, same, 10_000).catch(() => undefined);
      expect(await crashes(), `branch ${id}`).toEqual(all);
    }
    expect(errors).toEqual([]);
    await page.close();
    await own.close();
  }, 180_000);

  it('scrub back to 10 s: the view equals the snapshot taken at 10 s; fork, change a setting, branches diverge', async () => {
    const own = await sandbox();
    const base = own.url;
    // A moment exactly at 10 s, taken live.
    const now = (await json<Snap>(base, '/sim/snapshot')).clock.now_ms;
    await json(base, '/sim/pause', 'POST');
    await json(base, '/sim/advance', 'POST', { duration: 10_000 - now });
    const at10 = await json<Snap>(base, '/sim/snapshot');
    expect(at10.clock.now_ms).toBe(10_000);
    await json(base, '/sim/advance', 'POST', { duration: '25s' });
    const later = await json<Snap>(base, '/sim/snapshot');
    expect(later.trace.hash).not.toBe(at10.trace.hash);

    const { page, errors } = await openUi(browser.context, `${base}/`);
    await until(page, 'the view at 35 s', async () => (await view(page)).now_ms === later.clock.now_ms);
    // Scrub: press on the timeline where 10 s is.
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    const x = (await page.evaluate('window.kafkasim.timeline.xOf(10000)')) as number;
    await page.mouse.click(box.x + x, box.y + box.height / 2);
    await until(page, 'the view at 10 s', async () => (await view(page)).now_ms === 10_000);
    const v = await view(page);
    expect(v.hash).toBe(at10.trace.hash);
    expect(v.events).toBe(at10.events);
    expect(v.leaders).toEqual(leadersOf(at10));
    for (const b of at10.brokers)
      expect(v.brokers[`broker-${b.broker_id}`]).toBe(
        b.status === 'up'
          ? b.fenced || at10.metadata.brokers[b.broker_id]?.fenced
            ? 'fenced'
            : 'up'
          : b.status,
      );
    expect(await page.textContent('#viewing')).toMatch(/Viewing the past at 10\.0 s/);
    await shot(page, 'scrubbed');

    // Fork here, change a setting in the new branch, run both to the same moment: they differ.
    await page.click('#fork');
    await until(page, 'two branches', async () => (await page.locator('.branch').count()) === 2);
    await page.selectOption('#topic', 'orders');
    await page.fill('#config', 'min.insync.replicas=3');
    await page.click('#set-config');
    await until(page, 'the setting applied', async () =>
      /set min\.insync\.replicas=3 on orders: done/.test((await page.textContent('#status')) ?? ''),
    );
    // ...and move orders-1 in the new branch only: its cell differs in the two grids side by side.
    const p1 = at10.metadata.topics.orders!.partitions[1]! as unknown as { replicas: number[] };
    const spare = [0, 1, 2, 3].find((b) => !p1.replicas.includes(b))!;
    await json(base, `/v3/clusters/${at10.cluster_id}/topics/-/partitions/-/reassignment`, 'POST', {
      version: 1,
      partitions: [{ topic: 'orders', partition: 1, replicas: [spare, ...p1.replicas.slice(1)] }],
    });
    await json(base, '/sim/advance', 'POST', { duration: '5s' });
    await until(page, 'the branch at 15 s', async () => (await view(page)).now_ms >= 15_000);
    await page.click('.branch[data-branch="1"] button[data-action="compare"]');
    await page.waitForSelector('#compare-summary');
    const diffs = Number(await page.getAttribute('#compare-summary', 'data-diffs'));
    expect(diffs).toBeGreaterThan(0);
    const hashRow = page.locator('#compare tr', { hasText: 'trace hash' });
    expect(await hashRow.getAttribute('class')).toBe('diff');
    // Two full grids side by side; the moved partition, and only it, outlined in both.
    expect(await page.locator('#compare .compare-side').count()).toBe(2);
    expect(await page.locator('#compare .compare-side .cell').count()).toBe(24);
    expect(await page.getAttribute('#compare-summary', 'data-partitions')).toBe('1');
    expect(
      await page
        .locator('#compare .compare-side .cell.diff')
        .evaluateAll((els) => els.map((e) => e.dataset.tp)),
    ).toEqual(['orders-1', 'orders-1']);
    expect(await page.locator('#compare tr.diff', { hasText: 'orders-1' }).count()).toBe(1);
    expect(await page.locator('#compare tr', { hasText: /^producer/ }).count()).toBe(1);
    await shot(page, 'compare', { doc: true });
    expect(errors).toEqual([]);
    await page.close();
    await own.close();
  }, 180_000);
});
