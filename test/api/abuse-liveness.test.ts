// Abuse suite, part 2: the server stays up. Long requests run in slices while /health still answers (a real
// concurrent request over a socket), a 100-million-record producer streams, slow SSE readers cannot grow
// memory, the request log records every change (Lake DDL included) or refuses it, a replay reproduces the run,
// and SIGTERM stops the server during a Lake statement with the log written. Wall times are measured and
// printed, never held to a bound (the machine is shared); what is asserted is order and state.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createApiServer,
  Pacer,
  type RequestLog,
  replayRequestLog,
  SimHost,
  startServer,
} from '../../src/api/index.ts';
import { traceStreamsOf } from '../../src/api/sim/trace.ts';
import { TraceStreams } from '../../src/api/sim/trace-stream.ts';
import { spawnKafkasim } from '../kafkasim-process.ts';
import { fixture, LAKE_AUTH } from './fixture.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

async function call(base: string, method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(method === 'POST' || body !== undefined ? JSON_TYPE : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field against expectations
  return { status: res.status, json: json as any, text };
}

describe('no single request freezes the server', () => {
  it('/health answers while a long advance runs, and the advance runs the same events in slices', async () => {
    const server = await startServer({ world: { seed: 7, brokers: 3 }, pacer: { paused: true }, port: 0 });
    try {
      const cid = server.host.world.clusterId;
      expect(
        (
          await call(server.url, 'POST', `/v3/clusters/${cid}/topics`, {
            topic_name: 'busy',
            partitions_count: 12,
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await call(server.url, 'POST', '/sim/workloads', {
            kind: 'producer',
            topic: 'busy',
            rate: 20_000,
            record_size: 200,
          })
        ).status,
      ).toBe(201);
      let advanceDone = false;
      const advance = call(server.url, 'POST', '/sim/advance', { duration: '5m' }).then((r) => {
        advanceDone = true;
        return r;
      });
      const latencies: number[] = [];
      let answeredDuring = 0;
      while (!advanceDone) {
        const t0 = performance.now();
        const h = await call(server.url, 'GET', '/health');
        latencies.push(performance.now() - t0);
        expect(h.status).toBe(200);
        if (!advanceDone) answeredDuring++;
        await new Promise((r) => setTimeout(r, 5));
      }
      const done = await advance;
      expect(done.status).toBe(200);
      expect(done.json.advanced_ms).toBe(300_000);
      expect(done.json.events_run).toBeGreaterThan(10_000);
      // The health checks were answered while the advance was still running, not after it.
      expect(answeredDuring).toBeGreaterThan(0);
      latencies.sort((a, b) => a - b);
      console.log(
        `/health during a 5m advance (${done.json.events_run} events): ${answeredDuring} answers, ` +
          `median ${latencies[latencies.length >> 1]!.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
      );
      // The sliced run is the run: a replay (with its own slices) ends on the same trace hash.
      const log = server.host.requestLog();
      const replay = await replayRequestLog(JSON.parse(JSON.stringify(log)));
      try {
        expect(replay.mismatches).toEqual([]);
        expect(replay.host.sim.trace.hash).toBe(server.host.sim.trace.hash);
      } finally {
        await replay.app.close();
      }
    } finally {
      await server.close();
    }
  });

  it('an explicit producer of 100 million records streams through a bounded queue', async () => {
    const f = await fixture({ seed: 3, brokers: 3 });
    try {
      expect(
        (
          await f.call('POST', `${f.base}/topics`, {
            topic_name: 'big',
            partitions_count: 4,
            replication_factor: 1,
          })
        ).status,
      ).toBe(201);
      const heapBefore = process.memoryUsage().heapUsed;
      const created = await f.call('POST', '/sim/workloads', {
        kind: 'explicit-producer',
        topic: 'big',
        count: 100_000_000,
        partition_count: 4,
      });
      expect(created.status).toBe(201);
      for (let i = 0; i < 3; i++) {
        expect((await f.call('POST', '/sim/advance', { duration: '250ms' })).status).toBe(200);
        const stats = (await f.call('GET', `/sim/workloads/${created.body.name}`)).body.stats;
        expect(stats.sent).toBeGreaterThan(0);
        // Never more than the queue handed over and not yet settled.
        expect(stats.sent - stats.delivered - stats.failed).toBeLessThanOrEqual(100_000);
      }
      const stats = (await f.call('GET', `/sim/workloads/${created.body.name}`)).body.stats;
      expect(stats.delivered).toBeGreaterThan(100_000);
      console.log(
        `explicit-producer of 1e8 after 750 ms virtual: ${stats.sent} handed over, ${stats.delivered} delivered, ` +
          `heap +${((process.memoryUsage().heapUsed - heapBefore) / 1e6).toFixed(0)} MB`,
      );
    } finally {
      await f.close();
    }
  });
});

/** Opens an SSE stream over a raw socket, reads the status line, then stops reading (a slow client). */
function slowClient(port: number): Promise<{ socket: Socket; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /sim/trace/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    });
    socket.once('data', (chunk) => {
      socket.pause();
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1'))?.[1] ?? 0) });
    });
    socket.once('error', reject);
  });
}

describe('SSE: capped, bounded, and a client that does not read is dropped', () => {
  it('100 slow clients during a 10,000-partition create', async () => {
    const host = new SimHost({ seed: 5, brokers: 3 });
    const pacer = new Pacer(host, { manual: true });
    const maxBufferedBytes = 64 * 1024;
    const app = await createApiServer({ host, pacer, sseLimits: { maxBufferedBytes, stallMs: 1_000 } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const clients: Socket[] = [];
    try {
      const opened = await Promise.all(Array.from({ length: 100 }, () => slowClient(port)));
      for (const c of opened) clients.push(c.socket);
      const statuses = opened.map((c) => c.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(64);
      expect(statuses.filter((s) => s === 429)).toHaveLength(36);
      const streams = traceStreamsOf(app)!;
      expect(streams.size).toBe(64);
      const rssBefore = process.memoryUsage().rss;
      const base = `http://127.0.0.1:${port}`;
      const created = await call(base, 'POST', `/v3/clusters/${host.world.clusterId}/topics`, {
        topic_name: 'wide',
        partitions_count: 10_000,
        replication_factor: 1,
      });
      expect(created.status).toBe(201);
      // Every client's buffer stayed within its bound (plus the one event that crossed it).
      expect(streams.peakBuffered).toBeLessThanOrEqual(maxBufferedBytes + 16 * 1024);
      expect(streams.droppedEvents).toBeGreaterThan(0);
      const rssAfter = process.memoryUsage().rss;
      console.log(
        `10,000-partition create with 64 stalled SSE clients: ${streams.droppedEvents} events dropped, ` +
          `largest buffer ${streams.peakBuffered} B, RSS ${((rssAfter - rssBefore) / 1e6).toFixed(0)} MB more`,
      );
      // New clients are refused while the cap is reached; one that leaves makes room.
      expect((await slowClient(port)).status).toBe(429);
      clients.shift()!.destroy();
      const deadline = Date.now() + 10_000;
      while (streams.size >= 64 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const again = await slowClient(port);
      clients.push(again.socket);
      expect(again.status).toBe(200);
    } finally {
      for (const s of clients) s.destroy();
      await app.close();
    }
  }, 120_000);

  it('a client whose buffer stays full (it does not read) is disconnected after the stall time', async () => {
    const host = new SimHost({ seed: 5, brokers: 3 });
    const streams = new TraceStreams(host, { maxBufferedBytes: 64, stallMs: 200 });
    // A response whose socket never drains: what the server sees of a client that stopped reading once the
    // kernel's buffers are full (over loopback they take megabytes first, which is why this is not a socket).
    let buffered = 0;
    let destroyed = false;
    const raw = {
      writeHead: () => raw,
      write: (text: string) => {
        buffered += text.length;
        return false;
      },
      on: () => raw,
      // The stream corks a client's writes until the end of the turn (nothing to gather here: write() counts).
      cork: () => undefined,
      uncork: () => undefined,
      destroyed: false,
      end: () => undefined,
      destroy: () => {
        destroyed = true;
      },
      get writableLength() {
        return buffered;
      },
    };
    try {
      streams.add(raw as never, undefined);
      expect(streams.size).toBe(1);
      host.cluster.crashBroker(1);
      host.cluster.runFor('20s');
      host.cluster.restartBroker(1);
      host.cluster.runFor('10s');
      expect(streams.droppedEvents).toBeGreaterThan(0);
      expect(buffered).toBeLessThan(64 + 16 * 1024);
      const deadline = Date.now() + 10_000;
      while (!destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(destroyed).toBe(true);
      expect(streams.size).toBe(0);
      expect(streams.droppedClients).toBe(1);
    } finally {
      streams.close();
    }
  });
});

describe('the request log records every change or refuses it, and replay reproduces the run', () => {
  it('records Lake DDL and inserts (not reads), and a replay rebuilds the same run and the same Lake', async () => {
    const f = await fixture({ seed: 11, brokers: 3 });
    try {
      const lake = (sql: string) =>
        f.app.inject({
          method: 'POST',
          url: '/v1/query',
          headers: { ...JSON_TYPE, ...LAKE_AUTH },
          payload: { sql, session: { database: 'default' } },
        });
      expect(
        (await f.call('POST', `${f.base}/topics`, { topic_name: 'r', partitions_count: 3 })).status,
      ).toBe(201);
      expect(
        (await f.call('POST', '/sim/workloads', { kind: 'producer', topic: 'r', rate: 500 })).status,
      ).toBe(201);
      expect((await f.call('POST', '/sim/advance', { duration: '2s' })).status).toBe(200);
      expect((await lake('CREATE TABLE notes (id INT, text VARCHAR)')).json().state).toBe('Succeeded');
      expect((await lake("INSERT INTO notes VALUES (1, 'a'), (2, 'b')")).json().state).toBe('Succeeded');
      expect((await lake('SELECT count(*) FROM notes')).json().data).toEqual([['2']]);
      expect((await lake('SELECT 1; DROP TABLE notes')).json().state).toBe('Failed');
      expect((await f.call('POST', '/sim/faults/crash-broker', { broker_id: 2 })).status).toBe(200);
      expect((await f.call('POST', '/sim/advance', { duration: '3s' })).status).toBe(200);
      const requests = await f.call('GET', '/sim/requests');
      expect(requests.status).toBe(200);
      const log = requests.body as RequestLog;
      const lakeEntries = log.entries.filter((e) => e.url === '/v1/query');
      // The two changes; the read is not there, and neither is the refused multi-statement (it changed nothing).
      expect(lakeEntries.map((e) => (e.body as { sql: string }).sql)).toEqual([
        'CREATE TABLE notes (id INT, text VARCHAR)',
        "INSERT INTO notes VALUES (1, 'a'), (2, 'b')",
      ]);
      expect((await lake('SELECT count(*) FROM notes')).json().data).toEqual([['2']]);
      // Never the credentials.
      expect(JSON.stringify(log)).not.toContain(LAKE_AUTH.authorization.slice(6));
      const replay = await replayRequestLog(log);
      try {
        expect(replay.mismatches).toEqual([]);
        expect(replay.host.sim.trace.hash).toBe(f.host.sim.trace.hash);
        const tables = await replay.host.cluster.lake.query('SHOW TABLES');
        const original = await f.host.cluster.lake.query('SHOW TABLES');
        expect(tables.rows).toEqual(original.rows);
      } finally {
        await replay.app.close();
      }
    } finally {
      await f.close();
    }
  });

  it('refuses a change the log has no room for, leaving the simulation as it was', async () => {
    const host = new SimHost(
      { seed: 2, brokers: 1 },
      { requestLogLimits: { maxEntries: 2, maxBytes: 1_000_000 } },
    );
    const app = await createApiServer({ host, pacer: new Pacer(host, { manual: true }) });
    try {
      const step = () => app.inject({ method: 'POST', url: '/sim/step', headers: JSON_TYPE, payload: {} });
      expect((await step()).statusCode).toBe(200);
      expect((await step()).statusCode).toBe(200);
      const before = host.fingerprint();
      const full = await step();
      expect(full.statusCode).toBe(409);
      expect(full.json().message).toMatch(/request log is full/);
      expect(host.fingerprint()).toEqual(before);
      expect(host.log).toHaveLength(2);
      const log = await app.inject({ method: 'GET', url: '/sim/requests' });
      expect(log.statusCode).toBe(200);
      expect(log.json().entries).toHaveLength(2);
    } finally {
      await app.close();
    }
  });
});

describe('stopping', () => {
  it('SIGTERM during a Lake statement stops the server and writes the request log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-stop-'));
    const logFile = join(dir, 'requests.json');
    const child = spawnKafkasim(
      ['serve', '--port', '0', '--paused', '--lake-user', 'u:p', '--record-requests', logFile],
      { stdio: 'pipe' },
    ) as ChildProcessWithoutNullStreams;
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = / at (http:\/\/127\.0\.0\.1:\d+), speed/.exec(out);
        if (m) {
          clearInterval(timer);
          resolve(m[1]!);
        }
      }, 20);
      void exit.then((code) => reject(new Error(`serve exited with ${code}`)));
    });
    expect(out).toContain('Basic auth: u, password from --lake-user');
    const cid = (await call(url, 'GET', '/v3/clusters')).json.data[0].cluster_id;
    expect((await call(url, 'POST', `/v3/clusters/${cid}/topics`, { topic_name: 'kept' })).status).toBe(201);
    const auth = { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` };
    const query = call(
      url,
      'POST',
      '/v1/query',
      { sql: 'SELECT count(*) FROM range(100000000000000)' },
      auth,
    ).then(
      (r) => r.json?.state ?? `HTTP ${r.status}`,
      () => 'connection closed',
    );
    // Let the statement start in DuckDB, then stop the server.
    await new Promise((r) => setTimeout(r, 500));
    const t0 = performance.now();
    child.kill('SIGTERM');
    const code = await exit;
    const stopMs = performance.now() - t0;
    expect(code).toBe(0);
    expect(await query).not.toBe('Succeeded');
    const log = JSON.parse(readFileSync(logFile, 'utf8')) as RequestLog;
    expect(log.entries.map((e) => e.url)).toEqual([`/v3/clusters/${cid}/topics`]);
    console.log(`SIGTERM during a Lake statement: the process exited after ${stopMs.toFixed(0)} ms`);
  }, 180_000);
});
