// Reports and what-if metrics: a recorder that watches a run without changing it (time series from the cluster's
// public objects, placement changes, producer throughput/latency/errors, consumer lag, and the trace events of
// the balancer, groups and Raft), the metrics a sweep compares, and self-contained HTML pages drawn with echarts.
// Left out: live updating (a report is written once the run is over) and charts of models that emit no events
// yet; such charts are omitted with a note and their metrics read n/a.
export type { ChartSpec, EchartsOption } from './charts/chart-spec.ts';
export { formatMetric, NA } from './format-number.ts';
export { escapeHtml, type Page, renderPage, type Section } from './html-page.ts';
export { LatencyHistogram } from './latency-histogram.ts';
export { pathLabel } from './path-label.ts';
export { type RecorderOptions, RunRecorder } from './recorder.ts';
export type * from './recording.ts';
export { type RunReportInput, runReportCharts, runReportHtml, runReportPage } from './run-report.ts';
export { type SweepReportInput, sweepCharts, sweepReportHtml, xAxisOf } from './sweep-report.ts';
export {
  controllerAvailability,
  countMoves,
  lastPlacementChange,
  loadDeviation,
  type RaftTimeline,
  type RoleInterval,
  raftTimeline,
  WHATIF_METRIC_NAMES,
  WHATIF_METRICS,
  type WhatIfMetric,
  whatIfMetrics,
} from './whatif-metrics.ts';
