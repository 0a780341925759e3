import { afterEach, describe, expect, it } from 'vitest';
import { Lake, LakeHttpApi, type LakeHttpResponse } from '../../../models/lake/index.ts';

let lake: Lake;
let api: LakeHttpApi;
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});
const auth = basic('lake', 'lake');

function setup(): void {
  lake = new Lake({ now: 0 }, { users: { lake: 'lake' } });
  api = new LakeHttpApi(lake);
}
afterEach(async () => {
  await lake.close();
});

const post = (body: unknown, headers: Record<string, string> = auth) =>
  api.handle({ method: 'POST', path: '/v1/query', headers, body });
const json = (r: LakeHttpResponse) => JSON.parse(r.body) as Record<string, unknown>;

describe("the Lake's Databend HTTP API", () => {
  it('POST /v1/query: Databend answer, every value a string and NULL as null, then /final ends it', async () => {
    setup();
    const r = await post(
      JSON.stringify({ sql: "SELECT 1 AS a, NULL::VARCHAR AS b, 'x' AS c, 2.5::DOUBLE AS d" }),
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const body = json(r);
    expect(body).toMatchObject({
      state: 'Succeeded',
      error: null,
      has_result_set: true,
      schema: [
        { name: 'a', type: 'Int32' },
        { name: 'b', type: 'String' },
        { name: 'c', type: 'String' },
        { name: 'd', type: 'Float64' },
      ],
      data: [['1', null, 'x', '2.5']],
      session: { database: 'default' },
    });
    const id = body.id as string;
    expect(r.headers['x-databend-query-id']).toBe(id);
    expect(body.stats).toMatchObject({ result_progress: { rows: 1 }, running_time_ms: 0 });
    expect(body.final_uri).toBe(`/v1/query/${id}/final`);
    expect(body.next_uri).toBe(`/v1/query/${id}/final`);
    const fin = await api.handle({ method: 'GET', path: body.next_uri as string, headers: auth });
    expect(json(fin)).toMatchObject({ id, state: 'Succeeded', next_uri: null, data: [] });
    expect((await api.handle({ method: 'GET', path: `/v1/query/${id}`, headers: auth })).status).toBe(404);
  });

  it('pages results by max_rows_per_page and follows next_uri to the end', async () => {
    setup();
    const first = json(
      await post({ sql: 'SELECT * FROM range(5) t(x) ORDER BY x', pagination: { max_rows_per_page: 2 } }),
    );
    const pages = [first.data];
    let next = first.next_uri as string | null;
    while (next) {
      const page = json(await api.handle({ method: 'GET', path: next, headers: auth }));
      pages.push(page.data);
      next = page.next_uri as string | null;
    }
    expect(pages).toEqual([[['0'], ['1']], [['2'], ['3']], [['4']], []]);
  });

  it('401 with Databend error body without credentials, with wrong ones, or with a Bearer token', async () => {
    setup();
    const attempts: Record<string, string>[] = [
      {},
      basic('lake', 'nope'),
      basic('root', ''),
      { authorization: 'Bearer abc' },
    ];
    for (const headers of attempts) {
      const r = await post({ sql: 'SELECT 1' }, headers);
      expect(r.status).toBe(401);
      const e = json(r).error as { code: number; message: string; detail: string };
      expect(e.code).toBe(5100);
      expect(e.message).toMatch(/Authentication failed/);
    }
  });

  it('SQL errors are HTTP 200 with state Failed, an empty id and no URIs', async () => {
    setup();
    const r = await post({ sql: 'SELECT * FROM default.missing' });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({
      id: '',
      state: 'Failed',
      error: { code: 1025 },
      schema: [],
      data: [],
      next_uri: null,
      final_uri: null,
      stats: { scan_progress: { rows: 0, bytes: 0 } },
    });
    expect(json(await post({ sql: 'ATTACH x' })).error).toMatchObject({ code: 1005 });
  });

  it('USE changes the session database in the answer (affect UseDB)', async () => {
    setup();
    await post({ sql: 'CREATE DATABASE d2' });
    const r = json(await post({ sql: 'USE d2', session: { database: 'default', settings: { a: '1' } } }));
    expect(r).toMatchObject({ state: 'Succeeded', affect: { type: 'UseDB', name: 'd2' } });
    expect(r.session).toEqual({ database: 'd2', settings: { a: '1' } });
    await post({ sql: 'CREATE TABLE t (a INT)', session: { database: 'd2' } });
    expect(json(await post({ sql: 'SHOW TABLES', session: { database: 'd2' } })).data).toEqual([['t']]);
  });

  it('GET /health answers ok; bad bodies 400; unknown paths 404; an outage refuses everything', async () => {
    setup();
    expect(await api.handle({ method: 'GET', path: '/health' })).toMatchObject({ status: 200, body: 'ok' });
    expect((await post('not json')).status).toBe(400);
    expect((await post({ query: 'SELECT 1' })).status).toBe(400);
    expect((await api.handle({ method: 'GET', path: '/v1/nothing', headers: auth })).status).toBe(404);
    expect((await api.handle({ method: 'GET', path: '/v1/query', headers: auth })).status).toBe(405);
    lake.setAvailable(false);
    expect((await api.handle({ method: 'GET', path: '/health' })).status).toBe(503);
    expect((await post({ sql: 'SELECT 1' })).status).toBe(503);
  });
});

describe('the plain handler function', () => {
  it('takes (method, path, headers, body) and answers {status, headers, body}', async () => {
    setup();
    const h = api.handler;
    expect(await h('GET', '/health')).toEqual({
      status: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: 'ok',
    });
    const r = await h('POST', '/v1/query', auth, '{"sql":"SELECT 41 + 1 AS answer"}');
    expect(JSON.parse(r.body).data).toEqual([['42']]);
  });
});
