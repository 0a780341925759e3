// What-if sweeps: run a scenario over a grid of --set values and seeds, in worker threads (piscina), and compare
// metrics per cell (median and min–max over seeds) as a table, CSV, JSON or an HTML report. Every run is
// deterministic, so the same sweep gives the same table on any machine and with any number of threads; shards
// (`--shard K/N`) split the grid deterministically and `mergeSweepDocuments` puts them back together.
// Left out: adaptive sampling of the grid and caching runs across sweeps.
export { type MetricSummary, summarize } from './aggregate.ts';
export { SweepInputError } from './errors.ts';
export {
  type Cell,
  cellsOf,
  type GridAxis,
  inShard,
  parseGrid,
  parseGridFlag,
  parseShard,
  type Shard,
  setFlagsOf,
  splitValues,
} from './grid.ts';
export { DEFAULT_LIVELOCK_EVENTS, guardAgainstLivelock } from './livelock-guard.ts';
export { builtinMetricNames, DEFAULT_METRICS, planSweep, type SweepPlan, type SweepRequest } from './plan.ts';
export { type RunTask, runCell } from './run-cell.ts';
export { defaultParallelism, type RunSweepOptions, runSweep, type SweepProgress } from './run-sweep.ts';
export {
  type CellResult,
  finishCell,
  mergeSweepDocuments,
  missingCells,
  type RunOutcome,
  readSweepDocument,
  SWEEP_FORMAT,
  type SweepDocument,
} from './sweep-document.ts';
export { axisLabels, formatSummary, formatSweepTable, sweepCsv } from './table.ts';
