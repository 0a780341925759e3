import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { databendTypeName, translate } from '../../../models/lake/dialect.ts';
import { LakeError } from '../../../models/lake/index.ts';

const q = (sql: string) => {
  const s = translate(sql);
  if (s.kind !== 'query') throw new Error(`not a query: ${s.kind}`);
  return s.sql;
};

function errorOf(sql: string): LakeError {
  try {
    translate(sql);
  } catch (err) {
    if (err instanceof LakeError) return err;
    throw err;
  }
  throw new Error(`no error for ${sql}`);
}

describe('Databend dialect -> DuckDB', () => {
  it("rewrites the guide's totals query: default quoted, UInt64 mapped, counts cast and named", () => {
    expect(
      q(
        "SELECT count(*) AS total_rows, count(DISTINCT raw_data['sequence']::UInt64) AS distinct_sequences, min(raw_data['sequence']::UInt64) AS min_sequence FROM default.t",
      ),
    ).toBe(
      `SELECT CAST(count(*) AS UBIGINT) AS total_rows, CAST(count(DISTINCT raw_data['sequence']::UBIGINT) AS UBIGINT) AS distinct_sequences, min(raw_data['sequence']::UBIGINT) AS min_sequence FROM "default".t`,
    );
  });

  it('names a bare count item as Databend does and leaves ORDER BY / HAVING items unnamed', () => {
    expect(
      q('SELECT kpartition, count(*) FROM t GROUP BY kpartition HAVING count(*) > 1 ORDER BY a, count(*)'),
    ).toBe(
      'SELECT kpartition, CAST(count(*) AS UBIGINT) AS "count(*)" FROM t GROUP BY kpartition HAVING CAST(count(*) AS UBIGINT) > 1 ORDER BY a, CAST(count(*) AS UBIGINT)',
    );
    expect(q('SELECT (SELECT count(*) FROM t) AS n')).toBe(
      'SELECT (SELECT CAST(count(*) AS UBIGINT) AS "count(*)" FROM t) AS n',
    );
    expect(q('SELECT count(*) OVER (PARTITION BY a) FROM t')).toBe(
      'SELECT CAST(count(*) OVER (PARTITION BY a) AS UBIGINT) AS "count(*) OVER (PARTITION BY a)" FROM t',
    );
  });

  it('answers version() with a Databend version string', () => {
    expect(q('SELECT version()')).toBe(`SELECT 'DatabendQuery v1.2.0-kafkasim(duckdb)' AS "version()"`);
  });

  it('maps Databend types in casts and column definitions only', () => {
    expect(q('SELECT CAST(a AS Int8), TRY_CAST(b AS Float64), c::Nullable(UInt32), int8 FROM t')).toBe(
      'SELECT CAST(a AS TINYINT), TRY_CAST(b AS DOUBLE), c::UINTEGER, int8 FROM t',
    );
    expect(
      q(
        'CREATE TABLE IF NOT EXISTS default.t (uuid String, raw_data json, v Variant, n Nullable(Int64), PRIMARY KEY (uuid))',
      ),
    ).toBe(
      'CREATE TABLE IF NOT EXISTS "default".t (uuid VARCHAR, raw_data JSON, v JSON, n BIGINT, PRIMARY KEY (uuid))',
    );
    expect(q('ALTER TABLE t ADD COLUMN x UInt16')).toBe('ALTER TABLE t ADD COLUMN x USMALLINT');
  });

  it('leaves strings, quoted names and DEFAULT values alone; backquotes become double quotes', () => {
    expect(q("SELECT 'default.x', \"default\".y, `my col` FROM t WHERE a = 'count(*)'")).toBe(
      'SELECT \'default.x\', "default".y, "my col" FROM t WHERE a = \'count(*)\'',
    );
    expect(q('CREATE TABLE t (a INT DEFAULT 0)')).toBe('CREATE TABLE t (a INT DEFAULT 0)');
  });

  it('translates Databend statements DuckDB spells differently', () => {
    expect(translate('USE other')).toEqual({ kind: 'use', database: 'other' });
    expect(translate('DESC default.t')).toEqual({ kind: 'describe', database: 'default', table: 't' });
    expect(translate('describe table t;')).toEqual({ kind: 'describe', database: undefined, table: 't' });
    expect(translate('SHOW TABLES FROM d')).toEqual({ kind: 'show-tables', database: 'd' });
    expect(translate('SHOW DATABASES')).toEqual({ kind: 'show-databases' });
    expect(q('CREATE DATABASE IF NOT EXISTS d')).toBe('CREATE SCHEMA IF NOT EXISTS "d"');
    expect(q('DROP DATABASE d')).toBe('DROP SCHEMA "d" CASCADE');
  });

  it("refuses DuckDB's file, extension and settings statements with Databend's syntax error", () => {
    for (const sql of [
      "COPY t TO '/tmp/x.csv'",
      "ATTACH '/tmp/db' AS x",
      'INSTALL httpfs',
      'LOAD httpfs',
      'PRAGMA database_list',
      'SET enable_external_access = true',
      'CREATE SECRET s (TYPE s3)',
      'CREATE MACRO m() AS 1',
      'FROM t',
      'SELEC 1',
    ]) {
      const e = errorOf(sql);
      expect(e.code, sql).toBe(1005);
      expect(e.toJSON()).toEqual({ code: 1005, message: e.message });
    }
  });

  it('refuses a second statement and names the internal schema as unknown', () => {
    expect(errorOf('SELECT 1; SELECT 2').code).toBe(1005);
    expect(q('SELECT 1;')).toBe('SELECT 1');
    expect(errorOf('SELECT * FROM kafkasim_stage.stage_rows').code).toBe(1003);
    expect(errorOf("SELECT 'unterminated").code).toBe(1005);
  });

  it("maps DuckDB result types to Databend's names", () => {
    expect(databendTypeName('UBIGINT')).toBe('UInt64');
    expect(databendTypeName('BIGINT')).toBe('Int64');
    expect(databendTypeName('INTEGER')).toBe('Int32');
    expect(databendTypeName('VARCHAR', 'JSON')).toBe('Variant');
    expect(databendTypeName('VARCHAR')).toBe('String');
    expect(databendTypeName('TIMESTAMP')).toBe('Timestamp');
    expect(databendTypeName('DECIMAL(10,2)')).toBe('Decimal(10, 2)');
    expect(databendTypeName('INTEGER[]')).toBe('Array(Int32)');
  });

  it('never crashes on arbitrary input: a translation or a LakeError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        try {
          translate(text);
        } catch (err) {
          if (!(err instanceof LakeError)) throw err;
        }
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            'SELECT',
            'count',
            '(',
            ')',
            '*',
            ',',
            "'x'",
            '::',
            'UInt64',
            'default',
            '.',
            't',
            'FROM',
            ';',
            'version',
          ),
          {
            maxLength: 20,
          },
        ),
        (parts) => {
          try {
            translate(parts.join(' '));
          } catch (err) {
            if (!(err instanceof LakeError)) throw err;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
