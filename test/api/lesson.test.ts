// A shipped scenario served as a guided lesson (src/api/lesson.ts, POST /sim/lesson/step): its steps run one at a
// time where the served clock is, each an ordinary logged request, so a rewind replays them exactly; bad steps
// are refused with a message saying which step is next.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/api/server.ts';
import { type Fixture, fixture } from './fixture.ts';

/** A parsed JSON body, read field by field against literal expectations. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked against literal expectations, not typed
type Json = any;

const SCENARIOS = new URL('../../scenarios/', import.meta.url);

function lessonWorld(name: string) {
  return {
    scenario: {
      text: readFileSync(new URL(`${name}.yaml`, SCENARIOS), 'utf8'),
      name: `${name}.yaml`,
      baseDir: SCENARIOS.pathname,
    },
    lesson: true,
  };
}

/** Plays the lesson as the page does: the clock runs until the next step is due (or its condition holds), then
 * the step is asked for. Returns the results of the steps run. */
async function playSteps(f: Fixture, count: number) {
  const results = [];
  for (let i = 0; i < count; i++) {
    for (let guard = 0; ; guard++) {
      const s = (await f.call('GET', '/sim/snapshot')).body;
      const step = s.lesson.steps[s.lesson.next];
      const now = s.clock.now_ms as number;
      if (step.wait !== null ? s.lesson.holds === true : step.due_ms === null || now >= step.due_ms) break;
      expect(guard, `step ${s.lesson.next} never became due`).toBeLessThan(400);
      const by = step.wait !== null ? 250 : step.due_ms - now;
      await f.call('POST', '/sim/advance', { duration: by });
    }
    const next = (await f.call('GET', '/sim/snapshot')).body.lesson.next;
    const r = await f.call('POST', '/sim/lesson/step', { index: next });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    results.push(r.body);
  }
  return results;
}

describe('a scenario served as a lesson', () => {
  it('broker-failure-rf3 step by step: the crash at 10 s, the failover from the ISR, the tool output', async () => {
    const f = await fixture(lessonWorld('broker-failure-rf3'));
    try {
      const first = (await f.call('GET', '/sim/snapshot')).body;
      expect(first.lesson.scenario).toBe('broker-failure-rf3');
      expect(first.lesson.next).toBe(0);
      expect(first.lesson.steps.map((s: { action: string }) => s.action).slice(0, 3)).toEqual([
        'print',
        'crashBroker',
        'waitUntil',
      ]);
      // The scenario's auto-start producer runs (the lesson's own clients).
      const producer = first.lesson.clients.find((c: { name: string }) => c.name === 'perf-producer');
      expect(producer.started).toBe(true);
      expect(producer.stats).toHaveProperty('sent');
      const led0 = first.metadata.topics.orders.partitions[0].leader as number;

      const [print, crash] = await playSteps(f, 2);
      expect(print.status).toBe('ok');
      expect(print.now_ms).toBeGreaterThanOrEqual(first.lesson.t0_ms + 5000);
      expect(crash.status).toBe('ok');
      // `at: 10s` counts from the lesson's start (the end of the setup).
      expect(crash.now_ms).toBeGreaterThanOrEqual(first.lesson.t0_ms + 10_000);
      const afterCrash = (await f.call('GET', '/sim/snapshot')).body;
      expect(afterCrash.brokers.find((b: { broker_id: number }) => b.broker_id === led0).status).toBe(
        'crashed',
      );
      expect(afterCrash.lesson.output.join('\n')).toMatch(/Topic: orders/);
      const sending = afterCrash.lesson.clients.find((c: { name: string }) => c.name === 'perf-producer');
      expect(sending.stats.acknowledged).toBeGreaterThan(10_000);

      // The failover wait: the condition holds only once a new leader came from the ISR.
      const waiting = afterCrash.lesson.steps[2];
      expect(waiting.wait).toMatch(/led by a live broker from its ISR/);
      expect(afterCrash.lesson.holds).toBe(false);
      await playSteps(f, 1);
      const failedOver = (await f.call('GET', '/sim/snapshot')).body;
      expect(failedOver.metadata.topics.orders.partitions[0].leader).not.toBe(led0);
      expect(failedOver.clock.now_ms - crash.now_ms).toBeLessThan(15_000);
      expect(failedOver.lesson.next).toBe(3);

      // The steps are in the trace, so the event log and the timeline show them.
      const trace = (await f.call('GET', '/sim/trace.jsonl')).text;
      expect(trace).toMatch(/"kind":"lesson.step".*"index":1.*"action":"crashBroker"/);
    } finally {
      await f.close();
    }
  }, 120_000);

  it('a rewind replays the lesson steps recorded: the moment after the crash step is exactly the same', async () => {
    const f = await fixture(lessonWorld('broker-failure-rf3'));
    try {
      await playSteps(f, 2);
      await f.call('POST', '/sim/advance', { duration: '1s' });
      const live = (await f.call('GET', '/sim/snapshot')).body;
      await playSteps(f, 1);
      await f.call('POST', '/sim/advance', { duration: '3s' });
      const r = await f.call('POST', '/sim/rewind', { to_ms: live.clock.now_ms });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const back = (await f.call('GET', '/sim/snapshot')).body;
      expect(back.trace.hash).toBe(live.trace.hash);
      expect(back.events).toBe(live.events);
      expect(back.lesson.next).toBe(2);
      expect(back.lesson.output).toEqual(live.lesson.output);
      expect(back.brokers).toEqual(live.brokers);
    } finally {
      await f.close();
    }
  }, 120_000);

  it('played at max speed, pacing stops by itself exactly where each step is due, or its condition holds', async () => {
    const server = await startServer({
      world: lessonWorld('broker-failure-rf3'),
      pacer: { speed: 'max', paused: true },
      port: 0,
    });
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${server.url}${path}`, {
        method,
        ...(method === 'POST'
          ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }
          : {}),
      });
      return (await r.json()) as Json;
    };
    const atBreakpoint = async () => {
      for (let i = 0; i < 600; i++) {
        const s = await call('GET', '/sim/snapshot');
        if (s.clock.at_breakpoint) return s;
        expect(s.clock.paused, 'pacing stopped without reaching the breakpoint').toBe(false);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('pacing never reached the next lesson step');
    };
    try {
      const t0 = (await call('GET', '/sim/snapshot')).lesson.t0_ms as number;
      await call('POST', '/sim/resume');
      const first = await atBreakpoint();
      // `at: 5s`: exactly 5 s after the lesson started, not a poll later.
      expect(first.clock.now_ms).toBe(t0 + 5000);
      expect(first.clock.paused).toBe(true);
      expect((await call('POST', '/sim/lesson/step', { index: 0 })).status).toBe('ok');
      // The step ran: still paused, no longer at the breakpoint (which was that step's).
      expect((await call('GET', '/sim/clock')).at_breakpoint).toBe(false);
      await call('POST', '/sim/resume');
      const second = await atBreakpoint();
      expect(second.clock.now_ms).toBe(t0 + 10_000);
      expect((await call('POST', '/sim/lesson/step', { index: 1 })).status).toBe('ok');
      await call('POST', '/sim/resume');
      // The failover condition: pacing stops in the millisecond it holds.
      const third = await atBreakpoint();
      expect(third.lesson.next).toBe(2);
      expect(third.lesson.holds).toBe(true);
      expect(third.clock.now_ms).toBeGreaterThan(t0 + 10_000);
      expect(third.clock.now_ms).toBeLessThan(t0 + 25_000);
      // Paused by a request, it is not at the breakpoint.
      await call('POST', '/sim/lesson/step', { index: 2 });
      await call('POST', '/sim/pause');
      expect((await call('GET', '/sim/clock')).at_breakpoint).toBe(false);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('refuses a step that is not next, a lesson that is not served, and malformed bodies', async () => {
    const f = await fixture(lessonWorld('broker-failure-rf3'));
    const plain = await fixture({ seed: 1, brokers: 3 });
    try {
      const wrong = await f.call('POST', '/sim/lesson/step', { index: 3 });
      expect(wrong.status).toBe(409);
      expect(wrong.body.message).toBe('step 3 is not next: the next step is 0 (of 9)');
      for (const body of [{ index: -1 }, { index: 'one' }, {}, { index: 0, extra: 1 }]) {
        const r = await f.call('POST', '/sim/lesson/step', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error_code).toBe(400);
      }
      // Nothing refused was recorded.
      expect((await f.call('GET', '/sim/snapshot')).body.requests).toBe(0);
      const none = await plain.call('POST', '/sim/lesson/step', { index: 0 });
      expect(none.status).toBe(409);
      expect(none.body.message).toMatch(/no lesson is served.*kafkasim ui/);
      expect((await plain.call('GET', '/sim/snapshot')).body.lesson).toBeNull();
    } finally {
      await f.close();
      await plain.close();
    }
  }, 60_000);
});
