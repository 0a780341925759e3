// `kafkasim serve scenario.yaml --play` (src/api/lesson-player.ts): the server plays the scenario's timeline by
// itself, each step when it is due, as a lesson the page would step; every step is a logged request, so the run
// replays exactly; the terminal shows the steps and their tool output. A pause holds the player.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { playLesson } from '../../src/api/lesson-player.ts';
import { replayRequestLog, startServer } from '../../src/api/server.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const SCENARIOS = new URL('../../scenarios/', import.meta.url);

/** A shipped scenario's text; broker-failure-rf3 with 30,000 records instead of 100,000 (a shorter run). */
const text = (name: string) =>
  readFileSync(new URL(`${name}.yaml`, SCENARIOS), 'utf8').replace('numRecords: 100000', 'numRecords: 30000');

async function served(name: string, speed: 'max' | number, paused = false) {
  return startServer({
    world: {
      scenario: {
        text: text(name),
        name: `${name}.yaml`,
        baseDir: SCENARIOS.pathname,
      },
      lesson: true,
    },
    pacer: { speed, paused },
    port: 0,
  });
}

describe('kafkasim serve --play', () => {
  it('plays broker-failure-rf3 step by step at the due times, prints the steps, and the log replays', async () => {
    const server = await served('broker-failure-rf3', 'max');
    const printed: string[] = [];
    try {
      const finished = new Promise<number>((resolve, reject) => {
        playLesson(server.host, server.pacer, {
          step: (t, index, of, action) => printed.push(`${t} ${index + 1}/${of} ${action}`),
          line: (text) => printed.push(`  ${text}`),
          problem: (text) => reject(new Error(text)),
          done: resolve,
        });
      });
      const doneAt = await finished;
      server.pacer.pause();
      const steps = printed.filter((l) => !l.startsWith('  '));
      expect(steps.map((l) => l.split(' ').slice(1).join(' '))).toEqual([
        '1/9 print',
        '2/9 crashBroker',
        '3/9 waitUntil',
        '4/9 print',
        '5/9 waitUntil',
        '6/9 restartBroker',
        '7/9 waitUntil',
        '8/9 print',
        '9/9 print',
      ]);
      // `at: 5s` and `at: 10s` count from the lesson's start; the failover waits out the session timeout.
      const at = steps.map((l) => Number(l.split(' ')[0]));
      expect(at[0]).toBe(5000);
      expect(at[1]).toBe(10_000);
      expect(at[2]! - at[1]!).toBeGreaterThan(6000);
      expect(doneAt).toBeGreaterThanOrEqual(at[8]!);
      const output = printed.join('\n');
      expect(output).toContain(
        '$ kafka-topics.sh --bootstrap-server localhost:9092 --describe --topic orders',
      );
      expect(output).toMatch(/sent=30000 acknowledged=30000 failed=0 lost=0 duplicated=0/);
      // Each step is a request in the log, in order, so a replay of the log is the same run.
      const log = server.host.requestLog();
      expect(log.entries.map((e) => `${e.method} ${e.url} ${JSON.stringify(e.body)}`)).toEqual(
        Array.from({ length: 9 }, (_, i) => `POST /sim/lesson/step {"index":${i}}`),
      );
      const replay = await replayRequestLog(JSON.parse(JSON.stringify(log)));
      try {
        expect(replay.mismatches).toEqual([]);
        expect(replay.host.sim.trace.hash).toBe(log.entries.at(-1)!.hashAfter);
      } finally {
        await replay.app.close();
      }
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a paused server plays nothing until resumed', async () => {
    const server = await served('broker-failure-rf3', 'max', true);
    try {
      const steps: number[] = [];
      // Problems are collected, not thrown: the player reports the server's shutdown at the end (after the test).
      const problems: string[] = [];
      playLesson(server.host, server.pacer, {
        step: (_t, index) => steps.push(index),
        line: () => {},
        problem: (text) => problems.push(text),
        done: () => {},
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(steps).toEqual([]);
      expect(server.host.requestLog().entries).toEqual([]);
      server.pacer.resume();
      for (let i = 0; i < 400 && steps.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(steps.slice(0, 2)).toEqual([0, 1]);
      expect(problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('--play needs a scenario, and is not for kafkasim ui', async () => {
    const io = bufferIO();
    expect(await main(['serve', '--play', '--port', '0'], io)).toBe(2);
    expect(io.errors()).toContain(
      "--play plays a scenario's timeline: give a scenario file or a shipped scenario name",
    );
    const ui = bufferIO();
    expect(await main(['ui', 'broker-failure-rf3', '--play'], ui)).toBe(2);
    expect(ui.errors()).toContain("--play is serve's");
  });
});
