// The Lake: a Databend-compatible warehouse whose tables live in DuckDB.
//
// Two sides, one order. The simulation side is synchronous and runs in virtual time: the catalog (databases,
// tables, columns), the ledger of which Kafka records each table holds, availability (an outage), and the write
// log. A sink appends its rows to the write log in the event where its ingest completes, so that is the virtual
// time they become visible. The SQL side is asynchronous (DuckDB's API is): `query()` takes every write logged
// up to the moment it is called, applies them to DuckDB in log order, then runs the statement. Every engine call
// goes through one promise chain, so a query sees exactly the writes of the virtual time at which it was asked,
// whatever the wall clock does; the simulation never waits for DuckDB and never reads its answers, which keeps
// runs deterministic.
import { DEFAULT_START_TIME, parseDuration } from '../sim/index.ts';
import { INTERNAL_SCHEMA, quoteIdent, translate } from './dialect.ts';
import type { DuckDBEngine, EngineLimits, EngineResult } from './duckdb-engine.ts';
import { LakeError } from './errors.ts';
import { LakeLedger } from './ledger.ts';
import { type LakeColumn, RAW_TABLE_COLUMNS, type RawSegment, type WriteOp } from './write-ops.ts';

export interface LakeOptions {
  /**
   * Users for Basic auth, name -> password. Default `{ root: '' }` (Databend's default user); the HTTP API
   * never accepts an empty password (http-api.ts), so a served Lake needs users given here or added.
   */
  users?: Readonly<Record<string, string>>;
  /**
   * Wall-clock time (epoch ms) at virtual time 0, for add_time and record timestamps. Default: the clock's
   * `startTime` (a Simulation's virtual wall clock), else DEFAULT_START_TIME (2026-01-01Z).
   */
  epochMs?: number;
  /** DuckDB's resource limits (DuckDBEngine.open). */
  engine?: EngineLimits;
  /**
   * Called as each client statement starts in DuckDB with a function that interrupts it; returns a function
   * that disarms it when the statement ends. The host puts its per-query time limit here (a wall timer, which
   * has no place in models/).
   */
  watchdog?: (interrupt: () => void) => () => void;
}

export interface LakeQueryResult extends EngineResult {
  /** The session's current database after the statement (USE changes it). */
  readonly database: string;
}

export interface LakeTableInfo {
  readonly database: string;
  readonly table: string;
  readonly columns: readonly LakeColumn[];
  readonly ledger: LakeLedger;
}

interface TableEntry extends LakeTableInfo {
  /** Write-log sequence at creation (a refresh after client DDL keeps tables created after it started). */
  readonly createdAt: number;
}

export const DEFAULT_LAKE_EPOCH_MS = DEFAULT_START_TIME;

export class Lake {
  readonly epochMs: number;
  /** False during an outage: the sink's uploads and loads fail, the HTTP API refuses connections. */
  available = true;
  private readonly users = new Map<string, string>();
  private readonly engineLimits: EngineLimits;
  private readonly watchdog: LakeOptions['watchdog'];
  /** The engine while a statement runs (for interrupt()). */
  private running: DuckDBEngine | undefined;
  /** Set by interrupt(): statements queued or sent after it are refused instead of run. */
  private stopped = false;
  private readonly tables = new Map<string, TableEntry>();
  private readonly databases = new Set<string>(['default']);
  private pending: WriteOp[] = [];
  private sequence = 0;
  private engine: Promise<DuckDBEngine> | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  /** Write operations applied to DuckDB so far (for tests and reports). */
  applied = 0;

  constructor(
    private readonly clock: { readonly now: number; readonly startTime?: number },
    options: LakeOptions = {},
  ) {
    this.epochMs = options.epochMs ?? clock.startTime ?? DEFAULT_LAKE_EPOCH_MS;
    for (const [u, p] of Object.entries(options.users ?? { root: '' })) this.users.set(u, p);
    this.engineLimits = options.engine ?? {};
    this.watchdog = options.watchdog;
  }

  /** Wall-clock milliseconds of the current virtual time. */
  get wallNow(): number {
    return this.epochMs + this.clock.now;
  }

  addUser(name: string, password: string): void {
    this.users.set(name, password);
  }

  authenticate(user: string, password: string): boolean {
    return this.users.has(user) && this.users.get(user) === password;
  }

  hasUser(name: string): boolean {
    return this.users.has(name);
  }

  /** Starts (`false`) or ends (`true`) an outage. */
  setAvailable(up: boolean): void {
    this.available = up;
  }

  /** An outage for `duration` from now, in virtual time (`schedule` is the simulation's). */
  outage(duration: number | string, schedule: (delay: number, fn: () => void) => void): void {
    this.available = false;
    schedule(parseDuration(duration, 'outage'), () => {
      this.available = true;
    });
  }

  // ---- catalog (simulation side) ---------------------------------------------------------------------------

  hasDatabase(database: string): boolean {
    return this.databases.has(database);
  }

  createDatabase(database: string): void {
    if (this.databases.has(database)) return;
    this.databases.add(database);
    this.log({ kind: 'ddl', sql: `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(database)}` });
  }

  table(database: string, table: string): LakeTableInfo | undefined {
    return this.tables.get(`${database}.${table}`);
  }

  /** Every table the simulation knows of. */
  tableList(): LakeTableInfo[] {
    return [...this.tables.values()];
  }

  /**
   * The sink's `CREATE TABLE IF NOT EXISTS` of the raw-mode table (bend-ingest-kafka's README, "Raw mode"). Returns
   * the columns the table lacks (the service's startup DESC check fails on them); [] when it is usable.
   */
  createRawTable(database: string, table: string): string[] {
    if (!this.databases.has(database))
      throw new LakeError('UnknownDatabase', `Unknown database '${database}'`);
    const existing = this.tables.get(`${database}.${table}`);
    if (existing) {
      const have = new Set(existing.columns.map((c) => c.name));
      return RAW_TABLE_COLUMNS.filter((c) => !have.has(c.name)).map((c) => c.name);
    }
    this.createTable(database, table, RAW_TABLE_COLUMNS);
    return [];
  }

  /** CREATE TABLE with columns in DuckDB types (as a user creates the JSON-transform target). */
  createTable(database: string, table: string, columns: readonly LakeColumn[]): void {
    if (!this.databases.has(database))
      throw new LakeError('UnknownDatabase', `Unknown database '${database}'`);
    if (this.tables.has(`${database}.${table}`))
      throw new LakeError('TableAlreadyExists', `Table '${table}' already exists`);
    if (database === INTERNAL_SCHEMA)
      throw new LakeError('UnknownDatabase', `Unknown database '${database}'`);
    this.tables.set(`${database}.${table}`, {
      database,
      table,
      columns: [...columns],
      ledger: new LakeLedger(),
      createdAt: this.sequence,
    });
    const cols = columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ');
    this.log({ kind: 'ddl', sql: `CREATE TABLE ${quoteIdent(database)}.${quoteIdent(table)} (${cols})` });
  }

  /** Rows the sink wrote that are in the table now (from the ledger; replace mode keeps one per record). */
  rowCount(database: string, table: string): number {
    return this.tables.get(`${database}.${table}`)?.ledger.rows ?? 0;
  }

  // ---- writes (simulation side) ----------------------------------------------------------------------------

  /** Raw-mode rows of one ingested batch, visible from now on. */
  writeRaw(
    database: string,
    table: string,
    segments: readonly RawSegment[],
    options: {
      mode: 'insert' | 'replace';
      uuidSeeds: readonly (readonly [number, number, number])[];
      addTimeMicros?: number;
    },
  ): number {
    const entry = this.requireTable(database, table);
    let rows = 0;
    for (const s of segments) {
      entry.ledger.add(s.topic, s.partition, s.baseOffset, s.values.length, options.mode === 'replace');
      rows += s.values.length;
    }
    this.log({
      kind: 'raw',
      database,
      table,
      mode: options.mode,
      segments,
      uuidSeeds: options.uuidSeeds,
      addTimeMicros: options.addTimeMicros ?? this.wallNow * 1000,
    });
    return rows;
  }

  /** JSON-transform rows (one JSON object per row, no Kafka metadata); `sources` feed the ledger only. */
  writeJson(
    database: string,
    table: string,
    values: readonly string[],
    sources: readonly { topic: string; partition: number; baseOffset: number; count: number }[],
  ): number {
    const entry = this.requireTable(database, table);
    for (const s of sources) entry.ledger.add(s.topic, s.partition, s.baseOffset, s.count, false);
    this.log({ kind: 'json', database, table, columns: entry.columns, values });
    return values.length;
  }

  private requireTable(database: string, table: string): TableEntry {
    const entry = this.tables.get(`${database}.${table}`);
    if (!entry) throw new LakeError('UnknownTable', `Unknown table '${database}'.'${table}'`);
    return entry;
  }

  private log(op: WriteOp): void {
    this.pending.push(op);
    this.sequence++;
  }

  /** Write operations logged and not yet applied to DuckDB. */
  get pendingWrites(): number {
    return this.pending.length;
  }

  // ---- SQL (async side) ------------------------------------------------------------------------------------

  /** True once DuckDB has been loaded (the first query or flush loads it). */
  get engineLoaded(): boolean {
    return this.engine !== undefined;
  }

  private loadEngine(): Promise<DuckDBEngine> {
    this.engine ??= import('./duckdb-engine.ts').then((m) => m.DuckDBEngine.open(this.engineLimits));
    return this.engine;
  }

  /** Runs `task` after everything queued before it, with the writes logged up to now applied first. */
  private enqueue<T>(task: (engine: DuckDBEngine) => Promise<T>): Promise<T> {
    const ops = this.pending;
    this.pending = [];
    const run = this.chain.then(async () => {
      const engine = await this.loadEngine();
      if (ops.length > 0) {
        await engine.apply(ops);
        this.applied += ops.length;
      }
      return task(engine);
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Applies every write logged so far to DuckDB. */
  flush(): Promise<void> {
    return this.enqueue(async () => undefined);
  }

  /**
   * Runs one Databend statement as a client would (session database `database`, default `default`). Sees every
   * write logged before the call. Throws LakeError (Databend's code and message) on a bad statement.
   */
  query(sql: string, options: { database?: string } = {}): Promise<LakeQueryResult> {
    const database = options.database ?? 'default';
    let statement: ReturnType<typeof translate>;
    try {
      statement = translate(sql);
    } catch (err) {
      return Promise.reject(err);
    }
    const startedAt = this.sequence;
    return this.enqueue(async (engine) => {
      // A statement that reaches DuckDB after interrupt() (it was queued behind another, or the engine was still
      // loading) is refused: run, it would hold the stopping process (a DuckDB thread still executing at exit).
      if (this.stopped) throw new LakeError('AbortedQuery', 'the Lake is stopping: statement not run');
      const disarm = this.watchdog?.(() => engine.interrupt());
      this.running = engine;
      let result: EngineResult;
      try {
        result = await engine.execute(statement, database);
      } finally {
        this.running = undefined;
        disarm?.();
      }
      const changesCatalog = statement.kind === 'query' && !result.hasResultSet && result.rowsChanged === 0;
      if (changesCatalog) await this.refreshCatalog(engine, startedAt);
      return { ...result, database: statement.kind === 'use' ? statement.database : database };
    });
  }

  /** After a client's DDL: the simulation's catalog follows DuckDB's (tables created since stay). */
  private async refreshCatalog(engine: DuckDBEngine, startedAt: number): Promise<void> {
    const seen = await engine.catalog();
    const databases = new Set((await engine.databases()).filter((db) => db !== 'information_schema'));
    for (const db of this.databases) if (!databases.has(db)) this.databases.delete(db);
    for (const db of databases) this.databases.add(db);
    for (const [key, entry] of this.tables)
      if (!seen.has(key) && entry.createdAt <= startedAt) this.tables.delete(key);
    for (const [key, columns] of seen) {
      const existing = this.tables.get(key);
      const dot = key.indexOf('.');
      if (!existing)
        this.tables.set(key, {
          database: key.slice(0, dot),
          table: key.slice(dot + 1),
          columns,
          ledger: new LakeLedger(),
          createdAt: startedAt,
        });
      else this.tables.set(key, { ...existing, columns });
    }
  }

  /**
   * Whether a statement only reads (a query, SHOW, DESC, USE): the rest (DDL, INSERT, DELETE...) changes the
   * Lake. Asked of DuckDB itself (its statement types), so `SELECT 1; DROP TABLE t` counts as a change.
   * Throws LakeError for SQL that does not translate.
   */
  async readsOnly(sql: string): Promise<boolean> {
    const statement = translate(sql);
    if (statement.kind !== 'query') return true;
    return this.enqueue((engine) => engine.readsOnly(statement.sql));
  }

  /**
   * Stops the Lake's statements, for a server that is stopping: interrupts the one DuckDB is running, if any (it fails
   * with an interrupted error), and refuses every statement that reaches DuckDB after it.
   */
  interrupt(): void {
    this.stopped = true;
    this.running?.interrupt();
  }

  /** Closes DuckDB (after pending work). */
  async close(): Promise<void> {
    if (!this.engine) return;
    await this.chain;
    (await this.engine).close();
    this.engine = undefined;
  }
}
