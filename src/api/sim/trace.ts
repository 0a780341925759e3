// The trace over HTTP: a live Server-Sent Events stream (text/event-stream, one `trace` event per trace event,
// optionally filtered by kind prefix) and a JSONL download of the recent events the trace keeps in memory.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.ts';
import { routeSchema } from '../route-schema.ts';
import { SSE_LIMITS, type SseLimits, TraceStreams } from './trace-stream.ts';

const TAGS = ['Trace'];

const query = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: {
      type: 'string',
      maxLength: 400,
      description:
        'only events whose kind starts with this; several prefixes separated by commas (e.g. controller.,raft.)',
    },
    limit: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
};

/** The kind prefixes a `kind` query names (comma-separated); undefined for every event. */
function kindPrefixes(kind: string | undefined): string[] | undefined {
  return kind === undefined ? undefined : kind.split(',');
}

const streamsByApp = new WeakMap<FastifyInstance, TraceStreams>();

/** The live trace's clients of a server (for tests and monitoring). */
export function traceStreamsOf(app: FastifyInstance): TraceStreams | undefined {
  return streamsByApp.get(app);
}

export function registerTraceRoutes(
  app: FastifyInstance,
  ctx: ApiContext,
  limits: Partial<SseLimits> = {},
): void {
  const streams = new TraceStreams(ctx.host, limits);
  streamsByApp.set(app, streams);
  app.addHook('onClose', async () => streams.close());

  app.get(
    '/sim/trace/stream',
    {
      schema: routeSchema({
        summary: 'Live trace as Server-Sent Events',
        description:
          'Each trace event is an SSE `trace` event whose data is the event as JSON ({"t":..,"kind":..,"node":..,...}). ' +
          'A `dropped` event reports events left out because the reader was too slow; a `world` event says a ' +
          `scenario load replaced the simulation. At most ${SSE_LIMITS.maxClients} streams at once (429 beyond); ` +
          `a reader that falls ${SSE_LIMITS.maxBufferedBytes / 1024 / 1024} MiB behind loses events, and one that ` +
          `stops reading for ${SSE_LIMITS.stallMs / 1000} s is disconnected.`,
        tags: TAGS,
        querystring: query,
        ok: { 200: { type: 'string', description: 'text/event-stream' } },
      }),
    },
    (req: FastifyRequest<{ Querystring: { kind?: string } }>, reply: FastifyReply) => {
      if (streams.full)
        return reply.code(429).send({
          error_code: 429,
          message: `Too Many Requests: at most ${SSE_LIMITS.maxClients} trace streams at once`,
        });
      reply.hijack();
      streams.add(reply.raw, kindPrefixes(req.query.kind));
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
      const prefixes = kindPrefixes(req.query.kind);
      let events = sim.trace.recent();
      if (prefixes) events = events.filter((e) => prefixes.some((p) => e.kind.startsWith(p)));
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
