import { afterEach, describe, expect, it } from 'vitest';
import { Lake, LakeError, type RawSegment } from '../../../models/lake/index.ts';

const clock = { now: 0 };
let lakes: Lake[] = [];
function newLake(): Lake {
  clock.now = 0;
  const lake = new Lake(clock);
  lakes.push(lake);
  return lake;
}
afterEach(async () => {
  for (const l of lakes) await l.close();
  lakes = [];
});

function segment(partition: number, base: number, values: (string | null)[], keys?: string[]): RawSegment {
  return {
    topic: 'events',
    partition,
    baseOffset: base,
    values,
    keys: keys ?? values.map((_, i) => `key-${base + i}`),
    timestamps: values.map((_, i) => Date.UTC(2026, 0, 1) + 1000 + i * 250),
  };
}

const seeds = (n: number) => Array.from({ length: n }, (_, i) => [i * 3 + 11, i * 5 + 7, i * 7 + 3] as const);

async function rowsOf(lake: Lake, sql: string): Promise<(string | null)[][]> {
  return (await lake.query(sql)).rows.map((r) => [...r]);
}

async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LakeError) return err.code;
    throw err;
  }
  return 0;
}

describe('the Lake', () => {
  it('loads DuckDB only when SQL is first asked for', async () => {
    const lake = newLake();
    lake.createRawTable('default', 't');
    lake.writeRaw('default', 't', [segment(0, 0, ['{"a":1}'])], { mode: 'insert', uuidSeeds: seeds(1) });
    expect(lake.engineLoaded).toBe(false);
    expect(lake.pendingWrites).toBe(2);
    expect(await rowsOf(lake, 'SELECT count(*) FROM t')).toEqual([['1']]);
    expect(lake.engineLoaded).toBe(true);
    expect(lake.pendingWrites).toBe(0);
  });

  it('a query sees exactly the writes logged before it was asked, whatever the wall clock does', async () => {
    const lake = newLake();
    lake.createRawTable('default', 't');
    lake.writeRaw('default', 't', [segment(0, 0, ['{"n":1}', '{"n":2}'])], {
      mode: 'insert',
      uuidSeeds: seeds(1),
    });
    const before = lake.query('SELECT count(*) FROM t');
    // Virtual time moves on and the sink writes more before the first answer arrives.
    clock.now = 5000;
    lake.writeRaw('default', 't', [segment(0, 2, ['{"n":3}'])], { mode: 'insert', uuidSeeds: seeds(1) });
    const after = lake.query('SELECT count(*) FROM t');
    expect((await before).rows).toEqual([['2']]);
    expect((await after).rows).toEqual([['3']]);
  });

  it('creates the raw-mode table of bend-ingest-kafka and fills its columns as the service does', async () => {
    const lake = newLake();
    expect(lake.createRawTable('default', 'raw')).toEqual([]);
    expect(lake.createRawTable('default', 'raw')).toEqual([]);
    clock.now = 1500.25;
    lake.writeRaw('default', 'raw', [segment(2, 40, ['{"sequence":40}', null], ['k', ''])], {
      mode: 'insert',
      uuidSeeds: seeds(1),
    });
    const desc = await rowsOf(lake, 'DESC default.raw');
    expect(desc.map((r) => [r[0], r[1]])).toEqual([
      ['uuid', 'VARCHAR'],
      ['koffset', 'BIGINT'],
      ['kpartition', 'INT'],
      ['raw_data', 'VARIANT'],
      ['record_metadata', 'VARIANT'],
      ['add_time', 'TIMESTAMP'],
    ]);
    const r = await lake.query('SELECT * FROM default.raw ORDER BY koffset');
    expect(r.columns.map((c) => c.type)).toEqual([
      'String',
      'Int64',
      'Int32',
      'Variant',
      'Variant',
      'Timestamp',
    ]);
    const [a, b] = r.rows;
    expect(a!.slice(1)).toEqual([
      '40',
      '2',
      '{"sequence":40}',
      '{"topic":"events","partition":2,"offset":40,"key":"k","create_time":"2026-01-01T00:00:01Z"}',
      '2026-01-01 00:00:01.500250',
    ]);
    // An empty value is NULL; a null key is "" (Go's string(nil)); create_time drops trailing zeros.
    expect(b![3]).toBeNull();
    expect(JSON.parse(b![4]!)).toEqual({
      topic: 'events',
      partition: 2,
      offset: 41,
      key: '',
      create_time: '2026-01-01T00:00:01.25Z',
    });
    for (const row of r.rows)
      expect(row[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a![0]).not.toBe(b![0]);
  });

  it('reports a raw table that lacks columns (the service refuses to start on it)', async () => {
    const lake = newLake();
    lake.createTable('default', 'half', [
      { name: 'uuid', type: 'VARCHAR' },
      { name: 'koffset', type: 'BIGINT' },
    ]);
    expect(lake.createRawTable('default', 'half')).toEqual([
      'kpartition',
      'raw_data',
      'record_metadata',
      'add_time',
    ]);
  });

  it('uuids are unique across rows and segments and the same for the same seeds', async () => {
    const a = newLake();
    const b = newLake();
    for (const lake of [a, b]) {
      lake.createRawTable('default', 't');
      const values = Array.from({ length: 500 }, (_, i) => `{"i":${i}}`);
      lake.writeRaw('default', 't', [segment(0, 0, values), segment(1, 0, values)], {
        mode: 'insert',
        uuidSeeds: seeds(2),
      });
    }
    expect(await rowsOf(a, 'SELECT count(DISTINCT uuid) FROM t')).toEqual([['1000']]);
    const q = 'SELECT uuid FROM t ORDER BY kpartition, koffset';
    expect(await rowsOf(a, q)).toEqual(await rowsOf(b, q));
  });

  it('replace mode keeps one row per (koffset, kpartition); the ledger agrees', async () => {
    const lake = newLake();
    lake.createRawTable('default', 't');
    const write = (mode: 'insert' | 'replace', v: string) =>
      lake.writeRaw('default', 't', [segment(0, 0, [v, v])], { mode, uuidSeeds: seeds(1) });
    write('insert', '{"v":1}');
    write('replace', '{"v":2}');
    write('replace', '{"v":3}');
    expect(await rowsOf(lake, "SELECT koffset, raw_data['v'] FROM t ORDER BY koffset")).toEqual([
      ['0', '3'],
      ['1', '3'],
    ]);
    expect(lake.table('default', 't')!.ledger.summary()).toEqual({
      rows: 2,
      distinctRecords: 2,
      duplicateRows: 0,
    });
    write('insert', '{"v":4}');
    expect(lake.rowCount('default', 't')).toBe(4);
    expect(lake.table('default', 't')!.ledger.duplicated('events', 0, 0, 5)).toEqual([
      { topic: 'events', partition: 0, from: 0, to: 1 },
    ]);
  });

  it('JSON-transform rows fill a user table by field name; missing fields are NULL', async () => {
    const lake = newLake();
    lake.createTable('default', 'users', [
      { name: 'id', type: 'BIGINT' },
      { name: 'name', type: 'VARCHAR' },
      { name: 'tags', type: 'JSON' },
    ]);
    lake.writeJson(
      'default',
      'users',
      ['{"id":1,"name":"ann","tags":["a"],"extra":true}', '{"id":"2"}'],
      [{ topic: 'u', partition: 0, baseOffset: 0, count: 2 }],
    );
    expect(await rowsOf(lake, 'SELECT * FROM users ORDER BY id')).toEqual([
      ['1', 'ann', '["a"]'],
      ['2', null, null],
    ]);
    expect(lake.rowCount('default', 'users')).toBe(2);
  });

  it("answers bad SQL with Databend's codes, never a crash, and keeps the file system out of reach", async () => {
    const lake = newLake();
    lake.createRawTable('default', 't');
    expect(await codeOf(lake.query('SELECT * FROM default.nope'))).toBe(1025);
    expect(await codeOf(lake.query('SELECT * FROM nodb.t'))).toBe(1003);
    expect(await codeOf(lake.query('SELECT nope FROM t'))).toBe(1058);
    expect(await codeOf(lake.query('SELECT FROM WHERE'))).toBe(1005);
    expect(await codeOf(lake.query('CREATE TABLE t (a INT)'))).toBe(2302);
    expect(await codeOf(lake.query("SELECT * FROM read_csv('/etc/passwd')"))).toBe(1065);
    expect(await codeOf(lake.query('SELECT 1', { database: 'nodb' }))).toBe(1003);
    // The Lake still works afterwards.
    expect(await rowsOf(lake, 'SELECT 1')).toEqual([['1']]);
  });

  it("follows a client's DDL in the simulation's catalog", async () => {
    const lake = newLake();
    await lake.query('CREATE DATABASE shop');
    await lake.query('CREATE TABLE shop.orders (id Int64, body Variant)');
    expect(lake.hasDatabase('shop')).toBe(true);
    expect(lake.table('shop', 'orders')?.columns).toEqual([
      { name: 'id', type: 'BIGINT' },
      { name: 'body', type: 'JSON' },
    ]);
    await lake.query('DROP TABLE shop.orders');
    expect(lake.table('shop', 'orders')).toBeUndefined();
    const r = await lake.query('USE shop');
    expect(r.database).toBe('shop');
    expect(await rowsOf(lake, 'SHOW TABLES FROM shop')).toEqual([]);
    expect((await rowsOf(lake, 'SHOW DATABASES')).flat()).toEqual(['default', 'information_schema', 'shop']);
  });

  it('DML through SQL reports the rows it changed; an outage flag does not touch SQL', async () => {
    const lake = newLake();
    await lake.query('CREATE TABLE t (a INT)');
    const ins = await lake.query('INSERT INTO t VALUES (1), (2), (3)');
    expect(ins).toMatchObject({ hasResultSet: false, rowsChanged: 3, columns: [] });
    expect((await lake.query('DELETE FROM t WHERE a > 1')).rowsChanged).toBe(2);
    lake.setAvailable(false);
    expect(lake.available).toBe(false);
    expect(await rowsOf(lake, 'SELECT count(*) FROM t')).toEqual([['1']]);
  });
});

describe('interrupt (a server stopping)', () => {
  it('refuses a statement that reaches DuckDB after it, so none runs on into the process exit', async () => {
    const lake = newLake();
    // Sent before the interrupt, but DuckDB is still loading: it reaches the engine after it.
    const queued = lake.query('SELECT count(*) FROM range(100000000000000)');
    lake.interrupt();
    await expect(queued).rejects.toMatchObject({ kind: 'AbortedQuery', message: /Lake is stopping/ });
    await expect(lake.query('SELECT 1')).rejects.toBeInstanceOf(LakeError);
  });
});
