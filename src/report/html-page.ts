// One self-contained HTML file: the page, its styles, echarts itself (inlined, so the report opens without a
// network) and the charts' options as JSON. A small script draws each chart and maps the few option values that
// must be functions (named by strings in the JSON) to functions. It leaves every chart instance in
// `window.kafkasimCharts` (by id) for whoever wants to inspect the page, e.g. the browser test.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ChartSpec } from './charts/chart-spec.ts';

export type Section =
  | { kind: 'chart'; chart: ChartSpec }
  | { kind: 'html'; id: string; title: string; html: string; note?: string };

export interface Page {
  /** The document title. */
  title: string;
  /** HTML of the header band (already escaped). */
  header: string;
  sections: Section[];
  footer: string;
}

let echartsSource: string | undefined;

/**
 * A file of echarts: the build's copy (dist/vendor/echarts/, beside the built code, so that the package does not
 * depend on all of echarts), else, running from the sources, the echarts package (a devDependency).
 */
function echartsFile(name: string): string {
  try {
    return readFileSync(new URL(`../../vendor/echarts/${name}`, import.meta.url), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const path = name === 'package.json' ? 'echarts/package.json' : `echarts/dist/${name}`;
    return readFileSync(createRequire(import.meta.url).resolve(path), 'utf8');
  }
}

/** echarts' minified browser build, read once per process. */
function echartsScript(): string {
  echartsSource ??= echartsFile('echarts.min.js');
  return echartsSource;
}

export function echartsVersion(): string {
  return (JSON.parse(echartsFile('package.json')) as { version: string }).version;
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** JSON that is safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const STYLE = `
:root { --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --bg: #f3f4f6; --card: #fff; --ok: #15803d; --bad: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
header { background: #111827; color: #f9fafb; padding: 20px 28px 18px; }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; letter-spacing: .2px; }
header .sub { color: #d1d5db; margin: 0 0 10px; max-width: 1100px; }
header .facts { display: flex; flex-wrap: wrap; gap: 8px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 999px; background: #374151; color: #f3f4f6; font-size: 12px; }
.badge.ok { background: var(--ok); } .badge.bad { background: var(--bad); }
main { max-width: 1240px; margin: 0 auto; padding: 18px 20px 40px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px 10px; margin: 0 0 16px; box-shadow: 0 1px 2px rgba(0,0,0,.04); }
.card h2 { margin: 0 0 2px; font-size: 16px; font-weight: 600; }
.card .note { margin: 0 0 8px; color: var(--muted); font-size: 12.5px; }
.card.omitted { padding: 10px 16px; background: #fafafa; }
.card.omitted h2 { font-size: 14px; color: var(--muted); display: inline; margin-right: 8px; }
.card.omitted .note { display: inline; }
.chart { width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .3px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.na { color: #9ca3af; text-align: right; }
.unit { color: var(--muted); font-size: 11px; }
td[title] { cursor: help; }
.pass { color: var(--ok); font-weight: 600; } .fail { color: var(--bad); font-weight: 600; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; align-items: start; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; background: #f3f4f6; padding: 1px 4px; border-radius: 4px; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 10px 0 24px; }
`;

/** Runs in the browser: draws the charts. Kept free of anything but echarts and the DOM. */
const BOOT = `
(function () {
  var specs = JSON.parse(document.getElementById('kafkasim-charts').textContent);
  function esc(s) { return String(s).replace(/[&<>]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c]; }); }
  function fmt(v) {
    if (typeof v !== 'number') return esc(v);
    if (Number.isInteger(v) || Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
    return String(Number(v.toPrecision(3)));
  }
  function label(i) {
    // Series with an explicit id (e.g. 'broker 1 in') are told apart by it; the ids echarts makes contain a NUL.
    var id = i.seriesId;
    return typeof id === 'string' && id.indexOf('\\u0000') < 0 && !/:median$/.test(id) ? id : i.seriesName;
  }
  function gantt(params, api) {
    var row = api.value(0);
    var start = api.coord([api.value(1), row]);
    var end = api.coord([api.value(2), row]);
    var height = api.size([0, 1])[1] * 0.72;
    var cs = params.coordSys;
    var shape = echarts.graphic.clipRectByRect(
      { x: start[0], y: start[1] - height / 2, width: Math.max(1, end[0] - start[0]), height: height },
      { x: cs.x, y: cs.y, width: cs.width, height: cs.height });
    return shape && { type: 'rect', transition: [], shape: shape, style: api.style() };
  }
  function detail(unit) {
    return function (params) {
      var items = Array.isArray(params) ? params : [params];
      var head = Array.isArray(params) && items.length ? '<b>' + fmt(items[0].axisValue) + ' s</b><br/>' : '';
      return head + items.filter(function (i) {
        var v = Array.isArray(i.value) ? i.value[1] : i.value;
        return v !== null && v !== undefined;
      }).map(function (i) {
        if (i.name) return i.marker + esc(i.name);
        var v = Array.isArray(i.value) ? i.value[1] : i.value;
        return i.marker + esc(label(i)) + ': <b>' + fmt(v) + '</b>' + (unit ? ' ' + esc(unit) : '');
      }).join('<br/>');
    };
  }
  function band(params) {
    var items = Array.isArray(params) ? params : [params];
    var head = items.length ? '<b>' + esc(items[0].axisValueLabel) + '</b><br/>' : '';
    return head + items.filter(function (i) {
      return /:median$/.test(i.seriesId) && i.data && i.data.value !== null;
    }).map(function (i) {
      var d = i.data;
      var range = d.min !== null && d.max !== null && d.min !== d.max ? ' [' + fmt(d.min) + '–' + fmt(d.max) + ']' : '';
      return i.marker + esc(i.seriesName) + ': <b>' + fmt(d.value) + '</b>' + range;
    }).join('<br/>');
  }
  function revive(option) {
    // Tooltips stay inside their chart and wrap long reasons instead of running off the page.
    if (option.tooltip) {
      option.tooltip.confine = true;
      option.tooltip.extraCssText = option.tooltip.extraCssText || 'max-width: 560px; white-space: normal;';
    }
    var tips = [option.tooltip].concat((option.series || []).map(function (s) { return s.tooltip; }));
    tips.forEach(function (t) {
      if (t && t.formatter === 'band') t.formatter = band;
      else if (t && typeof t.formatter === 'string' && t.formatter.indexOf('detail') === 0) t.formatter = detail(t.formatter.slice(7));
    });
    (option.series || []).forEach(function (s) { if (s.renderItem === 'gantt') s.renderItem = gantt; });
    return option;
  }
  var charts = {};
  specs.forEach(function (spec) {
    var el = document.getElementById('chart-' + spec.id);
    var chart = echarts.init(el, null, { renderer: 'canvas' });
    chart.setOption(revive(spec.option));
    charts[spec.id] = chart;
  });
  window.kafkasimCharts = charts;
  window.addEventListener('resize', function () { Object.keys(charts).forEach(function (k) { charts[k].resize(); }); });
})();
`;

function sectionHtml(s: Section): string {
  if (s.kind === 'html') {
    const note = s.note ? `<p class="note">${s.note}</p>` : '';
    return `<section class="card" id="${s.id}"><h2>${escapeHtml(s.title)}</h2>${note}${s.html}</section>`;
  }
  const c = s.chart;
  if ('omitted' in c) {
    return `<section class="card omitted" id="section-${c.id}" data-omitted="true"><h2>${escapeHtml(c.title)}</h2><p class="note">Not shown: ${escapeHtml(c.omitted)}</p></section>`;
  }
  const note = c.note ? `<p class="note">${escapeHtml(c.note)}</p>` : '';
  return `<section class="card" id="section-${c.id}"><h2>${escapeHtml(c.title)}</h2>${note}<div class="chart" id="chart-${c.id}" style="height:${c.height}px"></div></section>`;
}

export function renderPage(page: Page): string {
  const charts = page.sections.flatMap((s) =>
    s.kind === 'chart' && !('omitted' in s.chart) ? [{ id: s.chart.id, option: s.chart.option }] : [],
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>${page.header}</header>
<main>
${page.sections.map(sectionHtml).join('\n')}
</main>
<footer>${page.footer}</footer>
<script>${echartsScript()}</script>
<script type="application/json" id="kafkasim-charts">${scriptJson(charts)}</script>
<script>${BOOT}</script>
</body>
</html>
`;
}
