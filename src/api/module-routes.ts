// Routes backed by optional models: the auto-balancer under Cruise Control's names (rest-api.md: GET state,
// load, partition_load, proposals; POST rebalance, here dry runs only) and the Lake's Databend-style SQL
// endpoint (lake-sink.md §1: POST /v1/query, GET /health). Without the model they answer 501 with the reason.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from './context.ts';
import { badRequest } from './errors.ts';
import { balancerOf, lakeOf } from './optional-modules.ts';
import { routeSchema } from './route-schema.ts';

const anyObject = { type: 'object', additionalProperties: true };
const ccQuery = {
  type: 'object',
  additionalProperties: true,
  properties: { json: { type: 'boolean' }, dryrun: { type: 'boolean' } },
};

export function registerModuleRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const cc: [string, string, (a: ReturnType<typeof balancerOf>) => Record<string, unknown>][] = [
    ['state', "The balancer's state (Cruise Control GET state)", (a) => a.state()],
    ['load', 'Per-broker load as the balancer sees it (GET load)', (a) => a.load()],
    ['partition_load', 'Per-partition load (GET partition_load)', (a) => a.partitionLoad()],
    ['proposals', 'The moves the balancer would make now (GET proposals)', (a) => a.proposals()],
  ];
  for (const [name, summary, read] of cc) {
    app.get(
      `/kafkacruisecontrol/${name}`,
      {
        schema: routeSchema({
          summary,
          tags: ['Balancer (Cruise Control names)'],
          querystring: ccQuery,
          ok: { 200: anyObject },
        }),
      },
      async () => read(balancerOf(ctx.host.world)),
    );
  }
  app.post(
    '/kafkacruisecontrol/rebalance',
    {
      schema: routeSchema({
        summary: 'Propose a rebalance (dryrun=true only)',
        description:
          'kafkasim answers dry runs: the moves the balancer would make now. The balancer executes its own moves.',
        tags: ['Balancer (Cruise Control names)'],
        querystring: ccQuery,
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Querystring: { dryrun?: boolean } }>) => {
      const adapter = balancerOf(ctx.host.world);
      if (req.query.dryrun !== true)
        throw badRequest('only dryrun=true is supported: the auto-balancer executes its own moves');
      return adapter.proposals();
    },
  );

  // The Lake answers in Databend's own shapes (its errors included) and checks its own Basic auth; its SQL
  // works on the Lake's tables, outside the simulation's trace, so these requests are not in the request log.
  const lakeRoute = async (req: FastifyRequest, reply: FastifyReply) => {
    const lake = lakeOf(ctx.host.world);
    const res = await lake.handle(req.method, req.url, req.headers, req.body);
    return reply.code(res.status).headers(res.headers).send(res.body);
  };
  const queryId = { type: 'string', minLength: 1, maxLength: 128 };
  const lakeDoc = (summary: string, params?: Record<string, unknown>) =>
    routeSchema({
      summary,
      tags: ['Lake'],
      ...(params
        ? {
            params: {
              type: 'object',
              required: Object.keys(params),
              additionalProperties: false,
              properties: params,
            },
          }
        : {}),
      ok: { 200: { type: 'string', description: "Databend's JSON answer" } },
    });
  app.post(
    '/v1/query',
    {
      schema: {
        ...lakeDoc("Run SQL on the Lake (Databend's HTTP API, Basic auth)"),
        body: {
          type: 'object',
          required: ['sql'],
          properties: {
            sql: { type: 'string', maxLength: 1_000_000 },
            session_id: { type: 'string' },
            session: { type: 'object' },
            pagination: { type: 'object' },
            stage_attachment: { type: 'object' },
          },
        },
      },
    },
    lakeRoute,
  );
  for (const [suffix, summary] of [
    ['', 'Poll a Lake query'],
    ['/final', 'Finish a Lake query'],
    ['/kill', 'Kill a Lake query'],
  ] as const) {
    app.get(`/v1/query/:query_id${suffix}`, { schema: lakeDoc(summary, { query_id: queryId }) }, lakeRoute);
  }
  app.get(
    '/v1/query/:query_id/page/:page',
    {
      schema: lakeDoc('A page of a Lake query', { query_id: queryId, page: { type: 'integer', minimum: 0 } }),
    },
    lakeRoute,
  );

  app.get(
    '/health',
    {
      schema: routeSchema({
        summary: "The Lake's health check (no authentication)",
        tags: ['Lake'],
        ok: { 200: { type: 'string' } },
      }),
    },
    lakeRoute,
  );
}
