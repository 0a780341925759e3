// A served simulation in manual mode (the clock moves only through requests) and an inject helper.
import type { FastifyInstance } from 'fastify';
import { createApiServer, Pacer, SimHost, type WorldOptions } from '../../src/api/index.ts';
import { servedLakeOptions } from '../../src/api/served-lake.ts';

/** The served Lake's user in fixtures (`-u lake:lake`, as the source workflow's ingestion config names it). */
export const LAKE_AUTH = { authorization: `Basic ${Buffer.from('lake:lake').toString('base64')}` };

/** A parsed JSON body: tests read it field by field and compare with expected values. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked against literal expectations, not typed
type Json = any;

export interface Fixture {
  host: SimHost;
  pacer: Pacer;
  app: FastifyInstance;
  cid: string;
  /** `/v3/clusters/<id>` */
  base: string;
  call(
    method: string,
    url: string,
    payload?: unknown,
  ): Promise<{ status: number; body: Json; headers: Record<string, unknown>; text: string }>;
  close(): Promise<void>;
}

export async function fixture(
  world: WorldOptions = { seed: 1, brokers: 3 },
  token?: string,
): Promise<Fixture> {
  const host = new SimHost(world, { lake: servedLakeOptions({ user: 'lake', password: 'lake' }) });
  const pacer = new Pacer(host, { manual: true });
  const app = await createApiServer({ host, pacer, ...(token !== undefined ? { token } : {}) });
  const cid = host.world.clusterId;
  return {
    host,
    pacer,
    app,
    cid,
    base: `/v3/clusters/${cid}`,
    async call(method, url, payload) {
      // Every POST is JSON (the server refuses anything else); a body-less one sends an empty JSON body.
      const r = await app.inject({
        method: method as 'GET',
        url,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/json' } } : {}),
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });
      let body: unknown;
      try {
        body = r.json();
      } catch {
        body = undefined;
      }
      return { status: r.statusCode, body, headers: r.headers, text: r.body };
    },
    close: () => app.close(),
  };
}
