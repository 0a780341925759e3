// What-if sweeps: run a scenario over a grid of --set values and seeds, in worker threads (piscina), and compare
// metrics per cell (median and min–max over seeds) as a table, CSV, JSON or an HTML report. Every run is
// deterministic, so the same sweep gives the same table on any machine and with any number of threads; shards
// (`--shard K/N`, or `--shard auto` from a job runner's environment) split the runs by a stable hash and
// `mergeSweepDocuments` puts them back together; a queue (src/sweep/queue) spreads runs over worker processes.
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
  shardOfRun,
  splitValues,
} from './grid.ts';
export { type SweepIdentity, scenarioHash, sweepIdentity } from './identity.ts';
export { DEFAULT_LIVELOCK_EVENTS, guardAgainstLivelock } from './livelock-guard.ts';
export { type MergeInput, type MergeOptions, type MergeResult, mergeSweepDocuments } from './merge.ts';
export {
  builtinMetricNames,
  DEFAULT_METRICS,
  type PlannedRun,
  planSweep,
  type SweepPlan,
  type SweepRequest,
} from './plan.ts';
export { type RunTask, runCell } from './run-cell.ts';
export { defaultParallelism, type RunSweepOptions, runSweep, type SweepProgress } from './run-sweep.ts';
export { type ShardFromEnvironment, shardFromEnvironment } from './shard-environment.ts';
export {
  type CellResult,
  finishCell,
  missingCells,
  missingRuns,
  type RunOutcome,
  readSweepDocument,
  SWEEP_FORMAT,
  type SweepDocument,
  sweepDocument,
} from './sweep-document.ts';
export { axisLabels, formatSummary, formatSweepTable, sweepCsv } from './table.ts';
