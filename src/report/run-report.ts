// The report of one run (`kafkasim run ... --report FILE.html`): what happened, as charts over the run's
// timeline, then the what-if metrics, the expectations and the steps.

import { formatDuration } from '../../models/sim/index.ts';
import type { ScenarioResult } from '../scenario/index.ts';
import { balancerChart } from './charts/balancer-chart.ts';
import type { ChartSpec } from './charts/chart-spec.ts';
import { groupChart } from './charts/group-chart.ts';
import { lagChart } from './charts/lag-chart.ts';
import { networkChart } from './charts/network-chart.ts';
import { placementChart } from './charts/placement-chart.ts';
import { producerChart } from './charts/producer-chart.ts';
import { raftChart } from './charts/raft-chart.ts';
import { formatMetric } from './format-number.ts';
import { echartsVersion, escapeHtml, type Page, renderPage, type Section } from './html-page.ts';
import type { Recording } from './recording.ts';
import { WHATIF_METRICS, whatIfMetrics } from './whatif-metrics.ts';

export interface RunReportInput {
  result: ScenarioResult;
  recording: Recording;
  /** The scenario's description (its first line is shown under the title). */
  description?: string;
  /** How the run was started, shown in the header (e.g. the command line). */
  command?: string;
}

/** Every chart of a run report, in page order; those without data say why they are left out. */
export function runReportCharts(rec: Recording): ChartSpec[] {
  return [
    networkChart(rec),
    placementChart(rec),
    producerChart(rec),
    lagChart(rec),
    groupChart(rec),
    raftChart(rec),
    balancerChart(rec),
  ];
}

export function runReportHtml(input: RunReportInput): string {
  return renderPage(runReportPage(input));
}

export function runReportPage(input: RunReportInput): Page {
  const { result: r, recording } = input;
  const whatIf = whatIfMetrics(recording, r);
  const summary = input.description?.trim().split('\n')[0] ?? '';
  const passed = r.expectations.filter((e) => e.passed).length;
  const badge = (text: string, cls = '') => `<span class="badge ${cls}">${escapeHtml(text)}</span>`;
  const header = [
    `<h1>${escapeHtml(r.scenario)}</h1>`,
    summary ? `<p class="sub">${escapeHtml(summary)}</p>` : '',
    '<div class="facts">',
    badge(r.passed ? 'PASSED' : 'FAILED', r.passed ? 'ok' : 'bad'),
    badge(`${passed}/${r.expectations.length} expectations`),
    badge(`seed ${r.seed}`),
    badge(`${formatDuration(r.virtualMs)} virtual`),
    badge(`${r.events.toLocaleString('en-US')} events`),
    badge(`trace ${r.traceHash}`),
    input.command ? badge(input.command) : '',
    '</div>',
  ].join('');
  const sections: Section[] = runReportCharts(recording).map((chart) => ({ kind: 'chart', chart }));
  sections.splice(0, 0, {
    kind: 'html',
    id: 'metrics',
    title: 'Metrics',
    note: 'Left: what-if metrics (hover a name for its definition; n/a: this run has no data for it). Right: the scenario’s own metrics.',
    html: `<div class="grid2">${metricsTable(
      WHATIF_METRICS.map((m) => ({
        name: m.name,
        value: whatIf[m.name] ?? null,
        unit: m.unit,
        title: m.description,
      })),
    )}${metricsTable(Object.entries(r.metrics).map(([name, value]) => ({ name, value })))}</div>`,
  });
  sections.push({ kind: 'html', id: 'expectations', title: 'Expectations', html: expectationsTable(r) });
  sections.push({ kind: 'html', id: 'steps', title: 'Timeline steps', html: stepsTable(r) });
  return {
    title: `kafkasim report: ${r.scenario} (seed ${r.seed})`,
    header,
    sections,
    footer: `kafkasim run report · times are seconds since the timeline's time 0 · charts by Apache ECharts ${escapeHtml(echartsVersion())}, inlined: this file needs no network`,
  };
}

function metricsTable(rows: { name: string; value: number | null; unit?: string; title?: string }[]): string {
  if (rows.length === 0) return '<p class="note">None.</p>';
  const body = rows
    .map((m) => {
      const v = formatMetric(m.value);
      const title = m.title ? ` title="${escapeHtml(m.title)}"` : '';
      const unit = m.value !== null && m.unit ? ` <span class="unit">${escapeHtml(m.unit)}</span>` : '';
      return `<tr><td${title}><code>${escapeHtml(m.name)}</code></td><td class="${m.value === null ? 'na' : 'num'}">${escapeHtml(v)}${unit}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>metric</th><th style="text-align:right">value</th></tr></thead><tbody>${body}</tbody></table>`;
}

function expectationsTable(r: ScenarioResult): string {
  if (r.expectations.length === 0) return '<p class="note">The scenario states no expectations.</p>';
  const body = r.expectations
    .map(
      (e) =>
        `<tr><td class="${e.passed ? 'pass' : 'fail'}">${e.passed ? 'PASS' : 'FAIL'}</td><td>${escapeHtml(e.name)}</td><td>${escapeHtml(e.expected)}</td><td><code>${escapeHtml(typeof e.actual === 'string' ? e.actual : JSON.stringify(e.actual))}</code></td></tr>`,
    )
    .join('');
  return `<table id="expectations-table"><thead><tr><th></th><th>expectation</th><th>expected</th><th>actual</th></tr></thead><tbody>${body}</tbody></table>`;
}

function stepsTable(r: ScenarioResult): string {
  if (r.steps.length === 0) return '<p class="note">No steps.</p>';
  const t = (ms: number | undefined) => (ms === undefined ? '' : `${(ms / 1000).toFixed(3)}s`);
  const body = r.steps
    .map(
      (s) =>
        `<tr><td class="num">${s.index}</td><td class="num">${t(s.start)}</td><td class="num">${t(s.end)}</td><td><code>${escapeHtml(s.action)}</code></td><td>${escapeHtml(s.label ?? '')}</td><td class="${s.status === 'ok' ? 'pass' : s.status === 'skipped' ? '' : 'fail'}">${escapeHtml(s.status)}${s.error ? `: ${escapeHtml(s.error)}` : ''}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>#</th><th style="text-align:right">start</th><th style="text-align:right">end</th><th>action</th><th>label</th><th>status</th></tr></thead><tbody>${body}</tbody></table>`;
}
