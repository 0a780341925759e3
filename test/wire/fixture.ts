// A served simulation with Kafka listeners on free loopback ports, paced to the wall clock, for tests that drive
// it with real clients (kafkajs, kcat, confluent-kafka), plus the HTTP API at `url`.

import { connect } from 'node:net';
import { type RunningServer, startServer } from '../../src/api/server.ts';
import type { WorldOptions } from '../../src/api/world.ts';
import { decodeResponse, encodeRequest } from '../../src/wire/codec/frame.ts';
import type { Message } from '../../src/wire/codec/message-codec.ts';

export interface WireServer {
  server: RunningServer;
  bootstrap: string[];
  /** The HTTP API's base URL. */
  url: string;
  clusterId: string;
  /** Lines the listener logged (closed connections and why). */
  log: string[];
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked against literal expectations
  http(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function wireServer(
  world: WorldOptions = { seed: 1, brokers: 3 },
  speed = 1,
): Promise<WireServer> {
  const log: string[] = [];
  const server = await startServer({
    world,
    port: 0,
    pacer: { speed },
    kafka: { kafkaPort: 0, log: (l) => log.push(l) },
  });
  return {
    server,
    bootstrap: server.kafka!.bootstrap.split(','),
    url: server.url,
    clusterId: server.host.world.clusterId,
    log,
    async http(method, path, body) {
      const r = await fetch(`${server.url}${path}`, {
        method,
        ...(body !== undefined
          ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
          : {}),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    },
    close: () => server.close(),
  };
}

/** Polls `check` every 50 ms until it returns true or `ms` of wall time pass. */
export async function eventually(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * One request on a fresh connection to a listener's `port`, its decoded response body: for APIs no installable
 * client sends, spoken through the codec generated from Kafka's own message definitions.
 */
export function ask(
  port: number,
  apiKey: number,
  version: number,
  body: Message,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    sock.on('error', reject);
    sock.on('data', (d) => {
      data = Buffer.concat([data, d]);
      if (data.length < 4 || data.length < 4 + data.readInt32BE(0)) return;
      const size = data.readInt32BE(0);
      sock.destroy();
      resolve(decodeResponse(apiKey, version, data.subarray(4, 4 + size)).body as Record<string, unknown>);
    });
    sock.write(encodeRequest(apiKey, version, 7, 'kafkasim-test', body));
  });
}
