// Abuse suite, part 1: strangers are kept out and hostile shapes get 4xx. Each case sends real requests and
// checks the response and the simulation's state before and after (a refused request changes nothing: same
// fingerprint, same request log, same topics). docs/security.md states what these tests hold the server to.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicPath } from '../../src/api/access.ts';
import { createApiServer, Pacer, routesOf, SimHost } from '../../src/api/index.ts';
import { SERVED_LAKE_LIMITS, servedLakeOptions } from '../../src/api/served-lake.ts';
import { loadScenarioText, ScenarioError } from '../../src/scenario/index.ts';
import { spawnKafkasim } from '../kafkasim-process.ts';
import { buildUiOnce } from '../ui/browser-helpers.ts';
import { type Fixture, fixture, LAKE_AUTH } from './fixture.ts';

/** Runs the kafkasim command to its end: exit status and stderr. */
function runKafkasim(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawnKafkasim(args, { stdio: 'pipe' });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, stderr })));
}

const JSON_TYPE = { 'content-type': 'application/json' };
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** What a refused request must leave as it was. */
function stateOf(f: Fixture) {
  return {
    fingerprint: f.host.fingerprint(),
    log: f.host.log.length,
    topics: Object.keys(f.host.cluster.image.topics).sort(),
    configs: JSON.stringify(f.host.cluster.image.configs),
  };
}

/** Every route as a concrete path (parameters filled with values that exist where it matters). */
function concreteRoutes(f: Fixture): { method: string; url: string }[] {
  const values: Record<string, string> = {
    cluster_id: f.cid,
    topic_name: 'abuse',
    partition_id: '0',
    broker_id: '0',
    name: 'retention.ms',
    consumer_group_id: 'g',
    group: 'g',
    query_id: 'q',
    page: '0',
  };
  return routesOf(f.app)
    .filter((r) => !r.url.includes('*'))
    .map((r) => ({
      method: r.method,
      // `configs::alter` is a literal colon, not a parameter.
      url: r.url
        .replace('::', '\u0000')
        .replace(/:(\w+)/g, (_, n: string) => values[n] ?? 'x')
        .replace('\u0000', ':'),
    }));
}

let f: Fixture;
beforeAll(async () => {
  await buildUiOnce();
  f = await fixture({ seed: 20, brokers: 3 }, 's3cret');
  const created = await f.app.inject({
    method: 'POST',
    url: `${f.base}/topics`,
    headers: { authorization: 'Bearer s3cret', ...JSON_TYPE },
    payload: { topic_name: 'abuse', partitions_count: 3, replication_factor: 2 },
  });
  expect(created.statusCode).toBe(201);
});
afterAll(async () => {
  await f.close();
});

/** The token where Authorization carries the Lake's Basic credentials (it works on every route). */
const TOKEN = { 'x-kafkasim-token': 's3cret' };

describe('the token protects every route that reads or changes state', () => {
  it('every route but /health and the UI files answers 401 without it, with a wrong one, and nothing changes', async () => {
    const before = stateOf(f);
    const routes = concreteRoutes(f);
    expect(routes.length).toBeGreaterThan(50);
    for (const r of routes) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { 'x-kafkasim-token': 'wrong' }]) {
        const lake = r.url.startsWith('/v1/') ? LAKE_AUTH : {};
        const res = await f.app.inject({
          method: r.method as 'GET',
          url: r.url,
          headers: { ...lake, ...headers, ...(r.method === 'POST' ? JSON_TYPE : {}) },
          ...(r.method === 'POST' || r.method === 'PUT' ? { payload: '{}' } : {}),
        });
        // /health and the web UI's static files carry no state (docs/security.md).
        if (isPublicPath(r.url)) expect(res.statusCode, r.url).toBe(200);
        else expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
      }
    }
    expect(stateOf(f)).toEqual(before);
  });

  it("the Lake's SQL endpoint needs the token besides its Basic credentials", async () => {
    const sql = { sql: 'SELECT 42 AS answer' };
    const noToken = await f.app.inject({
      method: 'POST',
      url: '/v1/query',
      headers: { ...JSON_TYPE, ...LAKE_AUTH },
      payload: sql,
    });
    expect(noToken.statusCode).toBe(401);
    const withToken = await f.app.inject({
      method: 'POST',
      url: '/v1/query',
      headers: { ...JSON_TYPE, ...LAKE_AUTH, 'x-kafkasim-token': 's3cret' },
      payload: sql,
    });
    expect(withToken.statusCode).toBe(200);
    expect(withToken.json()).toMatchObject({ state: 'Succeeded', data: [['42']] });
    // The token alone is not a Lake user.
    const tokenOnly = await f.app.inject({
      method: 'POST',
      url: '/v1/query',
      headers: { ...JSON_TYPE, authorization: 'Bearer s3cret' },
      payload: sql,
    });
    expect(tokenOnly.statusCode).toBe(401);
    expect(tokenOnly.json().error.message).toMatch(/Authentication failed/);
  });
});

describe('the Lake', () => {
  const lake = (payload: unknown, headers: Record<string, string> = LAKE_AUTH) =>
    f.app.inject({
      method: 'POST',
      url: '/v1/query',
      headers: { ...JSON_TYPE, ...TOKEN, ...headers },
      payload: payload as object,
    });
  const get = (url: string, headers: Record<string, string> = LAKE_AUTH) =>
    f.app.inject({ method: 'GET', url, headers: { ...TOKEN, ...headers } });

  it('does not accept root with an empty password, nor an empty password for any user', async () => {
    for (const headers of [basic('root', ''), basic('lake', ''), basic('', '')]) {
      const r = await lake({ sql: 'SELECT 1' }, headers);
      expect(r.statusCode).toBe(401);
      expect(r.json().error.message).toMatch(/Authentication failed/);
    }
  });

  it('gives unguessable query ids that only their user can follow', async () => {
    f.host.cluster.lake.addUser('other', 'pw-other');
    const a = (await lake({ sql: 'SELECT * FROM range(5)', pagination: { max_rows_per_page: 2 } })).json();
    const b = (await lake({ sql: 'SELECT 1' })).json();
    const uuid4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(a.id).toMatch(uuid4);
    expect(b.id).toMatch(uuid4);
    expect(a.id).not.toBe(b.id);
    // Not a counter: the two ids share no long prefix, as consecutive counters would.
    expect(a.id.slice(0, 8)).not.toBe(b.id.slice(0, 8));
    // Another user: the same 404 as an id that does not exist, on every URI.
    for (const uri of [a.next_uri, a.stats_uri, a.final_uri, a.kill_uri]) {
      const stranger = await get(uri, basic('other', 'pw-other'));
      expect(stranger.statusCode, uri).toBe(404);
      expect(stranger.body).toBe(`query id ${a.id} not found`);
    }
    const missing = await get('/v1/query/00000000-0000-4000-8000-000000000001');
    expect(missing.statusCode).toBe(404);
    // Its own user follows it to the end.
    const page = await get(a.next_uri);
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toEqual([['2'], ['3']]);
  });

  it('runs DuckDB with a memory limit, a thread limit, a locked configuration and no file system', async () => {
    const settings = (
      await lake({ sql: "SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t" })
    ).json();
    expect(settings.state).toBe('Succeeded');
    expect(settings.data).toEqual([['953.6 MiB', String(SERVED_LAKE_LIMITS.threads)]]);
    for (const sql of [
      "SET memory_limit = '100GB'",
      'SET threads = 64',
      "SELECT * FROM read_csv('/etc/passwd')",
      "COPY (SELECT 1) TO '/tmp/kafkasim-abuse.csv'",
      "ATTACH '/tmp/kafkasim-abuse.db' AS x",
      'INSTALL httpfs',
    ]) {
      const r = (await lake({ sql })).json();
      expect(r.state, sql).toBe('Failed');
    }
  });

  it('interrupts a statement past its time limit', async () => {
    const host = new SimHost(
      { seed: 1, brokers: 1 },
      {
        lake: servedLakeOptions({ user: 'u', password: 'p' }, { ...SERVED_LAKE_LIMITS, queryTimeoutMs: 300 }),
      },
    );
    const app = await createApiServer({ host, pacer: new Pacer(host, { manual: true }) });
    try {
      const started = performance.now();
      const r = await app.inject({
        method: 'POST',
        url: '/v1/query',
        headers: { ...JSON_TYPE, ...basic('u', 'p') },
        payload: { sql: 'SELECT count(*) FROM range(100000000000000)' },
      });
      const tookMs = performance.now() - started;
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({
        state: 'Failed',
        error: { message: expect.stringMatching(/Interrupt/i) },
      });
      // The statement would run for hours; it ended with the interrupt (measured, not held to a bound).
      console.log(`lake statement interrupted after ${tookMs.toFixed(0)} ms (limit 300 ms)`);
    } finally {
      await app.close();
    }
  });
});

describe('web pages cannot drive the server', () => {
  it('refuses a Host header that does not name the server (DNS rebinding), changing nothing', async () => {
    const before = stateOf(f);
    for (const host of ['evil.example', 'evil.example:8082', 'localhost.evil.example', '127.0.0.1.nip.io']) {
      const r = await f.app.inject({
        method: 'POST',
        url: '/sim/faults/crash-broker',
        headers: { ...TOKEN, ...JSON_TYPE, host },
        payload: { broker_id: 1 },
      });
      expect(r.statusCode, host).toBe(403);
      expect(r.json().error_code).toBe(403);
    }
    expect(stateOf(f)).toEqual(before);
    for (const host of ['localhost:8082', '127.0.0.1:8082', '[::1]:8082', '10.1.2.3', 'LOCALHOST']) {
      const r = await f.app.inject({ method: 'GET', url: '/sim/clock', headers: { ...TOKEN, host } });
      expect(r.statusCode, host).toBe(200);
    }
  });

  it('--allowed-hosts names more hosts (a leading dot allows subdomains)', async () => {
    const host = new SimHost({ seed: 1, brokers: 1 });
    const app = await createApiServer({
      host,
      pacer: new Pacer(host, { manual: true }),
      allowedHosts: ['sim.example', '.corp.example'],
    });
    try {
      const status = async (h: string) =>
        (await app.inject({ method: 'GET', url: '/sim/clock', headers: { host: h } })).statusCode;
      expect(await status('sim.example:8082')).toBe(200);
      expect(await status('a.corp.example')).toBe(200);
      expect(await status('corp.example')).toBe(200);
      expect(await status('evilcorp.example')).toBe(403);
      expect(await status('sim.example.evil')).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('refuses every POST that is not application/json (what a form or a no-cors fetch can send)', async () => {
    const before = stateOf(f);
    for (const type of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json-patch+json',
    ]) {
      for (const url of ['/sim/faults/crash-broker', '/sim/pause', `${f.base}/topics`, '/v1/query']) {
        const r = await f.app.inject({
          method: 'POST',
          url,
          headers: { ...TOKEN, ...LAKE_AUTH, ...(type ? { 'content-type': type } : {}) },
          payload: '{"broker_id":1,"topic_name":"x","sql":"CREATE TABLE t (a INT)"}',
        });
        expect(r.statusCode, `${url} ${type}`).toBe(415);
        expect(r.json()).toMatchObject({
          error_code: 415,
          message: expect.stringContaining('application/json'),
        });
      }
    }
    expect(stateOf(f)).toEqual(before);
  });
});

describe('hostile shapes get 4xx, never 500', () => {
  const post = (url: string, payload: string) =>
    f.app.inject({ method: 'POST', url, headers: { ...TOKEN, ...JSON_TYPE, ...LAKE_AUTH }, payload });

  it('deeply nested bodies', async () => {
    const before = stateOf(f);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `{"topic_name":"d","configs":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`;
    const deepSession = `{"sql":"SELECT 1","session":${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}}`;
    for (const [url, body] of [
      [`${f.base}/topics`, deep],
      [`${f.base}/topics`, deepObject],
      ['/sim/advance', deep],
      ['/v1/query', deepSession],
    ] as const) {
      const r = await post(url, body);
      expect(r.statusCode, url).toBe(400);
      expect(r.json().message).toMatch(/nested more than 32 levels/);
    }
    expect(stateOf(f)).toEqual(before);
  });

  it('__proto__, constructor and prototype: as JSON keys, as config names, in scenarios and --set', async () => {
    const before = stateOf(f);
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const asKey = await post(`${f.base}/topics`, `{"topic_name":"p","${key}":{"polluted":"yes"}}`);
      expect(asKey.statusCode, key).toBe(400);
      const create = await post(
        `${f.base}/topics`,
        JSON.stringify({ topic_name: 'p', configs: [{ name: key, value: 'x' }] }),
      );
      expect(create.statusCode, key).toBe(400);
      const alter = await post(
        `${f.base}/topics/abuse/configs:alter`,
        JSON.stringify({ data: [{ name: key, value: 'x' }] }),
      );
      expect(alter.statusCode, key).toBe(400);
      const put = await f.app.inject({
        method: 'PUT',
        url: `${f.base}/topics/abuse/configs/${key}`,
        headers: { ...TOKEN, ...JSON_TYPE },
        payload: { value: 'x' },
      });
      expect(put.statusCode, key).toBe(400);
      const yaml = `name: p\ncluster:\n  configs:\n    ${key}: 1\n`;
      const scenario = await post('/sim/scenario', JSON.stringify({ yaml }));
      expect(scenario.statusCode, key).toBe(400);
      expect(scenario.json().message).toContain(`'${key}' is not allowed`);
      expect(() =>
        loadScenarioText('name: s\ntopics:\n  - name: t\n', 's.yaml', { set: [`cluster.configs.${key}=1`] }),
      ).toThrow(ScenarioError);
      expect(() => loadScenarioText('name: s\n', 's.yaml', { set: [`${key}.polluted=1`] })).toThrow(
        /is not allowed/,
      );
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(stateOf(f)).toEqual(before);
    // The image's config dictionaries have no prototype to reach.
    const configs = f.host.cluster.image.configs;
    expect(Object.getPrototypeOf(configs.topic)).toBeNull();
  });

  it('YAML alias bombs: 400 over HTTP, exit 2 from kafkasim validate', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = `name: bomb\n${levels.join('\n')}\n`;
    const before = stateOf(f);
    const r = await post('/sim/scenario', JSON.stringify({ yaml: bomb }));
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/aliases expand to too many nodes/);
    expect(stateOf(f)).toEqual(before);
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-abuse-'));
    writeFileSync(join(dir, 'bomb.yaml'), bomb);
    const validate = await runKafkasim(['validate', join(dir, 'bomb.yaml')]);
    expect(validate.status).toBe(2);
    expect(validate.stderr).toMatch(/aliases expand to too many nodes/);
  });

  it('scenario files: never a server file over HTTP; from the CLI only regular files under the cap', async () => {
    const before = stateOf(f);
    const yaml =
      'name: files\ntopics:\n  - name: t\n    partitions: 1\ntimeline:\n  - at: 1s\n    reassign:\n      file: /etc/passwd\n';
    const r = await post('/sim/scenario', JSON.stringify({ yaml }));
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/cannot read files/);
    expect(stateOf(f)).toEqual(before);
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-abuse-'));
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    writeFileSync(join(dir, 'big.yaml'), `name: big\n# ${'x'.repeat(17 * 1024 * 1024)}\n`);
    for (const [file, message] of [
      ['/dev/zero', /not a regular file/],
      [fifo, /not a regular file/],
      [dir, /not a regular file \(a directory\)/],
      [join(dir, 'big.yaml'), /more than the 16777216 allowed/],
    ] as const) {
      const v = await runKafkasim(['validate', file]);
      expect(v.status, file).toBe(2);
      expect(v.stderr, file).toMatch(message);
    }
  });

  it('405 with Allow for a known path asked with a method it does not serve', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of concreteRoutes(f)) {
      if (!byPath.has(r.url)) byPath.set(r.url, new Set());
      byPath.get(r.url)!.add(r.method);
    }
    let checked = 0;
    for (const [url, methods] of byPath) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        if (methods.has(method)) continue;
        const r = await f.app.inject({
          method: method as 'GET',
          url,
          headers: { ...TOKEN, ...(method === 'POST' ? JSON_TYPE : {}) },
        });
        expect(r.statusCode, `${method} ${url}`).toBe(405);
        expect(String(r.headers.allow).split(', ').sort(), url).toEqual([...methods].sort());
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('strict values: speed, partitions within the topic, no duplicates, no empty partition groups', async () => {
    const before = stateOf(f);
    const put = (payload: unknown) =>
      f.app.inject({
        method: 'PUT',
        url: '/sim/clock/speed',
        headers: { ...TOKEN, ...JSON_TYPE },
        payload: payload as object,
      });
    for (const speed of ['1e3', '0x10', ' 5', '5 ', 'Infinity', 'NaN', '', '-1', '0', '1,5', -1, 0, 20_000])
      expect((await put({ speed })).statusCode, JSON.stringify(speed)).toBe(400);
    const cases: [string, unknown, RegExp][] = [
      [
        '/sim/workloads',
        { kind: 'explicit-producer', topic: 'abuse', count: 10, partition_count: 4 },
        /partition_count 4 is more than topic 'abuse' has \(3\)/,
      ],
      ['/sim/workloads', { kind: 'consumer', topic: 'abuse', partitions: [0, 0] }, /listed twice/],
      ['/sim/workloads', { kind: 'consumer', topic: 'abuse', partitions: [3] }, /partition 3 does not exist/],
      ['/sim/workloads', { kind: 'producer', topic: 'abuse', rate: 10, partition: 7 }, /does not exist/],
      ['/sim/faults/partition', { groups: [[]] }, /fewer than 1 items/],
      ['/sim/faults/partition', { groups: [[0], []] }, /fewer than 1 items/],
      ['/sim/faults/partition', { groups: [[0], [0]] }, /more than one place/],
    ];
    for (const [url, body, message] of cases) {
      const r = await post(url, JSON.stringify(body));
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().message, JSON.stringify(body)).toMatch(message);
    }
    expect(stateOf(f)).toEqual(before);
    expect((await put({ speed: '0.5' })).statusCode).toBe(200);
    expect((await put({ speed: 10 })).statusCode).toBe(200);
    expect((await put({ speed: 'max' })).statusCode).toBe(200);
  });
});
