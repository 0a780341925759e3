// The HTTP server: fastify with every route's JSON Schema (requests validated, responses shaped, the OpenAPI
// document generated from them at /openapi.json and browsable at /docs), one error body for every failure,
// optional bearer-token auth (every route but /health), a body size limit, and loopback by default.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { packageVersion } from '../package-files.ts';
import {
  KafkaListener,
  type KafkaListenerOptions,
  type ListenerAddresses,
  WIRE_LOG_METHOD,
  WireReplay,
} from '../wire/index.ts';
import { installAccessControl, notFoundOrWrongMethod } from './access.ts';
import type { ApiContext } from './context.ts';
import { ApiError, type ErrorBody, isKafkaError, restErrorOf } from './errors.ts';
import { SimHost } from './host.ts';
import { registerMetricsRoute } from './metrics.ts';
import { registerModuleRoutes } from './module-routes.ts';
import { Pacer, type PacerOptions } from './pacer.ts';
import { REQUEST_LOG_LIMITS, type RequestLog, type RequestLogEntry, TOOL_HEADER } from './request-log.ts';
import { noBody } from './route-schema.ts';
import { generatedLakeCredentials, type LakeCredentials, servedLakeOptions } from './served-lake.ts';
import { registerBranchRoutes } from './sim/branches.ts';
import { registerClockRoutes } from './sim/clock.ts';
import { registerFaultRoutes } from './sim/faults.ts';
import { registerLessonRoutes } from './sim/lesson.ts';
import { registerRequestFaultRoutes } from './sim/request-faults.ts';
import { registerSnapshotRoute } from './sim/snapshot.ts';
import { registerStateRoutes } from './sim/state.ts';
import { registerTraceRoutes } from './sim/trace.ts';
import type { SseLimits } from './sim/trace-stream.ts';
import { registerWorkloadRoutes } from './sim/workloads.ts';
import { registerUiRoutes } from './ui/static.ts';
import { registerClusterRoutes } from './v3/clusters.ts';
import { registerConfigRoutes } from './v3/configs.ts';
import { registerGroupRoutes } from './v3/groups.ts';
import { registerPartitionRoutes } from './v3/partitions.ts';
import { registerReassignmentRoutes } from './v3/reassignments.ts';
import { registerTopicRoutes } from './v3/topics.ts';
import type { WorldOptions } from './world.ts';

export const DEFAULT_PORT = 8082;
export const DEFAULT_HOST = '127.0.0.1';
/** Largest request body accepted (a scenario upload is the biggest legitimate one). */
export const BODY_LIMIT = 1024 * 1024;

export interface ApiServerOptions {
  host: SimHost;
  pacer: Pacer;
  /** When set, every route but /health needs `Authorization: Bearer <token>` (or `X-Kafkasim-Token`). */
  token?: string;
  /** Host names the Host header may carry beyond loopback names, IP literals and `listenHost`. */
  allowedHosts?: readonly string[];
  /** The address the server listens on. */
  listenHost?: string;
  /** Limits on live trace clients (tests lower them). */
  sseLimits?: Partial<SseLimits>;
  bodyLimit?: number;
  logger?: boolean;
}

export interface RouteInfo {
  method: string;
  url: string;
}

const routeLists = new WeakMap<FastifyInstance, RouteInfo[]>();

/** Every route the server registered (methods and URL patterns), e.g. for tests that visit them all. */
export function routesOf(app: FastifyInstance): RouteInfo[] {
  return routeLists.get(app) ?? [];
}

function errorReply(status: number, body: ErrorBody) {
  return { status, body };
}

/** The status and body for anything a handler or fastify threw. */
export function errorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof ApiError) return errorReply(err.statusCode, err.body());
  if (isKafkaError(err)) {
    const e = restErrorOf(err);
    return errorReply(e.statusCode, e.body());
  }
  const fe = err as FastifyError;
  if (fe?.validation) {
    // A body sent to a route that takes none (noBody): say so, rather than ajv's "more than 0 properties".
    const bodyless = fe.validation.some(
      (v) =>
        v.keyword === 'maxProperties' &&
        v.instancePath === '' &&
        (v.params as { limit?: number }).limit === 0,
    );
    const message = bodyless ? 'this endpoint takes no request body: send none (or {})' : fe.message;
    return errorReply(400, { error_code: 400, message });
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) return errorReply(status, { error_code: status, message: fe.message });
  return errorReply(500, {
    error_code: 500,
    message: `Internal Server Error: ${fe?.message ?? String(err)}`,
  });
}

/** Builds the server for a host (not listening yet: call `listen`, or use `inject` in tests). */
export async function createApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? BODY_LIMIT,
    forceCloseConnections: true,
    return503OnClosing: true,
    // Errors the router raises before any route runs (a URL that does not decode) get the same body.
    frameworkErrors: (error, _req, reply) => {
      const { status, body } = errorResponse(error);
      void (reply as unknown as { code(n: number): { send(b: unknown): void } }).code(status).send(body);
    },
  });
  const routes: RouteInfo[] = [];
  routeLists.set(app, routes);
  app.addHook('onRoute', (r) => {
    const methods = [r.method].flat();
    for (const method of methods) if (method !== 'HEAD') routes.push({ method, url: r.url });
    // A route that takes no body still validates one: anything sent (but an empty body or null) is refused.
    if (r.schema && !r.schema.body && methods.some((m) => m !== 'GET' && m !== 'HEAD'))
      r.schema.body = noBody;
  });

  // Path and query parameters arrive as strings and are coerced to the schema's types; bodies are JSON and
  // must already have the right types.
  const coercing = new Ajv({
    coerceTypes: 'array',
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    allErrors: false,
  });
  const strictBodies = new Ajv({
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    allErrors: false,
  });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strictBodies : coercing).compile(schema as object),
  );

  app.setErrorHandler((err, req, reply) => {
    const { status, body } = errorResponse(err);
    if (status >= 500) req.log.error(err);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler(notFoundOrWrongMethod(app));

  installAccessControl(app, {
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.listenHost !== undefined ? { listenHost: options.listenHost } : {}),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'kafkasim HTTP API',
        version: packageVersion(),
        description:
          'A simulated Kafka-compatible cluster: Confluent REST v3 admin (/v3), simulation control (/sim), ' +
          "the Lake's SQL endpoint (/v1/query), Cruise Control names for the auto-balancer (/kafkacruisecontrol) " +
          'and Prometheus metrics (/metrics). Errors are {"error_code": N, "message": "..."}.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      ...(options.token !== undefined ? { security: [{ bearer: [] }] } : {}),
    },
  });

  const ctx: ApiContext = { host: options.host, pacer: options.pacer };
  registerClusterRoutes(app, ctx);
  registerTopicRoutes(app, ctx);
  registerPartitionRoutes(app, ctx);
  registerConfigRoutes(app, ctx);
  registerReassignmentRoutes(app, ctx);
  registerGroupRoutes(app, ctx);
  registerClockRoutes(app, ctx);
  registerFaultRoutes(app, ctx);
  registerRequestFaultRoutes(app, ctx);
  registerWorkloadRoutes(app, ctx);
  registerLessonRoutes(app, ctx);
  registerTraceRoutes(app, ctx, options.sseLimits);
  registerStateRoutes(app, ctx);
  const branches = registerBranchRoutes(app, ctx, async (world) => {
    const host = new SimHost(world, options.host.hostOptions);
    const replayApp = await createApiServer({ host, pacer: new Pacer(host, { manual: true }) });
    const apply = logEntryApplier(host, replayApp);
    return { host, applied: 0, apply, close: () => replayApp.close() };
  });
  registerSnapshotRoute(app, ctx, (atMs) => branches.snapshotAt(branches.active, atMs));
  registerMetricsRoute(app, ctx);
  registerModuleRoutes(app, ctx);
  registerUiRoutes(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.addHook('onClose', async () => options.pacer.close());
  await app.ready();
  return app;
}

export interface ServeOptions {
  world: WorldOptions;
  pacer?: PacerOptions;
  listenHost?: string;
  port?: number;
  token?: string;
  /** Host names (beyond loopback names and IP literals) the Host header may carry. */
  allowedHosts?: readonly string[];
  /** The Lake's user; default `root` with a generated password. */
  lakeCredentials?: LakeCredentials;
  logger?: boolean;
  /** Kafka wire-protocol listeners (one port per broker, plus the controller's). */
  kafka?: KafkaListenerOptions;
  /** Bytes the request log may hold (default REQUEST_LOG_LIMITS.maxBytes); its entry limit grows with it. */
  requestLogMaxBytes?: number;
}

/** The request log's limits for a byte budget: the default entry limit, scaled up with a larger budget. */
export function requestLogLimitsFor(maxBytes: number): { maxBytes: number; maxEntries: number } {
  const { maxEntries, maxBytes: defaultBytes } = REQUEST_LOG_LIMITS;
  return { maxBytes, maxEntries: Math.max(maxEntries, Math.floor((maxEntries * maxBytes) / defaultBytes)) };
}

export interface RunningServer {
  app: FastifyInstance;
  host: SimHost;
  pacer: Pacer;
  /** http://host:port the server listens on. */
  url: string;
  /** The Lake's Basic-auth user (print it: a generated password is known nowhere else). */
  lakeCredentials: LakeCredentials;
  /** The Kafka listeners' ports, when `kafka` was given. */
  kafka?: ListenerAddresses;
  close(): Promise<void>;
}

/**
 * Stops a server: long requests stop at their next slice, a Lake statement is interrupted, connections are
 * closed. Resolves within a second whatever was running (a close that takes longer is left behind).
 */
export async function closeServer(app: FastifyInstance, host: SimHost): Promise<void> {
  host.closing = true;
  host.world.cluster.lake.interrupt();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 900);
    timer.unref();
  });
  try {
    await Promise.race([app.close(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the world, the server and the pacer, listens, and starts pacing. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const lakeCredentials = options.lakeCredentials ?? generatedLakeCredentials();
  const host = new SimHost(options.world, {
    lake: servedLakeOptions(lakeCredentials),
    ...(options.requestLogMaxBytes !== undefined
      ? { requestLogLimits: requestLogLimitsFor(options.requestLogMaxBytes) }
      : {}),
  });
  const pacer = new Pacer(host, options.pacer);
  const listenHost = options.listenHost ?? DEFAULT_HOST;
  const app = await createApiServer({
    host,
    pacer,
    listenHost,
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  const address = await app.listen({
    host: listenHost,
    port: options.port ?? DEFAULT_PORT,
  });
  let listener: KafkaListener | undefined;
  let kafka: ListenerAddresses | undefined;
  if (options.kafka) {
    listener = new KafkaListener(host, options.kafka);
    try {
      kafka = await listener.start();
    } catch (e) {
      await listener.close();
      await app.close();
      throw e;
    }
  }
  pacer.start();
  const url = address.replace('[::1]', 'localhost');
  const close = async () => {
    await listener?.close();
    await closeServer(app, host);
  };
  return { app, host, pacer, url, lakeCredentials, ...(kafka ? { kafka } : {}), close };
}

export interface ReplayResult {
  host: SimHost;
  app: FastifyInstance;
  /** Entries whose trace hash after the replayed request differs from the recorded one. */
  mismatches: { seq: number; expected: string; actual: string }[];
}

/**
 * Replays a request log against a fresh world built from the same options: each request is applied where the
 * log says it was (events executed, virtual time), through the same routes. With the same seed the trace hash
 * after every request matches the recorded one.
 */
export async function replayRequestLog(log: RequestLog): Promise<ReplayResult> {
  const host = new SimHost(log.world, { lake: servedLakeOptions(generatedLakeCredentials()) });
  const pacer = new Pacer(host, { manual: true });
  const app = await createApiServer({ host, pacer });
  const mismatches: ReplayResult['mismatches'] = [];
  const apply = logEntryApplier(host, app);
  for (const entry of log.entries) {
    host.positionAt(entry.events, entry.t);
    await apply(entry);
    const actual = host.sim.trace.hash;
    if (entry.hashAfter !== undefined && actual !== entry.hashAfter)
      mismatches.push({ seq: entry.seq, expected: entry.hashAfter, actual });
  }
  return { host, app, mismatches };
}

/**
 * What applies one logged request to a host positioned where the log says (replayRequestLog, and the replays
 * that rewind and branch a served simulation): through the same routes, a Lake statement as the Lake's own
 * user, a Kafka wire request through the wire replay.
 */
export function logEntryApplier(
  host: SimHost,
  app: FastifyInstance,
): (entry: RequestLogEntry) => Promise<void> {
  const wire = new WireReplay(host);
  return async (entry) => {
    if (entry.url === '/v1/query') await replayLakeStatement(host, entry);
    else if (entry.method === WIRE_LOG_METHOD) await wire.apply(entry.url, entry.body as never);
    else
      await app.inject({
        method: entry.method as 'POST',
        url: entry.url,
        headers: {
          'content-type': 'application/json',
          ...(entry.tool !== undefined ? { [TOOL_HEADER]: entry.tool } : {}),
        },
        ...(entry.body !== undefined ? { payload: JSON.stringify(entry.body) } : {}),
      });
  };
}

/** A logged Lake statement, run as the Lake's own user would (the log keeps no credentials). */
async function replayLakeStatement(host: SimHost, entry: RequestLogEntry): Promise<void> {
  const body = entry.body as { sql: string; session?: { database?: string } };
  const database = body.session?.database;
  await host.mutate(
    entry,
    async () => {
      try {
        await host.world.cluster.lake.query(body.sql, database !== undefined ? { database } : {});
      } catch {
        // It failed when it was first run too (the same statement on the same Lake).
      }
    },
    { settle: false },
  );
}
