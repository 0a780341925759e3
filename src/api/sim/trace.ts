// The trace over HTTP: a live Server-Sent Events stream (text/event-stream, one `trace` event per trace event,
// optionally filtered by kind prefix) and a JSONL download of the recent events the trace keeps in memory.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TraceEvent } from '../../../models/sim/index.ts';
import type { ApiContext } from '../context.ts';
import { routeSchema } from '../route-schema.ts';

const TAGS = ['Trace'];

/** A slow reader makes the server drop events rather than buffer without bound; it is told how many. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const KEEPALIVE_MS = 15_000;

const query = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { type: 'string', maxLength: 200, description: 'only events whose kind starts with this' },
    limit: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
};

export function registerTraceRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const open = new Set<ServerResponse>();
  app.addHook('onClose', async () => {
    for (const raw of open) raw.end();
    open.clear();
  });

  app.get(
    '/sim/trace/stream',
    {
      schema: routeSchema({
        summary: 'Live trace as Server-Sent Events',
        description:
          'Each trace event is an SSE `trace` event whose data is the event as JSON ({"t":..,"kind":..,"node":..,...}). ' +
          'A `dropped` event reports events left out because the reader was too slow; a `world` event says a ' +
          'scenario load replaced the simulation.',
        tags: TAGS,
        querystring: query,
        ok: { 200: { type: 'string', description: 'text/event-stream' } },
      }),
    },
    (req: FastifyRequest<{ Querystring: { kind?: string } }>, reply: FastifyReply) => {
      const prefix = req.query.kind;
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      raw.write(': kafkasim trace stream\nretry: 1000\n\n');
      open.add(raw);
      let dropped = 0;
      const listener = (e: TraceEvent) => {
        if (prefix !== undefined && !e.kind.startsWith(prefix)) return;
        if (raw.writableLength > MAX_BUFFERED_BYTES) {
          dropped++;
          return;
        }
        if (dropped > 0) {
          raw.write(`event: dropped\ndata: ${JSON.stringify({ dropped })}\n\n`);
          dropped = 0;
        }
        raw.write(`event: trace\ndata: ${JSON.stringify(e)}\n\n`);
      };
      let unsubscribe = ctx.host.sim.trace.subscribe(listener);
      const offWorld = ctx.host.onWorldChange((world) => {
        unsubscribe();
        unsubscribe = world.sim.trace.subscribe(listener);
        raw.write(
          `event: world\ndata: ${JSON.stringify({ cluster_id: world.clusterId, seed: world.sim.seed })}\n\n`,
        );
      });
      const keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      const cleanup = () => {
        clearInterval(keepalive);
        unsubscribe();
        offWorld();
        open.delete(raw);
      };
      raw.on('close', cleanup);
      raw.on('error', cleanup);
    },
  );

  app.get(
    '/sim/trace.jsonl',
    {
      schema: routeSchema({
        summary: 'Recent trace events as JSON Lines (a download)',
        description: 'The events the trace still keeps in memory (its ring buffer), oldest first.',
        tags: TAGS,
        querystring: query,
        ok: { 200: { type: 'string', description: 'application/x-ndjson' } },
      }),
    },
    async (req: FastifyRequest<{ Querystring: { kind?: string; limit?: number } }>, reply: FastifyReply) => {
      const sim = ctx.host.sim;
      let events = sim.trace.recent(req.query.kind);
      if (req.query.limit !== undefined) events = events.slice(-req.query.limit);
      const text = events.map((e) => `${JSON.stringify(e)}\n`).join('');
      return reply
        .type('application/x-ndjson')
        .header(
          'content-disposition',
          `attachment; filename="kafkasim-trace-${sim.seed.replace(/[^\w.-]/g, '_')}.jsonl"`,
        )
        .send(text);
    },
  );
}
