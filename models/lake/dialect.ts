// The Databend dialect layer: turns the SQL a Databend client sends into SQL DuckDB runs, so that the source
// workflow's queries run verbatim (`default.<table>`, `raw_data['sequence']::UInt64`, `count(DISTINCT ...)`,
// `SELECT version()`), and refuses what a Databend server would not accept or what would reach past the Lake
// (DuckDB's file, extension and settings statements), with Databend's error codes.
//
// It is a token-level rewrite, not a parser: DuckDB parses and plans the result. What it changes:
// - database names: Databend databases are DuckDB schemas; `default` (a reserved word in DuckDB) is quoted;
// - Databend type names in type positions (`::T`, `CAST(x AS T)`, column definitions): UInt64 -> UBIGINT, ...;
// - `count(...)` returns UInt64 in Databend (BIGINT in DuckDB): it is cast, and a bare `count(...)` item keeps
//   its Databend column name (`count(*)`, not DuckDB's `count_star()`);
// - `version()` answers a Databend-style version string;
// - Databend statements without a DuckDB twin: CREATE/DROP DATABASE, SHOW DATABASES/TABLES, DESC, USE.
// JSON access `v['key']` needs no rewrite: DuckDB's JSON subscript already returns JSON, 0-based for arrays,
// as Databend's VARIANT does.
import { LakeError } from './errors.ts';

type TokenKind = 'ws' | 'str' | 'qid' | 'num' | 'id' | 'op';

interface Token {
  kind: TokenKind;
  text: string;
}

/** The schema where the Lake keeps its staging tables; user SQL may not name it. */
export const INTERNAL_SCHEMA = 'kafkasim_stage';

/** What the engine should do with a statement. */
export type DialectStatement =
  | { kind: 'query'; sql: string }
  | { kind: 'use'; database: string }
  | { kind: 'describe'; database: string | undefined; table: string }
  | { kind: 'show-tables'; database: string | undefined }
  | { kind: 'show-databases' };

// Databend type names -> DuckDB. INT8 means TINYINT in Databend but BIGINT in DuckDB, so the map is applied
// only in type positions.
const TYPE_MAP: Record<string, string> = {
  uint8: 'UTINYINT',
  uint16: 'USMALLINT',
  uint32: 'UINTEGER',
  uint64: 'UBIGINT',
  int8: 'TINYINT',
  int16: 'SMALLINT',
  int32: 'INTEGER',
  int64: 'BIGINT',
  float32: 'FLOAT',
  float64: 'DOUBLE',
  string: 'VARCHAR',
  text: 'VARCHAR',
  variant: 'JSON',
  json: 'JSON',
  datetime: 'TIMESTAMP',
  binary: 'BLOB',
  bool: 'BOOLEAN',
};

// DuckDB statements that reach the file system, extensions, settings or other databases. A Databend server
// has none of them (or different ones); here they would let a client step outside the Lake.
const DENIED_FIRST_WORDS = new Set([
  'attach',
  'detach',
  'install',
  'load',
  'pragma',
  'set',
  'reset',
  'copy',
  'export',
  'import',
  'call',
  'checkpoint',
  'force',
  'summarize',
  'pivot',
  'unpivot',
  'from',
  'prepare',
  'execute',
  'deallocate',
]);

const ALLOWED_FIRST_WORDS = new Set([
  'select',
  'with',
  'values',
  'insert',
  'update',
  'delete',
  'create',
  'drop',
  'alter',
  'truncate',
  'explain',
  'begin',
  'commit',
  'rollback',
  'desc',
  'describe',
  'show',
  'use',
]);

const DENIED_CREATE_OBJECTS = new Set([
  'secret',
  'macro',
  'function',
  'type',
  'persistent',
  'temporary',
  'temp',
]);

export const DATABEND_VERSION = 'DatabendQuery v1.2.0-kafkasim(duckdb)';

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const start = i;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      while (i < n && /\s/.test(sql[i]!)) i++;
      out.push({ kind: 'ws', text: sql.slice(start, i) });
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
      out.push({ kind: 'ws', text: ' ' });
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new LakeError('Syntax', 'SQL syntax error: unterminated comment');
      i = end + 2;
      out.push({ kind: 'ws', text: ' ' });
    } else if (c === "'") {
      i++;
      for (;;) {
        if (i >= n) throw new LakeError('Syntax', 'SQL syntax error: unterminated string literal');
        if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") {
          i++;
          break;
        } else i++;
      }
      out.push({ kind: 'str', text: sql.slice(start, i) });
    } else if (c === '"' || c === '`') {
      const end = sql.indexOf(c, i + 1);
      if (end < 0) throw new LakeError('Syntax', 'SQL syntax error: unterminated quoted identifier');
      i = end + 1;
      // Backquoted identifiers (MySQL style, accepted by Databend) become standard double-quoted ones.
      const name = sql.slice(start + 1, end);
      out.push({ kind: 'qid', text: `"${name.replaceAll('"', '""')}"` });
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < n && /[0-9.eE]/.test(sql[i]!)) i++;
      out.push({ kind: 'num', text: sql.slice(start, i) });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < n && /[A-Za-z0-9_$]/.test(sql[i]!)) i++;
      out.push({ kind: 'id', text: sql.slice(start, i) });
    } else if (c === ':' && sql[i + 1] === ':') {
      i += 2;
      out.push({ kind: 'op', text: '::' });
    } else {
      i++;
      out.push({ kind: 'op', text: c });
    }
  }
  return out;
}

const lower = (t: Token | undefined): string => (t && t.kind === 'id' ? t.text.toLowerCase() : '');

/** Index of the next non-whitespace token at or after `i`, or -1. */
function next(tokens: Token[], i: number): number {
  for (let j = i; j < tokens.length; j++) if (tokens[j]!.kind !== 'ws') return j;
  return -1;
}

function prev(tokens: Token[], i: number): number {
  for (let j = i; j >= 0; j--) if (tokens[j]!.kind !== 'ws') return j;
  return -1;
}

/** Index of the parenthesis closing the one at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind !== 'op') continue;
    if (t.text === '(') depth++;
    else if (t.text === ')' && --depth === 0) return j;
  }
  throw new LakeError('Syntax', 'SQL syntax error: unbalanced parentheses');
}

/** A database or table name token as a plain name. */
function nameOf(t: Token): string {
  return t.kind === 'qid' ? t.text.slice(1, -1).replaceAll('""', '"') : t.text;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Translates one Databend statement. Throws LakeError with Databend's code for what it refuses. */
export function translate(sql: string): DialectStatement {
  const tokens = tokenize(sql);
  // One statement per request, as Databend's /v1/query: a trailing semicolon is fine, a second statement is not.
  const semi = tokens.findIndex((t) => t.kind === 'op' && t.text === ';');
  if (semi >= 0) {
    if (next(tokens, semi + 1) >= 0)
      throw new LakeError('Syntax', 'SQL syntax error: only one statement is allowed per query');
    tokens.length = semi;
  }
  const first = next(tokens, 0);
  if (first < 0) throw new LakeError('Syntax', 'SQL syntax error: empty query');
  const word = lower(tokens[first]);
  for (const t of tokens)
    if ((t.kind === 'id' || t.kind === 'qid') && nameOf(t).toLowerCase() === INTERNAL_SCHEMA)
      throw new LakeError('UnknownDatabase', `Unknown database '${INTERNAL_SCHEMA}'`);
  if (DENIED_FIRST_WORDS.has(word) || !ALLOWED_FIRST_WORDS.has(word))
    throw new LakeError('Syntax', `SQL syntax error: unsupported statement '${tokens[first]!.text}'`);

  const special = translateSpecial(tokens, first, word);
  if (special) return special;

  if (word === 'create') {
    const what = lower(tokens[next(tokens, first + 1)]);
    if (DENIED_CREATE_OBJECTS.has(what))
      throw new LakeError('Syntax', `SQL syntax error: unsupported statement 'CREATE ${what.toUpperCase()}'`);
  }
  // Column names come from the statement as the client wrote it; rewrites below keep token positions.
  const written = tokens.slice();
  quoteDefaultDatabase(tokens);
  mapTypes(tokens, word);
  rewriteFunctions(tokens, written);
  return { kind: 'query', sql: tokens.map((t) => t.text).join('') };
}

/** Statements Databend has and DuckDB spells differently (or not at all). */
function translateSpecial(tokens: Token[], first: number, word: string): DialectStatement | undefined {
  const words: Token[] = tokens.slice(first).filter((t) => t.kind !== 'ws');
  const w = (i: number) => lower(words[i]);
  const ident = (i: number): string => {
    const t = words[i];
    if (!t || (t.kind !== 'id' && t.kind !== 'qid'))
      throw new LakeError('Syntax', `SQL syntax error: expected a name after '${words[i - 1]?.text ?? ''}'`);
    return nameOf(t);
  };
  const end = (i: number) => {
    if (words.length > i) throw new LakeError('Syntax', `SQL syntax error: unexpected '${words[i]!.text}'`);
  };
  if (word === 'use') {
    const db = ident(1);
    end(2);
    return { kind: 'use', database: db };
  }
  if (word === 'show') {
    if (w(1) === 'databases' || w(1) === 'schemas') {
      end(2);
      return { kind: 'show-databases' };
    }
    if (w(1) === 'tables') {
      if (words.length === 2) return { kind: 'show-tables', database: undefined };
      if (w(2) === 'from' || w(2) === 'in') {
        const db = ident(3);
        end(4);
        return { kind: 'show-tables', database: db };
      }
    }
    throw new LakeError('Syntax', `SQL syntax error: unsupported statement 'SHOW ${words[1]?.text ?? ''}'`);
  }
  if (word === 'desc' || word === 'describe') {
    let i = w(1) === 'table' ? 2 : 1;
    const a = ident(i);
    if (words[i + 1]?.text === '.') {
      const table = ident(i + 2);
      end(i + 3);
      return { kind: 'describe', database: a, table };
    }
    i++;
    end(i);
    return { kind: 'describe', database: undefined, table: a };
  }
  if ((word === 'create' || word === 'drop') && w(1) === 'database') {
    let i = 2;
    let guard = '';
    if (word === 'create' && w(2) === 'if' && w(3) === 'not' && w(4) === 'exists') {
      guard = 'IF NOT EXISTS ';
      i = 5;
    } else if (word === 'drop' && w(2) === 'if' && w(3) === 'exists') {
      guard = 'IF EXISTS ';
      i = 4;
    }
    const db = ident(i);
    end(i + 1);
    return {
      kind: 'query',
      sql:
        word === 'create'
          ? `CREATE SCHEMA ${guard}${quoteIdent(db)}`
          : // Databend drops the database's tables with it.
            `DROP SCHEMA ${guard}${quoteIdent(db)} CASCADE`,
    };
  }
  return undefined;
}

/** `default.t` -> `"default".t`: `default` is a reserved word in DuckDB, a database name in Databend. */
function quoteDefaultDatabase(tokens: Token[]): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'id' || t.text.toLowerCase() !== 'default') continue;
    const j = next(tokens, i + 1);
    const p = prev(tokens, i - 1);
    const dotAfter = j >= 0 && tokens[j]!.text === '.';
    // `... FROM default` or `USE default` alone are handled elsewhere; only a qualifier is a database here.
    if (dotAfter && !(p >= 0 && tokens[p]!.text === '.')) tokens[i] = { kind: 'qid', text: '"default"' };
  }
}

/** Rewrites Databend type names where a type is expected. */
function mapTypes(tokens: Token[], word: string): void {
  const typeAt = (i: number) => {
    const j = next(tokens, i);
    if (j < 0 || tokens[j]!.kind !== 'id') return;
    const name = tokens[j]!.text.toLowerCase();
    if (name === 'nullable') {
      // Nullable(T) -> T: DuckDB columns and casts are nullable already.
      const open = next(tokens, j + 1);
      if (open >= 0 && tokens[open]!.text === '(') {
        const close = closing(tokens, open);
        tokens[j] = { kind: 'ws', text: '' };
        tokens[open] = { kind: 'ws', text: '' };
        tokens[close] = { kind: 'ws', text: '' };
        typeAt(open + 1);
      }
      return;
    }
    const mapped = TYPE_MAP[name];
    if (mapped) tokens[j] = { kind: 'id', text: mapped };
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'op' && t.text === '::') typeAt(i + 1);
    else if (t.kind === 'id' && (lower(t) === 'cast' || lower(t) === 'try_cast')) {
      const open = next(tokens, i + 1);
      if (open < 0 || tokens[open]!.text !== '(') continue;
      const close = closing(tokens, open);
      let depth = 0;
      for (let j = open + 1; j < close; j++) {
        const u = tokens[j]!;
        if (u.text === '(') depth++;
        else if (u.text === ')') depth--;
        else if (depth === 0 && lower(u) === 'as') typeAt(j + 1);
      }
    }
  }
  if (word === 'create' || word === 'alter') mapColumnDefinitions(tokens, typeAt);
}

/** In `CREATE TABLE t (name type, ...)` and `ALTER TABLE t ADD [COLUMN] name type`, the word after a name is a type. */
function mapColumnDefinitions(tokens: Token[], typeAt: (i: number) => void): void {
  const firstParen = tokens.findIndex((t) => t.text === '(');
  const isCreateTable = tokens.some((t) => lower(t) === 'table');
  if (isCreateTable && firstParen >= 0 && lower(tokens[next(tokens, 0)]) === 'create') {
    const close = closing(tokens, firstParen);
    let depth = 0;
    let expectName = true;
    for (let j = firstParen + 1; j < close; j++) {
      const u = tokens[j]!;
      if (u.kind === 'ws') continue;
      if (u.text === '(') depth++;
      else if (u.text === ')') depth--;
      else if (depth === 0 && u.text === ',') expectName = true;
      else if (depth === 0 && expectName) {
        expectName = false;
        const kw = lower(u);
        if (['primary', 'unique', 'constraint', 'check', 'foreign'].includes(kw)) continue;
        if (u.kind === 'id' || u.kind === 'qid') typeAt(j + 1);
      }
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    if (lower(tokens[i]) !== 'add' && lower(tokens[i]) !== 'modify') continue;
    let j = next(tokens, i + 1);
    if (lower(tokens[j]) === 'column') j = next(tokens, j + 1);
    if (j >= 0 && (tokens[j]!.kind === 'id' || tokens[j]!.kind === 'qid')) typeAt(j + 1);
  }
}

/** `count(...)` -> UInt64 with Databend's column name; `version()` -> Databend's version string. */
function rewriteFunctions(tokens: Token[], written: readonly Token[]): void {
  // Splices go from the end backwards, so positions before the last splice still match `written`.
  let firstSplice = tokens.length;
  const text = (from: number, to: number) =>
    (to < firstSplice ? written : tokens)
      .slice(from, to + 1)
      .map((x) => x.text)
      .join('');
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!;
    if (t.kind !== 'id') continue;
    const p = prev(tokens, i - 1);
    if (p >= 0 && tokens[p]!.text === '.') continue;
    const open = next(tokens, i + 1);
    if (open < 0 || tokens[open]!.text !== '(') continue;
    const name = t.text.toLowerCase();
    const close = closing(tokens, open);
    if (name === 'version' && next(tokens, open + 1) === close) {
      const alias = bareSelectItem(tokens, i, close) ? ` AS ${quoteIdent(text(i, close))}` : '';
      tokens.splice(i, close - i + 1, { kind: 'str', text: `'${DATABEND_VERSION}'${alias}` });
      firstSplice = i;
    } else if (name === 'count') {
      let end = close;
      // A window count keeps its OVER clause inside the cast.
      const over = next(tokens, close + 1);
      if (lower(tokens[over]) === 'over') {
        const w = next(tokens, over + 1);
        end = tokens[w]?.text === '(' ? closing(tokens, w) : w;
      }
      const alias = bareSelectItem(tokens, i, end) ? ` AS ${quoteIdent(text(i, end))}` : '';
      const rewritten = tokens
        .slice(i, end + 1)
        .map((x) => x.text)
        .join('');
      tokens.splice(i, end - i + 1, { kind: 'op', text: `CAST(${rewritten} AS UBIGINT)${alias}` });
      firstSplice = i;
    }
  }
}

const CLAUSE_WORDS = new Set([
  'from',
  'where',
  'by',
  'having',
  'limit',
  'on',
  'join',
  'set',
  'values',
  'qualify',
]);

/**
 * True when tokens[from..to] are a whole item of a SELECT list with no alias: the item starts after SELECT,
 * DISTINCT or a comma and ends before a comma or FROM (or the end), so the alias names the column as Databend
 * would (by its text).
 */
function bareSelectItem(tokens: Token[], from: number, to: number): boolean {
  const before = prev(tokens, from - 1);
  const after = next(tokens, to + 1);
  const b = before >= 0 ? tokens[before]! : undefined;
  const startsItem = b !== undefined && (b.text === ',' || lower(b) === 'select' || lower(b) === 'distinct');
  const a = after >= 0 ? tokens[after]! : undefined;
  const endsItem = a === undefined || a.text === ',' || lower(a) === 'from' || a.text === ')';
  if (!startsItem || !endsItem) return false;
  // Inside parentheses (a function argument, a subquery's select list)? Only select lists count, and a clause
  // keyword on the way back to SELECT means the item is in that clause (ORDER BY a, count(*)).
  let depth = 0;
  for (let j = from - 1; j >= 0; j--) {
    const u = tokens[j]!;
    if (u.text === ')') depth++;
    else if (u.text === '(') {
      if (depth === 0) return lower(tokens[next(tokens, j + 1)]) === 'select';
      depth--;
    } else if (depth === 0 && CLAUSE_WORDS.has(lower(u))) return false;
    else if (depth === 0 && lower(u) === 'select') return true;
  }
  return false;
}

/** Databend's name for a DuckDB result type. Nullability is not tracked (DuckDB results do not carry it). */
export function databendTypeName(duckType: string, alias?: string): string {
  if (alias?.toUpperCase() === 'JSON') return 'Variant';
  const t = duckType.toUpperCase();
  const simple: Record<string, string> = {
    BOOLEAN: 'Boolean',
    TINYINT: 'Int8',
    SMALLINT: 'Int16',
    INTEGER: 'Int32',
    BIGINT: 'Int64',
    HUGEINT: 'Int128',
    UTINYINT: 'UInt8',
    USMALLINT: 'UInt16',
    UINTEGER: 'UInt32',
    UBIGINT: 'UInt64',
    FLOAT: 'Float32',
    DOUBLE: 'Float64',
    VARCHAR: 'String',
    UUID: 'String',
    BLOB: 'Binary',
    DATE: 'Date',
    TIMESTAMP: 'Timestamp',
    'TIMESTAMP WITH TIME ZONE': 'Timestamp',
    INTERVAL: 'Interval',
    JSON: 'Variant',
    '"NULL"': 'Null',
    NULL: 'Null',
  };
  if (simple[t]) return simple[t]!;
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return `Decimal(${dec[1]}, ${dec[2]})`;
  if (t.endsWith('[]')) return `Array(${databendTypeName(duckType.slice(0, -2))})`;
  if (t.startsWith('STRUCT')) return 'Tuple';
  if (t.startsWith('MAP')) return 'Map';
  return duckType;
}

/** Databend's spelling of a column type for DESC (`VARCHAR` -> `VARCHAR`, as Databend prints SQL type names). */
export function describeTypeName(duckType: string): string {
  const t = duckType.toUpperCase();
  const m: Record<string, string> = {
    VARCHAR: 'VARCHAR',
    BIGINT: 'BIGINT',
    INTEGER: 'INT',
    SMALLINT: 'SMALLINT',
    TINYINT: 'TINYINT',
    UBIGINT: 'BIGINT UNSIGNED',
    UINTEGER: 'INT UNSIGNED',
    USMALLINT: 'SMALLINT UNSIGNED',
    UTINYINT: 'TINYINT UNSIGNED',
    DOUBLE: 'DOUBLE',
    FLOAT: 'FLOAT',
    BOOLEAN: 'BOOLEAN',
    TIMESTAMP: 'TIMESTAMP',
    DATE: 'DATE',
    JSON: 'VARIANT',
    BLOB: 'BINARY',
  };
  return m[t] ?? t;
}
