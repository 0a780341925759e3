// The live trace over real loopback sockets, with clients that go away mid-stream: they close their socket
// (FIN), reset it (destroy), or abort a fetch, while the paced simulation writes a burst of events to them (a
// 2,000-partition create). The server forgets each one (no client, no trace subscription, no socket left), keeps
// answering /health, keeps running the simulation, and serves the next stream as before. Memory is printed, not
// held to a bound (the machine is shared); what is asserted is what the server still holds.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';
import { traceStreamsOf } from '../../src/api/sim/trace.ts';

let server: RunningServer;
let port: number;
beforeAll(async () => {
  server = await startServer({ world: { seed: 6, brokers: 3 }, pacer: { speed: 1000 }, port: 0 });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
});

/** A raw HTTP/1.1 request with Connection: close; resolves with the status and the whole answer. */
function rawRequest(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n` +
          (body === undefined
            ? '\r\n'
            : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`),
      );
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

/** Opens a stream on a raw socket and resolves once `events` trace events arrived (0: once the headers did). */
function openStream(events: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /sim/trace/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    });
    let text = '';
    let done = false;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      if (done) return;
      text += chunk;
      if (!text.startsWith('HTTP/1.1 200')) {
        done = true;
        reject(new Error(`stream refused: ${text.slice(0, 80)}`));
      } else if (text.split('event: trace\n').length - 1 >= events) {
        done = true;
        resolve(socket);
      }
    });
    socket.on('error', (err) => {
      if (!done) reject(err);
    });
  });
}

/** Waits (wall time) until `check` holds, or 10 s. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

const connections = () =>
  new Promise<number>((resolve, reject) =>
    server.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );

describe('SSE: clients that drop the connection', () => {
  it('are forgotten, mid-burst, by FIN, reset or abort; the server keeps working', async () => {
    const streams = traceStreamsOf(server.app)!;
    const trace = () => server.host.sim.trace;
    const listenersBefore = trace().listenerCount;
    const cid = server.host.world.clusterId;
    const rssBefore = process.memoryUsage().rss;
    const simBefore = server.host.sim.now;
    let dropped = 0;
    for (let round = 0; round < 5; round++) {
      // 30 streams open; then a burst of events, and they leave while it is written.
      const sockets = await Promise.all(Array.from({ length: 30 }, () => openStream(0)));
      expect(streams.size).toBe(30);
      const created = rawRequest('POST', `/v3/clusters/${cid}/topics`, {
        topic_name: `burst-${round}`,
        partitions_count: 2000,
        replication_factor: 1,
      });
      sockets.forEach((s, i) => {
        if (i % 2 === 0) s.destroy();
        else s.end();
      });
      // A fetch whose reader aborts once events arrive.
      const controller = new AbortController();
      const res = await fetch(`${server.url}/sim/trace/stream`, { signal: controller.signal });
      expect(res.status).toBe(200);
      await res.body!.getReader().read();
      controller.abort();
      expect((await created).status).toBe(201);
      dropped += 31;
      await until(() => streams.size === 0);
      expect(streams.size).toBe(0);
    }
    // Nothing of the 155 clients is left: no client, no trace subscription, no socket.
    expect(trace().listenerCount).toBe(listenersBefore);
    await until(async () => (await connections()) === 0);
    expect(await connections()).toBe(0);
    // The server still answers and the simulation still runs.
    const health = await rawRequest('GET', '/health');
    expect(health.status).toBe(200);
    expect(server.host.sim.now).toBeGreaterThan(simBefore);
    // A new stream gets events as before: a restarted broker's crash and start.
    const socket = await openStream(0);
    try {
      const got = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('"kind":"node.start"')) resolve(text);
        });
      });
      expect((await rawRequest('POST', '/sim/faults/restart-broker', { broker_id: 1 })).status).toBeLessThan(
        300,
      );
      expect(await got).toContain('"kind":"node.crash"');
      expect(streams.size).toBe(1);
    } finally {
      socket.destroy();
    }
    await until(() => streams.size === 0);
    expect(trace().listenerCount).toBe(listenersBefore);
    console.log(
      `${dropped} SSE clients dropped mid-stream: RSS ${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB more`,
    );
  }, 120_000);
});
