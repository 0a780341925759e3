// The live trace over a real loopback socket: Server-Sent Events arrive while the paced simulation runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/api/index.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ world: { seed: 4, brokers: 3 }, pacer: { speed: 100 }, port: 0 });
});
afterAll(async () => {
  await server.close();
});

interface SseEvent {
  event: string;
  data: string;
}

/**
 * Reads SSE events from a stream until `count` of the wanted type arrived. `onOpen` runs once the server has
 * answered the headers (so the stream is subscribed): what it triggers is on the stream.
 */
async function readEvents(
  url: string,
  count: number,
  onOpen: () => void,
  type = 'trace',
): Promise<{ events: SseEvent[]; contentType: string | null }> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  onOpen();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: SseEvent[] = [];
  try {
    while (events.filter((e) => e.event === type).length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) events.push({ event, data });
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    controller.abort();
  }
  return { events, contentType: res.headers.get('content-type') };
}

describe('trace event stream (SSE)', () => {
  it('streams trace events as the simulation runs', async () => {
    const cid = server.host.world.clusterId;
    const res = await fetch(`${server.url}/v3/clusters/${cid}/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic_name: 'sse', partitions_count: 2 }),
    });
    expect(res.status).toBe(201);
    const start = server.host.sim.now;
    // Crash a broker, then restart it: the controller fences it, elects leaders, registers it again, over
    // virtual seconds that the pacer runs while the stream is read.
    const fault = (path: string, brokerId: number) =>
      fetch(`${server.url}/sim/faults/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ broker_id: brokerId }),
      });
    const { events, contentType } = await readEvents(`${server.url}/sim/trace/stream`, 6, () => {
      void fault('crash-broker', 2).then(() => setTimeout(() => void fault('restart-broker', 2), 250));
    });
    expect(contentType).toBe('text/event-stream; charset=utf-8');
    const trace = events.filter((e) => e.event === 'trace').map((e) => JSON.parse(e.data));
    expect(trace.length).toBeGreaterThanOrEqual(6);
    expect(trace.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['node.crash', 'controller.fence', 'node.start']),
    );
    for (const e of trace) {
      expect(typeof e.kind).toBe('string');
      expect(e.t).toBeGreaterThanOrEqual(start);
    }
    for (let i = 1; i < trace.length; i++) expect(trace[i].t).toBeGreaterThanOrEqual(trace[i - 1].t);
  });

  it('filters by kind prefix', async () => {
    const { events } = await readEvents(`${server.url}/sim/trace/stream?kind=node.`, 2, () => {
      void fetch(`${server.url}/sim/faults/restart-broker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ broker_id: 1 }),
      });
    });
    const trace = events.filter((e) => e.event === 'trace').map((e) => JSON.parse(e.data));
    expect(trace.length).toBe(2);
    expect(trace.map((e) => e.kind)).toEqual(['node.crash', 'node.start']);
    expect(trace.every((e) => e.node === 'broker-1')).toBe(true);
  });

  it('filters by several kind prefixes, separated by commas (the web UI asks for the control plane only)', async () => {
    const { events } = await readEvents(
      `${server.url}/sim/trace/stream?kind=node.start,node.crash`,
      2,
      () => {
        void fetch(`${server.url}/sim/faults/restart-broker`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ broker_id: 1 }),
        });
      },
    );
    const trace = events.filter((e) => e.event === 'trace').map((e) => JSON.parse(e.data));
    expect(trace.map((e) => e.kind)).toEqual(['node.crash', 'node.start']);
    const jsonl = await (await fetch(`${server.url}/sim/trace.jsonl?kind=node.start,node.crash`)).text();
    const kinds = new Set(
      jsonl
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).kind),
    );
    expect(kinds).toEqual(new Set(['node.crash', 'node.start']));
  });

  it('refuses a bad query with the error body', async () => {
    const res = await fetch(`${server.url}/sim/trace/stream?limit=0`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_code: number }).error_code).toBe(400);
  });
});
