// The report of a sweep: for each metric, a chart of its median against a grid parameter (the first numeric axis
// by default), one line per combination of the other parameters, each with a band from the min to the max over
// seeds; then the table of cells. The input is the sweep document (src/sweep), described here structurally so
// that reports do not depend on the sweep runner.
import { type ChartSpec, omitted, PALETTE } from './charts/chart-spec.ts';
import { formatMetric, NA } from './format-number.ts';
import { echartsVersion, escapeHtml, renderPage, type Section } from './html-page.ts';
import { pathLabel } from './path-label.ts';
import { WHATIF_METRICS } from './whatif-metrics.ts';

interface Summary {
  median: number | null;
  min: number | null;
  max: number | null;
  n: number;
}

export interface SweepReportInput {
  scenario: string;
  file: string;
  set: string[];
  grid: { path: string; values: string[] }[];
  seeds: (number | string)[];
  metrics: string[];
  totalCells: number;
  interrupted: boolean;
  shard: { k: number; n: number } | null;
  cells: {
    index: number;
    params: Record<string, string>;
    summary: Record<string, Summary>;
    passed: number;
    runs: { error?: string }[];
  }[];
}

const isNumeric = (values: readonly string[]) =>
  values.every((v) => v.trim() !== '' && Number.isFinite(Number(v)));

/** The axis charts put on x: the first whose values are all numbers, else the first. */
export function xAxisOf(grid: SweepReportInput['grid']): number {
  const i = grid.findIndex((a) => isNumeric(a.values));
  return Math.max(i, 0);
}

/** One chart per metric. */
export function sweepCharts(doc: SweepReportInput): ChartSpec[] {
  const xi = xAxisOf(doc.grid);
  const xAxis = doc.grid[xi];
  const others = doc.grid.filter((_, i) => i !== xi);
  const xValues = xAxis ? xAxis.values : ['(no grid)'];
  // Series: every combination of the other axes' values.
  let combos: Record<string, string>[] = [{}];
  for (const a of others) combos = combos.flatMap((c) => a.values.map((v) => ({ ...c, [a.path]: v })));
  const seriesName = (combo: Record<string, string>) =>
    Object.entries(combo)
      .map(([p, v]) => `${pathLabel(p)}=${v}`)
      .join(', ') || doc.scenario;
  const cellAt = (combo: Record<string, string>, x: string) =>
    doc.cells.find(
      (c) =>
        (!xAxis || c.params[xAxis.path] === x) && Object.entries(combo).every(([p, v]) => c.params[p] === v),
    );
  return doc.metrics.map((metric, mi) => {
    const id = `metric-${mi}`;
    const info = WHATIF_METRICS.find((m) => m.name === metric);
    const title = metric;
    const any = doc.cells.some((c) => c.summary[metric]?.median !== null && c.summary[metric] !== undefined);
    if (!any) return omitted(id, title, `no run had a value for it.${info ? ` (${info.description})` : ''}`);
    const series: Record<string, unknown>[] = [];
    combos.forEach((combo, ci) => {
      const name = seriesName(combo);
      const color = PALETTE[ci % PALETTE.length];
      const s = xValues.map((x) => cellAt(combo, x)?.summary[metric]);
      const band = doc.seeds.length > 1;
      if (band) {
        series.push({
          type: 'line',
          id: `${name}:lo`,
          name,
          stack: `band-${ci}`,
          data: s.map((v) => v?.min ?? null),
          lineStyle: { opacity: 0 },
          symbol: 'none',
          silent: true,
          color,
        });
        series.push({
          type: 'line',
          id: `${name}:hi`,
          name,
          stack: `band-${ci}`,
          data: s.map((v) => (v && v.max !== null && v.min !== null ? v.max - v.min : null)),
          lineStyle: { opacity: 0 },
          areaStyle: { color, opacity: 0.18 },
          symbol: 'none',
          silent: true,
          color,
        });
      }
      series.push({
        type: 'line',
        id: `${name}:median`,
        name,
        color,
        symbolSize: 7,
        data: s.map((v) => ({
          value: v?.median ?? null,
          min: v?.min ?? null,
          max: v?.max ?? null,
          n: v?.n ?? 0,
        })),
      });
    });
    return {
      id,
      title,
      note: `${info ? `${info.description} ` : ''}Median over ${doc.seeds.length} seed${doc.seeds.length === 1 ? '' : 's'}${doc.seeds.length > 1 ? '; the band spans min to max' : ''}.`,
      height: 300,
      option: {
        animation: false,
        tooltip: { trigger: 'axis', formatter: 'band' },
        legend: { top: 0, type: 'scroll' },
        grid: { left: 70, right: 24, top: 40, bottom: 48 },
        xAxis: {
          type: 'category',
          data: xValues,
          name: xAxis ? pathLabel(xAxis.path) : '',
          nameLocation: 'middle',
          nameGap: 28,
          boundaryGap: false,
        },
        yAxis: { type: 'value', name: info?.unit ?? '', nameTextStyle: { align: 'left' }, scale: false },
        series,
      },
    };
  });
}

export function sweepReportHtml(doc: SweepReportInput, options: { command?: string } = {}): string {
  const badge = (text: string, cls = '') => `<span class="badge ${cls}">${escapeHtml(text)}</span>`;
  const runs = doc.cells.reduce((a, c) => a + c.runs.length, 0);
  const passed = doc.cells.reduce((a, c) => a + c.passed, 0);
  const header = [
    `<h1>${escapeHtml(doc.scenario)}: what-if sweep</h1>`,
    `<p class="sub">${escapeHtml(doc.grid.map((a) => `${a.path} ∈ {${a.values.join(', ')}}`).join(' × ') || 'no grid: seeds only')}</p>`,
    '<div class="facts">',
    badge(`${doc.cells.length}/${doc.totalCells} cells`, doc.interrupted ? 'bad' : ''),
    badge(`${doc.seeds.length} seed${doc.seeds.length === 1 ? '' : 's'}: ${doc.seeds.join(', ')}`),
    badge(`${passed}/${runs} runs passed`, passed === runs ? 'ok' : 'bad'),
    doc.interrupted ? badge('interrupted', 'bad') : '',
    doc.shard ? badge(`shard ${doc.shard.k}/${doc.shard.n}`) : '',
    ...doc.set.map((s) => badge(`--set ${s}`)),
    options.command ? badge(options.command) : '',
    '</div>',
  ].join('');
  const sections: Section[] = sweepCharts(doc).map((chart) => ({ kind: 'chart', chart }));
  sections.push({ kind: 'html', id: 'cells', title: 'Cells', html: cellsTable(doc) });
  return renderPage({
    title: `kafkasim sweep: ${doc.scenario}`,
    header,
    sections,
    footer: `kafkasim sweep report · ${escapeHtml(doc.file)} · charts by Apache ECharts ${escapeHtml(echartsVersion())}, inlined: this file needs no network`,
  });
}

function cellsTable(doc: SweepReportInput): string {
  const seeds = doc.seeds.length;
  const head = [
    '<th>cell</th>',
    ...doc.grid.map((a) => `<th>${escapeHtml(pathLabel(a.path))}</th>`),
    ...doc.metrics.map((m) => `<th style="text-align:right">${escapeHtml(m)}</th>`),
    '<th style="text-align:right">passed</th>',
  ].join('');
  const cell = (s: Summary | undefined) => {
    if (!s || s.median === null) return `<td class="na">${NA}</td>`;
    const range =
      seeds > 1 && s.min !== s.max
        ? ` <span class="unit">[${formatMetric(s.min)}–${formatMetric(s.max)}]</span>`
        : '';
    return `<td class="num">${formatMetric(s.median)}${range}</td>`;
  };
  const rows = doc.cells
    .map(
      (c) =>
        `<tr><td class="num">${c.index}</td>${doc.grid.map((a) => `<td>${escapeHtml(c.params[a.path] ?? '')}</td>`).join('')}${doc.metrics.map((m) => cell(c.summary[m])).join('')}<td class="num ${c.passed === c.runs.length ? 'pass' : 'fail'}">${c.passed}/${c.runs.length}</td></tr>`,
    )
    .join('');
  return `<table id="cells-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}
