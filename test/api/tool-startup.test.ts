// The CLI's tool commands name themselves in a `kafkasim-tool` header on their first change: the server runs the
// tool's start-up (kafkasim.tool.startup.ms, from the seed) before applying it, logs it, and a replay repeats it.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { replayRequestLog, startServer } from '../../src/api/index.ts';
import { fixture } from './fixture.ts';

describe('tool start-up on the server', () => {
  it('a request from a tool is applied after the start-up; without the header at once; the replay matches', async () => {
    const f = await fixture({ seed: 8, brokers: 3 });
    try {
      await f.call('POST', `${f.base}/topics`, {
        topic_name: 'a',
        partitions_count: 2,
        replication_factor: 1,
      });
      const handled: number[] = [];
      f.host.sim.trace.subscribe((e) => {
        if (e.kind === 'controller.create-partitions') handled.push(e.t);
      });
      const before = f.host.sim.now;
      const r = await f.app.inject({
        method: 'PATCH',
        url: `${f.base}/topics/a`,
        headers: { 'kafkasim-tool': 'kafka-topics' },
        payload: { partitions_count: 4 },
      });
      expect(r.statusCode).toBe(200);
      // The default start-up is at least 500 ms: the controller saw the request that much later.
      expect(handled[0]! - before).toBeGreaterThanOrEqual(500);
      const plainBefore = f.host.sim.now;
      expect((await f.call('PATCH', `${f.base}/topics/a`, { partitions_count: 6 })).status).toBe(200);
      expect(handled[1]! - plainBefore).toBeLessThan(50);

      const log = f.host.requestLog();
      expect(log.entries.map((e) => e.tool)).toEqual([undefined, 'kafka-topics', undefined]);
      const replay = await replayRequestLog(JSON.parse(JSON.stringify(log)));
      try {
        expect(replay.mismatches).toEqual([]);
        expect(replay.host.sim.now).toBe(f.host.sim.now);
      } finally {
        await replay.app.close();
      }
    } finally {
      await f.close();
    }
  });

  it('a malformed tool name is refused with a message, and nothing is applied', async () => {
    const f = await fixture({ seed: 8, brokers: 3 });
    try {
      const entries = f.host.requestLog().entries.length;
      const r = await f.app.inject({
        method: 'POST',
        url: `${f.base}/topics`,
        headers: { 'kafkasim-tool': 'Kafka Topics!' },
        payload: { topic_name: 'b' },
      });
      expect(r.statusCode).toBe(400);
      expect(r.json().message).toContain('header kafkasim-tool: expected a tool name');
      expect(f.host.requestLog().entries).toHaveLength(entries);
      expect(f.host.world.cluster.image.topics.b).toBeUndefined();
    } finally {
      await f.close();
    }
  });

  it("the CLI's client sends the header on its first change only, never on a read", async () => {
    const server = await startServer({ world: { seed: 2, brokers: 1 }, pacer: { manual: true }, port: 0 });
    try {
      const client = new ApiClient(server.url, { tool: 'kafka-topics' });
      const path = await client.clusterPath();
      await client.call('POST', `${path}/topics`, { topic_name: 'x', partitions_count: 1 });
      await client.call('PATCH', `${path}/topics/x`, { partitions_count: 2 });
      expect(server.host.requestLog().entries.map((e) => [e.method, e.tool])).toEqual([
        ['POST', 'kafka-topics'],
        ['PATCH', undefined],
      ]);
    } finally {
      await server.close();
    }
  });
});
