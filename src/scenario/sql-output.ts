// How a Lake SQL query's answer is printed in a run's output, as a SQL client shows it.
import type { LakeQueryResult } from '../../models/lake/index.ts';

/** A query's answer as a client prints it: the column names, the rows aligned under them, the row count. */
export function sqlOutput(a: { ok: LakeQueryResult } | { err: Error }): string[] {
  if ('err' in a) return [`ERROR: ${a.err.message}`];
  const { columns, rows } = a.ok;
  if (columns.length === 0) return [`(${a.ok.rowsChanged} rows affected)`];
  const cells = [columns.map((c) => c.name), ...rows.map((r) => r.map((v) => v ?? 'NULL'))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) =>
    r
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    line(cells[0]!),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.slice(1).map(line),
    `(${rows.length} row${rows.length === 1 ? '' : 's'})`,
  ];
}
