// The sweep's results as text: a terminal table (one row per cell: its grid values, then each metric's median and
// min–max over seeds, then how many runs passed) and CSV with the same numbers. Neither shows wall times, so the
// same sweep prints the same table on any machine.
import { formatMetric, NA, pathLabel } from '../report/index.ts';
import type { MetricSummary } from './aggregate.ts';
import type { GridAxis } from './grid.ts';
import { missingCells, missingRuns, type SweepDocument } from './sweep-document.ts';

/** A short column name per grid path (see pathLabel), the full path where two would read the same. */
export function axisLabels(grid: readonly GridAxis[]): string[] {
  const last = grid.map((a) => pathLabel(a.path));
  return last.map((l, i) => (last.indexOf(l) === last.lastIndexOf(l) ? l : grid[i]!.path));
}

export function formatSummary(s: MetricSummary | undefined, seeds: number): string {
  if (!s || s.median === null) return NA;
  const median = formatMetric(s.median);
  if (seeds <= 1 || s.n <= 1 || s.min === s.max) return median;
  return `${median} [${formatMetric(s.min)}–${formatMetric(s.max)}]`;
}

export function formatSweepTable(doc: SweepDocument): string {
  const seeds = doc.seeds.length;
  const labels = axisLabels(doc.grid);
  const header = ['cell', ...labels, ...doc.metrics, 'passed'];
  const rows = doc.cells.map((c) => [
    String(c.index),
    ...doc.grid.map((a) => c.params[a.path] ?? ''),
    ...doc.metrics.map((m) => formatSummary(c.summary[m], seeds)),
    `${c.passed}/${c.runs.length}`,
  ]);
  const numeric = header.map((_, i) => i === 0 || i > labels.length);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  const notes: string[] = [];
  notes.push(
    seeds > 1
      ? `Each metric: median [min–max] over ${seeds} seeds (${doc.seeds.join(', ')}); n/a: no data for it in these runs.`
      : `Seed ${doc.seeds[0]}; n/a: no data for the metric in that run.`,
  );
  const failed = doc.cells.flatMap((c) =>
    c.runs.filter((r) => r.error !== undefined).map((r) => `  cell ${c.index} seed ${r.seed}: ${r.error}`),
  );
  if (failed.length > 0)
    notes.push(
      `Runs that stopped early:\n${failed.slice(0, 20).join('\n')}${failed.length > 20 ? `\n  ... and ${failed.length - 20} more` : ''}`,
    );
  const missing = missingCells(doc);
  const held = doc.totalRuns - missingRuns(doc);
  if (doc.interrupted)
    notes.push(
      `Interrupted: ${doc.cells.length} of ${doc.shard ? 'this shard’s' : doc.totalCells} cells finished.`,
    );
  else if (doc.shard)
    notes.push(
      `Shard ${doc.shard.k}/${doc.shard.n}: ${held} of the sweep's ${doc.totalRuns} runs (in ${doc.cells.length} of its ${doc.totalCells} cells); a cell's numbers here are over this shard's seeds of it.`,
    );
  else if (missing.length > 0)
    notes.push(
      `Missing cells (a shard not merged?): ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}`,
    );
  else if (held < doc.totalRuns)
    notes.push(`Missing runs (a shard not merged?): ${doc.totalRuns - held} of ${doc.totalRuns}.`);
  return `${out.join('\n')}\n\n${notes.join('\n')}\n`;
}

function csvField(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row per cell: grid values, then median/min/max/n per metric, then runs and passed. */
export function sweepCsv(doc: SweepDocument): string {
  const header = [
    'cell',
    ...doc.grid.map((a) => a.path),
    ...doc.metrics.flatMap((m) => [`${m}.median`, `${m}.min`, `${m}.max`, `${m}.n`]),
    'runs',
    'passed',
  ];
  const num = (v: number | null) => (v === null ? '' : String(v));
  const rows = doc.cells.map((c) => [
    String(c.index),
    ...doc.grid.map((a) => c.params[a.path] ?? ''),
    ...doc.metrics.flatMap((m) => {
      const s = c.summary[m];
      return s ? [num(s.median), num(s.min), num(s.max), String(s.n)] : ['', '', '', '0'];
    }),
    String(c.runs.length),
    String(c.passed),
  ]);
  return `${[header, ...rows].map((r) => r.map(csvField).join(',')).join('\n')}\n`;
}
