// Databend's HTTP query API over the Lake, as a plain handler: (method, path, headers, body) -> {status, headers,
// body}. The HTTP server mounts it; tests call it directly. Shapes from Databend's HTTP API
// (https://docs.databend.com/developer/apis/http; databendlabs/databend src/query/service/src/servers/http/v1):
// POST /v1/query with Basic auth, a JSON answer whose values are all strings (null for NULL), SQL errors as HTTP
// 200 with state "Failed", pages of max_rows_per_page rows followed through next_uri until /final answers
// next_uri null; GET /health answers `ok`.
// Left out: Bearer tokens, stage attachments, streaming load, sessions kept on the server (the session object
// is echoed back; USE changes its database), wait_time_secs (every query finishes before the first answer).

import { DatabendErrorCodes, LakeError } from './errors.ts';
import type { Lake, LakeQueryResult } from './lake.ts';

export interface LakeHttpRequest {
  method: string;
  /** Path with an optional query string, e.g. `/v1/query/abc/page/1`. */
  path: string;
  headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The request body: the raw JSON text or an already parsed object. */
  body?: unknown;
}

export interface LakeHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface StoredQuery {
  id: string;
  /** The user that ran it: only they can follow its URIs. */
  user: string;
  sessionId: string;
  session: Record<string, unknown>;
  result: LakeQueryResult;
  /** Databend's `affect`: what the statement changed in the session (USE: {type: UseDB, name}). */
  affect: Record<string, unknown> | null;
  pageSize: number;
  /** Next page to hand out. */
  nextPage: number;
}

const DEFAULT_PAGE_ROWS = 10_000;
/** Finished queries kept for their next_uri / final_uri (the oldest is dropped beyond this). */
const MAX_STORED_QUERIES = 256;
const NODE_ID = 'kafkasim-lake';

export interface LakeHttpApiOptions {
  /**
   * Makes query and session ids. Default: a counter in uuid form (deterministic). A served Lake passes an
   * unguessable one (a crypto-random uuid; randomness has no place in models/).
   */
  newId?: () => string;
}

export class LakeHttpApi {
  private readonly queries = new Map<string, StoredQuery>();
  private counter = 0;
  private readonly newId: () => string;

  constructor(
    private readonly lake: Lake,
    options: LakeHttpApiOptions = {},
  ) {
    this.newId = options.newId ?? (() => this.counterId());
  }

  /** The handler as a plain function (method, path, headers, body) -> {status, headers, body}, for a server. */
  get handler(): (
    method: string,
    path: string,
    headers?: LakeHttpRequest['headers'],
    body?: unknown,
  ) => Promise<LakeHttpResponse> {
    return (method, path, headers, body) => this.handle({ method, path, headers, body });
  }

  async handle(req: LakeHttpRequest): Promise<LakeHttpResponse> {
    const url = new URL(req.path, 'http://lake');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method.toUpperCase();
    if (!this.lake.available)
      return text(
        503,
        'the Lake is unavailable (kafkasim outage: a real client would see connection refused)',
      );
    if (path === '/health') return method === 'GET' ? text(200, 'ok') : text(405, 'method not allowed');
    if (path === '/v1/query') {
      if (method !== 'POST') return text(405, 'method not allowed');
      const who = this.authenticate(req.headers ?? {});
      if (typeof who !== 'string') return who;
      return this.startQuery(req.body, who);
    }
    const m = /^\/v1\/query\/([^/]+)(?:\/(page)\/(\d+)|\/(final)|\/(kill))?$/.exec(path);
    if (m) {
      if (method !== 'GET' && method !== 'POST') return text(405, 'method not allowed');
      const who = this.authenticate(req.headers ?? {});
      if (typeof who !== 'string') return who;
      const q = this.queries.get(m[1]!);
      // Another user's query answers as one that does not exist.
      if (!q || q.user !== who) return text(404, `query id ${m[1]!.slice(0, 128)} not found`);
      if (m[5]) {
        this.queries.delete(q.id);
        return { status: 200, headers: {}, body: '' };
      }
      if (m[4]) {
        this.queries.delete(q.id);
        return json(200, this.body(q, [], 'final'), q.id);
      }
      const page = m[2] ? Number(m[3]) : q.nextPage;
      if (page !== q.nextPage && page !== q.nextPage - 1)
        return text(404, `page ${page} of ${q.id} not found`);
      return json(200, this.pageBody(q, page), q.id);
    }
    return text(404, 'not found');
  }

  /** The authenticated user's name, or the 401 answer (for a host that must know who asks before it runs SQL). */
  authenticate(
    headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  ): string | LakeHttpResponse {
    let auth: string | undefined;
    for (const [k, v] of Object.entries(headers))
      if (k.toLowerCase() === 'authorization') auth = Array.isArray(v) ? v[0] : (v as string | undefined);
    const failure = (message: string): LakeHttpResponse => ({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { code: DatabendErrorCodes.AuthFailure, message, detail: '' } }),
    });
    if (!auth) return failure('[HTTP-QUERY] Authentication failed: no authorization header');
    const m = /^Basic\s+(.+)$/i.exec(auth.trim());
    if (!m) return failure('[HTTP-QUERY] Authentication failed: only Basic authentication is supported');
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    // An empty password is never enough over HTTP (Databend's root has none by default; a served Lake must not).
    if (password === '' || !this.lake.authenticate(user, password))
      return failure(
        `[HTTP-QUERY] Authentication failed: wrong user name or password for '${user.slice(0, 128)}'`,
      );
    return user;
  }

  private async startQuery(rawBody: unknown, user: string): Promise<LakeHttpResponse> {
    let body: unknown = rawBody;
    if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) {
      try {
        body = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
      } catch {
        return text(400, 'bad request body: not JSON');
      }
    }
    if (typeof body !== 'object' || body === null || typeof (body as { sql?: unknown }).sql !== 'string')
      return text(400, 'bad request body: expected {"sql": "..."}');
    const { sql, session, session_id, pagination } = body as {
      sql: string;
      session?: Record<string, unknown>;
      session_id?: string;
      pagination?: { max_rows_per_page?: number };
    };
    const sessionIn: Record<string, unknown> = typeof session === 'object' && session ? { ...session } : {};
    const database = typeof sessionIn.database === 'string' ? sessionIn.database : 'default';
    const sessionId = typeof session_id === 'string' ? session_id : this.nextId();
    try {
      const result = await this.lake.query(sql, { database });
      const id = this.nextId();
      const q: StoredQuery = {
        id,
        user,
        sessionId,
        session: { ...sessionIn, database: result.database },
        result,
        affect: result.database !== database ? { type: 'UseDB', name: result.database } : null,
        pageSize: Math.max(1, Math.floor(pagination?.max_rows_per_page ?? DEFAULT_PAGE_ROWS)),
        nextPage: 0,
      };
      this.queries.set(id, q);
      while (this.queries.size > MAX_STORED_QUERIES) this.queries.delete(this.queries.keys().next().value!);
      return json(200, this.pageBody(q, 0), id);
    } catch (err) {
      const e = err instanceof LakeError ? err : new LakeError('Semantic', String(err));
      // A query that fails at the start has no id, no schema, no data, zero stats and no URIs.
      return json(
        200,
        {
          id: '',
          session_id: sessionId,
          node_id: NODE_ID,
          state: 'Failed',
          session: { ...sessionIn, database },
          error: { code: e.code, message: e.message },
          warnings: [],
          has_result_set: false,
          schema: [],
          data: [],
          affect: null,
          stats: stats(0, 0, 0),
          stats_uri: null,
          final_uri: null,
          next_uri: null,
          kill_uri: null,
        },
        '',
      );
    }
  }

  private pageBody(q: StoredQuery, page: number): Record<string, unknown> {
    const rows = q.result.rows.slice(page * q.pageSize, (page + 1) * q.pageSize);
    q.nextPage = page + 1;
    const more = q.nextPage * q.pageSize < q.result.rows.length;
    return this.body(q, rows, more ? `/v1/query/${q.id}/page/${q.nextPage}` : `/v1/query/${q.id}/final`);
  }

  private body(
    q: StoredQuery,
    data: readonly (readonly (string | null)[])[],
    next: string | 'final',
  ): Record<string, unknown> {
    const r = q.result;
    let bytes = 0;
    for (const row of r.rows) for (const v of row) bytes += v === null ? 1 : v.length;
    return {
      id: q.id,
      session_id: q.sessionId,
      node_id: NODE_ID,
      state: 'Succeeded',
      session: q.session,
      error: null,
      warnings: [],
      has_result_set: r.hasResultSet,
      schema: r.columns.map((c) => ({ name: c.name, type: c.type })),
      data,
      affect: q.affect,
      stats: stats(r.rows.length, bytes, r.rowsChanged),
      stats_uri: `/v1/query/${q.id}`,
      final_uri: `/v1/query/${q.id}/final`,
      next_uri: next === 'final' ? null : next,
      kill_uri: `/v1/query/${q.id}/kill`,
    };
  }

  private nextId(): string {
    return this.newId();
  }

  /** The default ids: counters in uuid form, deterministic, unique per Lake API. */
  private counterId(): string {
    const n = ++this.counter;
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  }
}

function stats(rows: number, bytes: number, written: number): Record<string, unknown> {
  return {
    scan_progress: { rows, bytes },
    write_progress: { rows: written, bytes: 0 },
    result_progress: { rows, bytes },
    // Queries take no virtual time in kafkasim; wall time is not reported (it would break determinism).
    running_time_ms: 0,
  };
}

function json(status: number, body: unknown, queryId: string): LakeHttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-databend-query-id': queryId },
    body: JSON.stringify(body),
  };
}

function text(status: number, body: string): LakeHttpResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}
