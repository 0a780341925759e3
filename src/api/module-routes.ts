// Routes backed by optional models: the auto-balancer under Cruise Control's names (its REST API,
// https://github.com/linkedin/cruise-control/wiki/REST-APIs: GET state, load, partition_load, proposals; POST
// rebalance, here dry runs only) and the Lake's Databend-style SQL endpoint
// (https://docs.databend.com/developer/apis/http: POST /v1/query, GET /health). Without the model they answer 501
// with the reason.
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

  // The Lake answers in Databend's own shapes (its errors included) and checks its own Basic auth (the server's
  // token, when it has one, was checked before: X-Kafkasim-Token carries it here). A statement that changes the
  // Lake (DDL, INSERT, DELETE...) is a change like any other: applied in turn, with the clock held until it is
  // done, and recorded in the request log (the SQL and the session's database, never the credentials), so that
  // a replay runs it at the same point. Reads run alongside the simulation and are not logged.
  const lakeRoute = async (req: FastifyRequest, reply: FastifyReply) => {
    const adapter = lakeOf(ctx.host.world);
    const api = adapter.api;
    const send = (res: { status: number; headers: Record<string, string>; body: string }) =>
      reply.code(res.status).headers(res.headers).send(res.body);
    const path = req.url.split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/query' || !adapter.lake.available)
      return send(
        await api.handle({ method: req.method, path: req.url, headers: req.headers, body: req.body }),
      );
    const who = api.authenticate(req.headers);
    if (typeof who !== 'string') return send(who);
    const body = req.body as { sql: string; session?: { database?: unknown } };
    const database = typeof body.session?.database === 'string' ? body.session.database : undefined;
    let readsOnly: boolean;
    try {
      readsOnly = await adapter.lake.readsOnly(body.sql);
    } catch {
      readsOnly = true; // SQL that does not translate fails before it reaches DuckDB: it changes nothing
    }
    const run = () => api.handle({ method: 'POST', path: '/v1/query', headers: req.headers, body: req.body });
    if (readsOnly) return send(await run());
    const logged = { sql: body.sql, ...(database !== undefined ? { session: { database } } : {}) };
    return send(
      await ctx.host.mutate({ method: 'POST', url: '/v1/query', body: logged }, run, { settle: false }),
    );
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
