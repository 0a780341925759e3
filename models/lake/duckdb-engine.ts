// The Lake's SQL engine: an in-memory DuckDB, loaded on first use (required when first used, so that a simulation that
// never touches the Lake never loads the native module). It is locked down at creation: no file system, no
// extension installs, settings locked, so SQL from a client cannot reach past the Lake.
//
// Writes arrive as the simulation's write log (write-ops.ts) and go through staging tables: per row only the
// message value, its key, its index and its timestamp cross from JavaScript into DuckDB (through an appender);
// uuid, record_metadata and add_time are computed by one INSERT ... SELECT per flush, inside DuckDB. That keeps
// the cost per row at a few native calls (a million rows in about a second on one core).
import { createRequire } from 'node:module';
import type { DuckDBAppender, DuckDBConnection, DuckDBDataChunk, DuckDBInstance } from '@duckdb/node-api';
import { ExitCode, KafkasimError } from '../sim/index.ts';
import {
  type DialectStatement,
  databendTypeName,
  describeTypeName,
  INTERNAL_SCHEMA,
  quoteIdent,
} from './dialect.ts';
import { fromEngineError, LakeError } from './errors.ts';
import type { LakeColumn, RawSegment, WriteOp } from './write-ops.ts';

/** A result as Databend's HTTP API returns it: typed schema and every value as a string (null for NULL). */
export interface EngineResult {
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly rows: readonly (readonly (string | null)[])[];
  /** Rows inserted, updated or deleted (0 for a query). */
  readonly rowsChanged: number;
  /** True when the statement returns rows (a query, SHOW, DESC). */
  readonly hasResultSet: boolean;
}

const STAGE_ROWS = `${INTERNAL_SCHEMA}.stage_rows`;
const STAGE_SEGMENTS = `${INTERNAL_SCHEMA}.stage_segments`;
/** Schemas that are DuckDB's, not databases a Databend client would see. */
const HIDDEN_SCHEMAS = new Set(['main', 'pg_catalog', INTERNAL_SCHEMA]);
/** Mixing constant for the per-row part of a uuid (an odd 32-bit number: i -> i*K mod 2^48 is one-to-one). */
const UUID_MIX = 2_654_435_761;

/** DuckDB's resource limits; defaults: 1 GB of memory, 2 threads, nothing spilled to disk. */
export interface EngineLimits {
  /** DuckDB's `memory_limit`, e.g. `512MB`. */
  memoryLimit?: string;
  /** DuckDB's `threads`. */
  threads?: number;
}

export const DEFAULT_ENGINE_LIMITS: Required<EngineLimits> = { memoryLimit: '1GB', threads: 2 };

/** Statement types that only read (DuckDB's StatementType: SELECT = 1, EXPLAIN = 4). */
const READ_STATEMENT_TYPES: ReadonlySet<number> = new Set([1, 4]);

/** The Lake was used but DuckDB is not installed (kafkasim lists it as an optional dependency). */
export class DuckDBNotInstalledError extends KafkasimError {
  readonly code = 'DUCKDB_NOT_INSTALLED';
  readonly exitCode = ExitCode.failed;
  override name = 'DuckDBNotInstalledError';
  constructor(cause: unknown) {
    super(
      'the Lake runs on DuckDB, which is not installed: `npm install @duckdb/node-api` (an optional dependency ' +
        'of kafkasim, left out by --omit=optional or on a platform DuckDB has no build for)',
      { cause },
    );
  }
}

/**
 * DuckDB's module, or DuckDBNotInstalledError. Loaded with require, not import(): @duckdb/node-api is CommonJS, and
 * an ES import first has Node's cjs-module-lexer read and parse each of its ~180 files for their export names (then
 * reads them again to run them), which doubled the cost of loading it (about 340 ms of CPU against 145 ms, median
 * of 5 each, Node 20.20.2).
 */
async function importDuckDB(): Promise<typeof import('@duckdb/node-api')> {
  try {
    return createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new DuckDBNotInstalledError(e);
    throw e;
  }
}

export class DuckDBEngine {
  private constructor(
    private readonly api: typeof import('@duckdb/node-api'),
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  static async open(limits: EngineLimits = {}): Promise<DuckDBEngine> {
    const api = await importDuckDB();
    const threads = limits.threads ?? DEFAULT_ENGINE_LIMITS.threads;
    if (!(Number.isInteger(threads) && threads >= 1))
      throw new RangeError(`threads must be 1 or more, got ${threads}`);
    const instance = await api.DuckDBInstance.create(':memory:', {
      enable_external_access: 'false',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      // Memory and threads bounded; nothing spills to disk (a query past the limit fails with an out-of-memory
      // error instead). https://duckdb.org/docs/stable/configuration/overview
      memory_limit: limits.memoryLimit ?? DEFAULT_ENGINE_LIMITS.memoryLimit,
      threads: String(threads),
      max_temp_directory_size: '0B',
      lock_configuration: 'true',
    });
    const connection = await instance.connect();
    const engine = new DuckDBEngine(api, instance, connection);
    await connection.run(`CREATE SCHEMA ${INTERNAL_SCHEMA}`);
    await connection.run(
      `CREATE TABLE ${STAGE_ROWS} (seg INTEGER, i INTEGER, raw VARCHAR, k VARCHAR, ts DOUBLE)`,
    );
    await connection.run(
      `CREATE TABLE ${STAGE_SEGMENTS} (seg INTEGER, topic VARCHAR, kpartition INTEGER, base BIGINT, add_us BIGINT, prefix VARCHAR, mix BIGINT)`,
    );
    await connection.run(`CREATE SCHEMA "default"`);
    await connection.run(`USE "default"`);
    return engine;
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }

  /** Interrupts the running statement (it fails with DuckDB's "Interrupted" error). */
  interrupt(): void {
    this.connection.interrupt();
  }

  /** Whether every statement in `sql` only reads (SELECT, EXPLAIN); false for anything DuckDB cannot prepare. */
  async readsOnly(sql: string): Promise<boolean> {
    try {
      const extracted = await this.connection.extractStatements(sql);
      for (let i = 0; i < extracted.count; i++) {
        const prepared = await extracted.prepare(i);
        const type = Number(prepared.statementType);
        prepared.destroySync?.();
        if (!READ_STATEMENT_TYPES.has(type)) return false;
      }
      return extracted.count > 0;
    } catch {
      return false;
    }
  }

  // ---- queries ---------------------------------------------------------------------------------------------

  /** Runs one translated statement with `database` as the current database. */
  async execute(statement: DialectStatement, database: string): Promise<EngineResult> {
    try {
      switch (statement.kind) {
        case 'use':
          await this.requireDatabase(statement.database);
          return { columns: [], rows: [], rowsChanged: 0, hasResultSet: false };
        case 'show-databases':
          return await this.showDatabases();
        case 'show-tables':
          return await this.showTables(statement.database ?? database);
        case 'describe':
          return await this.describe(statement.database ?? database, statement.table);
        case 'query':
          await this.requireDatabase(database);
          await this.connection.run(`USE ${quoteIdent(database)}`);
          return await this.run(statement.sql);
      }
    } catch (err) {
      throw fromEngineError(err);
    }
  }

  private async run(sql: string): Promise<EngineResult> {
    const reader = await this.connection.runAndReadAll(sql);
    // ResultReturnType: 1 = changed rows (DML), 2 = nothing (DDL), 3 = query result.
    const returnType = Number(reader.returnType);
    if (returnType === 1)
      return { columns: [], rows: [], rowsChanged: reader.rowsChanged, hasResultSet: false };
    if (returnType !== 3) return { columns: [], rows: [], rowsChanged: 0, hasResultSet: false };
    const types = reader.columnTypes();
    const columns = reader.columnNames().map((name, i) => ({
      name: name === 'count_star()' ? 'count(*)' : name,
      type: databendTypeName(types[i]!.toString(), types[i]!.alias),
    }));
    return {
      columns,
      rows: reader.getRows().map((r) => r.map(formatValue)),
      rowsChanged: 0,
      hasResultSet: true,
    };
  }

  private async requireDatabase(database: string): Promise<void> {
    if (HIDDEN_SCHEMAS.has(database))
      throw new LakeError('UnknownDatabase', `Unknown database '${database}'`);
    const r = await this.connection.runAndReadAll(
      'SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1',
      [database],
    );
    if (Number(r.getRows()[0]![0]) === 0)
      throw new LakeError('UnknownDatabase', `Unknown database '${database}'`);
  }

  private async showDatabases(): Promise<EngineResult> {
    const r = await this.connection.runAndReadAll(
      'SELECT DISTINCT schema_name FROM information_schema.schemata ORDER BY schema_name',
    );
    const rows = r
      .getRows()
      .map((x) => String(x[0]))
      .filter((s) => !HIDDEN_SCHEMAS.has(s))
      .map((s) => [s]);
    return { columns: [{ name: 'Database', type: 'String' }], rows, rowsChanged: 0, hasResultSet: true };
  }

  private async showTables(database: string): Promise<EngineResult> {
    await this.requireDatabase(database);
    const r = await this.connection.runAndReadAll(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [database],
    );
    return {
      columns: [{ name: `Tables_in_${database}`, type: 'String' }],
      rows: r.getRows().map((x) => [String(x[0])]),
      rowsChanged: 0,
      hasResultSet: true,
    };
  }

  private async describe(database: string, table: string): Promise<EngineResult> {
    await this.requireDatabase(database);
    const r = await this.connection.runAndReadAll(
      `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
      [database, table],
    );
    const rows = r.getRows();
    if (rows.length === 0) throw new LakeError('UnknownTable', `Unknown table '${database}'.'${table}'`);
    return {
      columns: ['Field', 'Type', 'Null', 'Default', 'Extra'].map((name) => ({ name, type: 'String' })),
      rows: rows.map((x) => [
        String(x[0]),
        describeTypeName(String(x[1])),
        String(x[2]),
        x[3] === null ? 'NULL' : String(x[3]),
        '',
      ]),
      rowsChanged: 0,
      hasResultSet: true,
    };
  }

  /** Every user table and its columns, keyed `database.table` (for the simulation's catalog after DDL). */
  async catalog(): Promise<Map<string, LakeColumn[]>> {
    const r = await this.connection.runAndReadAll(
      `SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns
       ORDER BY table_schema, table_name, ordinal_position`,
    );
    const out = new Map<string, LakeColumn[]>();
    for (const [schema, table, column, type] of r.getRows()) {
      if (HIDDEN_SCHEMAS.has(String(schema)) || String(schema) === 'information_schema') continue;
      const key = `${String(schema)}.${String(table)}`;
      let cols = out.get(key);
      if (!cols) out.set(key, (cols = []));
      cols.push({ name: String(column), type: String(type) });
    }
    return out;
  }

  /** Databases (schemas) a client can see. */
  async databases(): Promise<string[]> {
    const r = await this.showDatabases();
    return r.rows.map((x) => x[0]!);
  }

  // ---- writes ----------------------------------------------------------------------------------------------

  /** Applies write operations in order. Consecutive raw inserts into one table share one staging round. */
  async apply(ops: readonly WriteOp[]): Promise<void> {
    let i = 0;
    while (i < ops.length) {
      const op = ops[i]!;
      if (op.kind === 'ddl') {
        await this.connection.run(op.sql);
        i++;
      } else if (op.kind === 'json') {
        await this.applyJson(op);
        i++;
      } else if (op.mode === 'replace') {
        await this.applyRaw([op], 'replace');
        i++;
      } else {
        let j = i + 1;
        while (j < ops.length) {
          const o = ops[j]!;
          if (o.kind !== 'raw' || o.mode !== 'insert' || o.database !== op.database || o.table !== op.table)
            break;
          j++;
        }
        await this.applyRaw(ops.slice(i, j) as Extract<WriteOp, { kind: 'raw' }>[], 'insert');
        i = j;
      }
    }
  }

  private async appender(table: string): Promise<DuckDBAppender> {
    return this.connection.createAppender(table, INTERNAL_SCHEMA);
  }

  private async applyRaw(ops: readonly Extract<WriteOp, { kind: 'raw' }>[], mode: 'insert' | 'replace') {
    const target = `${quoteIdent(ops[0]!.database)}.${quoteIdent(ops[0]!.table)}`;
    const rows = await this.appender('stage_rows');
    const segs = await this.appender('stage_segments');
    const stager = new RowStager(rows, this.api);
    let seg = 0;
    for (const op of ops) {
      op.segments.forEach((s, n) => {
        const [a, b, c] = op.uuidSeeds[n]!;
        // The row part: (mix + i*K) mod 2^48, distinct for every row of a segment.
        stageSegment(segs, seg, s, op.addTimeMicros, uuidPrefix(a, b, c), (c >>> 0) * 65536 + (b & 0xffff));
        stager.add(s, seg);
        seg++;
      });
    }
    stager.flush();
    rows.closeSync();
    segs.closeSync();
    const staged = `SELECT lower(s.prefix || lpad(to_hex((s.mix + r.i * ${UUID_MIX}) % 281474976710656), 12, '0')) AS uuid,
        s.base + r.i AS koffset, s.kpartition, r.raw AS raw_data,
        '{"topic":' || to_json(s.topic) || ',"partition":' || s.kpartition || ',"offset":' || (s.base + r.i)
          || ',"key":' || to_json(r.k) || ',"create_time":"' || ${rfc3339Nano('r.ts')} || '"}' AS record_metadata,
        make_timestamp(s.add_us) AS add_time
      FROM ${STAGE_ROWS} r JOIN ${STAGE_SEGMENTS} s USING (seg)${
        // A batch may hold a record twice (re-read after a revocation without the optimization): REPLACE INTO
        // keeps one row per (koffset, kpartition), the batch's last.
        mode === 'replace'
          ? ' QUALIFY row_number() OVER (PARTITION BY s.base + r.i, s.kpartition ORDER BY seg DESC, r.i DESC) = 1'
          : ''
      }`;
    try {
      if (mode === 'replace') {
        await this.connection.run('BEGIN TRANSACTION');
        await this.connection.run(
          `DELETE FROM ${target} t USING (SELECT s.base + r.i AS koffset, s.kpartition FROM ${STAGE_ROWS} r JOIN ${STAGE_SEGMENTS} s USING (seg)) x
           WHERE t.koffset = x.koffset AND t.kpartition = x.kpartition`,
        );
      }
      await this.connection.run(
        `INSERT INTO ${target} (uuid, koffset, kpartition, raw_data, record_metadata, add_time) ${staged}`,
      );
      if (mode === 'replace') await this.connection.run('COMMIT');
    } catch (err) {
      if (mode === 'replace') await this.connection.run('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await this.connection.run(`DELETE FROM ${STAGE_ROWS}; DELETE FROM ${STAGE_SEGMENTS}`);
    }
  }

  private async applyJson(op: Extract<WriteOp, { kind: 'json' }>): Promise<void> {
    const target = `${quoteIdent(op.database)}.${quoteIdent(op.table)}`;
    const rows = await this.appender('stage_rows');
    op.values.forEach((v, i) => {
      rows.appendInteger(0);
      rows.appendInteger(i);
      rows.appendVarchar(v);
      rows.appendNull();
      rows.appendNull();
      rows.endRow();
    });
    rows.closeSync();
    // COPY INTO ... FILE_FORMAT=(type=NDJSON missing_field_as=FIELD_DEFAULT): fields by name, missing ones NULL.
    const select = op.columns
      .map((c) => {
        const path = `'$.${JSON.stringify(c.name).replaceAll("'", "''")}'`;
        return c.type === 'JSON'
          ? `json_extract(r.raw, ${path})`
          : `CAST(json_extract_string(r.raw, ${path}) AS ${c.type})`;
      })
      .join(', ');
    const names = op.columns.map((c) => quoteIdent(c.name)).join(', ');
    try {
      await this.connection.run(
        `INSERT INTO ${target} (${names}) SELECT ${select} FROM ${STAGE_ROWS} r ORDER BY r.i`,
      );
    } finally {
      await this.connection.run(`DELETE FROM ${STAGE_ROWS}`);
    }
  }
}

function stageSegment(
  a: DuckDBAppender,
  seg: number,
  s: RawSegment,
  addTimeMicros: number,
  prefix: string,
  mix: number,
): void {
  a.appendInteger(seg);
  a.appendVarchar(s.topic);
  a.appendInteger(s.partition);
  a.appendBigInt(BigInt(s.baseOffset));
  a.appendBigInt(BigInt(Math.round(addTimeMicros)));
  a.appendVarchar(prefix);
  a.appendBigInt(BigInt(mix));
  a.endRow();
}

/**
 * Stages rows through data chunks (2,048 rows, DuckDB's vector size): numbers are written in JavaScript,
 * only the strings cross into native code one by one; about 20-40% faster than appending value by value.
 */
class RowStager {
  private seg: number[] = [];
  private idx: number[] = [];
  private raw: (string | null)[] = [];
  private key: string[] = [];
  private ts: number[] = [];
  private readonly chunk: DuckDBDataChunk;

  constructor(
    private readonly appender: DuckDBAppender,
    api: typeof import('@duckdb/node-api'),
  ) {
    this.chunk = api.DuckDBDataChunk.create([api.INTEGER, api.INTEGER, api.VARCHAR, api.VARCHAR, api.DOUBLE]);
  }

  add(s: RawSegment, seg: number): void {
    const { values, keys, timestamps } = s;
    for (let i = 0; i < values.length; i++) {
      this.seg.push(seg);
      this.idx.push(i);
      this.raw.push(values[i] ?? null);
      this.key.push(keys[i]!);
      this.ts.push(timestamps[i]!);
      if (this.seg.length === CHUNK_ROWS) this.flush();
    }
  }

  flush(): void {
    const n = this.seg.length;
    if (n === 0) return;
    this.chunk.reset();
    this.chunk.rowCount = n;
    this.chunk.setColumns([this.seg, this.idx, this.raw, this.key, this.ts]);
    this.appender.appendDataChunk(this.chunk);
    this.seg = [];
    this.idx = [];
    this.raw = [];
    this.key = [];
    this.ts = [];
  }
}

const CHUNK_ROWS = 2048;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** `xxxxxxxx-xxxx-4xxx-yxxx-` from three random 32-bit numbers: a v4 uuid whose last 12 digits are the row's. */
function uuidPrefix(a: number, b: number, c: number): string {
  const h = (x: number) =>
    HEX[(x >>> 24) & 255]! + HEX[(x >>> 16) & 255]! + HEX[(x >>> 8) & 255]! + HEX[x & 255]!;
  const hb = h(b >>> 0);
  const hc = h(c >>> 0);
  return `${h(a >>> 0)}-${hb.slice(0, 4)}-4${hb.slice(5, 8)}-${'89ab'[(c >>> 30) & 3]}${hc.slice(1, 4)}-`;
}

/** Go's time.RFC3339Nano in UTC for epoch milliseconds: trailing zeros of the fraction dropped, `Z`. */
function rfc3339Nano(ms: string): string {
  const whole = `CAST(${ms} AS BIGINT)`;
  return `(strftime(make_timestamp(${whole} * 1000), '%Y-%m-%dT%H:%M:%S')
    || CASE WHEN ${whole} % 1000 = 0 THEN '' ELSE '.' || rtrim(lpad((${whole} % 1000)::VARCHAR, 3, '0'), '0') END || 'Z')`;
}

/** A DuckDB value as the string Databend's HTTP API sends (null for NULL). */
function formatValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  const ctor = (v as { constructor?: { name?: string } }).constructor?.name;
  if (ctor === 'DuckDBTimestampValue') return formatTimestampMicros((v as { micros: bigint }).micros);
  return String(v);
}

/** Databend prints timestamps with six fractional digits: `2026-01-01 00:00:00.000000`. */
export function formatTimestampMicros(micros: bigint): string {
  const ms = Number(micros / 1000n);
  const frac = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const d = new Date(ms - (ms % 1000 < 0 ? 1000 + (ms % 1000) : ms % 1000));
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${String(frac).padStart(6, '0')}`;
}
