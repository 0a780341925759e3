// Requests are applied at the current virtual time, in order, and logged with where the simulation was; a
// replay of the log against the same seed reproduces the run: the same trace hash after every request.
import { describe, expect, it } from 'vitest';
import { replayRequestLog, startServer } from '../../src/api/index.ts';
import { fixture } from './fixture.ts';

describe('request log replay', () => {
  it('replays a manual session request for request (same trace hash after each)', async () => {
    const f = await fixture({ seed: 21, brokers: 3 });
    try {
      await f.call('POST', `${f.base}/topics`, {
        topic_name: 'a',
        partitions_count: 6,
        replication_factor: 2,
      });
      await f.call('POST', '/sim/workloads', {
        kind: 'producer-perf',
        topic: 'a',
        num_records: 30_000,
        throughput: 3_000,
        record_size: 200,
      });
      await f.call('POST', '/sim/advance', { duration: '3s' });
      await f.call('POST', '/sim/faults/crash-broker', { broker_id: 1 });
      await f.call('POST', '/sim/step', { events: 17 });
      await f.call('POST', `${f.base}/topics/-/partitions/-/reassignment`, {
        version: 1,
        partitions: [{ topic: 'a', partition: 0, replicas: [0, 2] }],
      });
      await f.call('POST', '/sim/advance', { until: { workload_done: 'perf-producer' }, timeout: '60s' });
      await f.call('POST', '/sim/faults/restart-broker', { broker_id: 1 });
      await f.call('PATCH', `${f.base}/topics/a`, { partitions_count: 9 });
      await f.call('POST', '/sim/advance', { duration: '1s' });
      // Refused requests are not in the log and do not matter to the replay.
      await f.call('POST', `${f.base}/topics`, { topic_name: 'a' });
      const log = f.host.requestLog();
      expect(log.entries).toHaveLength(10);
      const replay = await replayRequestLog(JSON.parse(JSON.stringify(log)));
      try {
        expect(replay.mismatches).toEqual([]);
        expect(replay.host.fingerprint()).toEqual(f.host.fingerprint());
      } finally {
        await replay.app.close();
      }
    } finally {
      await f.close();
    }
  });

  it('a different seed gives different hashes (the check means something)', async () => {
    const f = await fixture({ seed: 21, brokers: 3 });
    try {
      await f.call('POST', `${f.base}/topics`, {
        topic_name: 'a',
        partitions_count: 6,
        replication_factor: 2,
      });
      await f.call('POST', '/sim/advance', { duration: '2s' });
      const log = f.host.requestLog();
      const other = await replayRequestLog({ ...log, world: { ...log.world, seed: 22 } });
      try {
        expect(other.mismatches.length).toBeGreaterThan(0);
      } finally {
        await other.app.close();
      }
    } finally {
      await f.close();
    }
  });

  it('replays a live session paced by the wall clock, with requests landing between pacing slices', async () => {
    const server = await startServer({
      world: { seed: 5, brokers: 3, storage: 'shared' },
      pacer: { speed: 'max' },
      port: 0,
    });
    const call = async (method: string, path: string, body?: unknown) => {
      // Every POST is JSON, with a body or without (the server refuses anything else).
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: await res.json() };
    };
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      const cid = server.host.world.clusterId;
      expect(
        (await call('POST', `/v3/clusters/${cid}/topics`, { topic_name: 'live', partitions_count: 8 }))
          .status,
      ).toBe(201);
      await pause(30);
      expect(
        (
          await call('POST', '/sim/workloads', {
            kind: 'producer',
            topic: 'live',
            rate: 2000,
            record_size: 500,
          })
        ).status,
      ).toBe(201);
      await pause(50);
      const move = {
        version: 1,
        partitions: [0, 1, 2, 3].map((p) => ({ topic: 'live', partition: p, replicas: [1] })),
      };
      expect(
        (await call('POST', `/v3/clusters/${cid}/topics/-/partitions/-/reassignment`, move)).status,
      ).toBe(202);
      await pause(50);
      expect((await call('POST', '/sim/faults/slow-broker', { broker_id: 2, delay: '20ms' })).status).toBe(
        200,
      );
      await pause(30);
      expect((await call('POST', '/sim/workloads/producer/stop')).status).toBe(200);
      await call('POST', '/sim/pause');
      const log = server.host.requestLog();
      expect(log.entries).toHaveLength(5);
      // The clock ran between the requests: each one found the simulation further on.
      const times = log.entries.map((e) => e.t);
      for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
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
  });
});
