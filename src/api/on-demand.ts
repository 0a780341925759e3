// The HTTP server's entry points for the library: they import the server (fastify, its plugins) when first
// called, so that `import { createCluster } from 'kafkasim'` does not load a web framework it never uses.

import type { RequestLog } from './request-log.ts';
import type { ReplayResult, RunningServer, ServeOptions } from './server.ts';

/** Builds a simulated cluster, serves it over HTTP (REST v3 admin, simulation control) and starts pacing it. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  return (await import('./server.ts')).startServer(options);
}

/** Rebuilds a run from a server's request log (`GET /sim/requests`); with the same seed, the same trace hashes. */
export async function replayRequestLog(log: RequestLog): Promise<ReplayResult> {
  return (await import('./server.ts')).replayRequestLog(log);
}
