// The grid of a sweep: `--grid path=v1,v2,...` axes (the same paths as --set), their cartesian product as cells
// (the first axis varies slowest, so cell numbers read like nested loops), and `--shard K/N`, a deterministic
// slice of the runs so that one sweep can be spread over several machines and merged.
import { createHash } from 'node:crypto';
import { SweepInputError } from './errors.ts';

export interface GridAxis {
  path: string;
  /** The values as written (each read as YAML when applied, like --set). */
  values: string[];
}

/** One combination of grid values. */
export interface Cell {
  /** Position in the full grid (0-based), the same on every machine and shard. */
  index: number;
  /** Grid path -> value text. */
  params: Record<string, string>;
}

export interface Shard {
  /** 1-based. */
  k: number;
  n: number;
}

/**
 * Splits `v1,v2,...` at commas outside brackets and quotes, so that a value can be a YAML list or mapping
 * (`--grid 'topics.0.assignments=[[1],[2]],[[2],[1]]'`).
 */
export function splitValues(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  out.push(current.trim());
  return out;
}

/** Reads one --grid flag. Throws SweepInputError naming the flag. */
export function parseGridFlag(flag: string): GridAxis {
  const eq = flag.indexOf('=');
  if (eq <= 0)
    throw new SweepInputError(`--grid ${flag}: expected path=v1,v2,..., e.g. topics.0.partitions=8,16,32`);
  const path = flag.slice(0, eq).trim();
  const values = splitValues(flag.slice(eq + 1));
  if (values.some((v) => v === ''))
    throw new SweepInputError(`--grid ${flag}: a value is empty (values are separated by single commas)`);
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) throw new SweepInputError(`--grid ${flag}: the value '${v}' is given twice`);
    seen.add(v);
  }
  return { path, values };
}

/** Reads every --grid flag; a path given twice is an error. */
export function parseGrid(flags: readonly string[]): GridAxis[] {
  const axes = flags.map(parseGridFlag);
  const paths = new Set<string>();
  for (const a of axes) {
    if (paths.has(a.path))
      throw new SweepInputError(`--grid ${a.path}: the path is given twice (put all its values in one flag)`);
    paths.add(a.path);
  }
  return axes;
}

/** The cartesian product of the axes, first axis outermost; no axes: one cell (seeds only). */
export function cellsOf(axes: readonly GridAxis[]): Cell[] {
  let combos: Record<string, string>[] = [{}];
  for (const axis of axes) combos = combos.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.path]: v })));
  return combos.map((params, index) => ({ index, params }));
}

/** `K/N` with 1 <= K <= N. Throws SweepInputError. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new SweepInputError(`--shard expects K/N (e.g. 2/4), got '${text}'`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1) throw new SweepInputError(`--shard ${text}: N must be at least 1`);
  if (k < 1 || k > n) throw new SweepInputError(`--shard ${text}: K must be between 1 and ${n}`);
  return { k, n };
}

/**
 * The shard (1..n) a run (a cell with one seed) belongs to: a stable hash of the cell's grid values and the seed,
 * modulo n. The hash sees the values, not the cell's position, so adding seeds or grid values to a sweep never
 * moves a run that was already assigned: the shards of a grown sweep hold the old runs where they were.
 */
export function shardOfRun(
  params: Readonly<Record<string, string>>,
  seed: number | string,
  n: number,
): number {
  const values = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = createHash('sha256')
    .update(JSON.stringify([values, seed]))
    .digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(n)) + 1;
}

/** Whether a run belongs to a shard (every run belongs to no shard at all). */
export function inShard(
  cell: Pick<Cell, 'params'>,
  seed: number | string,
  shard: Shard | undefined,
): boolean {
  return shard === undefined || shardOfRun(cell.params, seed, shard.n) === shard.k;
}

/** The --set flags that make a cell. */
export function setFlagsOf(cell: Cell): string[] {
  return Object.entries(cell.params).map(([path, value]) => `${path}=${value}`);
}
