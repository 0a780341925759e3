// One run of a sweep (a cell with one seed): what a worker thread executes. It runs the scenario with the cell's
// overrides and a recorder, and returns the selected metrics: the runner's (scenario and client metrics) and the
// what-if metrics, the runner's winning when a name is both. A run that cannot finish returns its error instead
// of throwing, so that one bad cell does not stop the sweep.
import { RunRecorder, whatIfMetrics } from '../report/index.ts';
import { runScenario } from '../scenario/index.ts';
import { ScenarioLoadCache } from '../scenario/load-cache.ts';
import { DEFAULT_LIVELOCK_EVENTS, guardAgainstLivelock } from './livelock-guard.ts';
import type { RunOutcome } from './sweep-document.ts';

export interface RunTask {
  /** Absolute path of the scenario file. */
  path: string;
  /** --set overrides: the sweep's fixed ones, then the cell's grid values. */
  set: string[];
  seed: number | string;
  metrics: string[];
  /**
   * Events in a row without virtual time moving before the run is stopped as a livelock (a model scheduling
   * zero-delay events forever would otherwise hold a worker until the wall-clock timeout). Default 2,000,000.
   */
  livelockEvents?: number;
}

/** This thread's loaded scenarios: a cell's runs (one per seed) parse and validate its YAML once per thread. */
const scenarios = new ScenarioLoadCache();

export function runCell(task: RunTask): RunOutcome {
  const started = performance.now();
  const recorder = new RunRecorder();
  // A raftTestServer scenario builds no cluster: nothing to record, only its own metrics.
  let attached = false;
  try {
    const result = runScenario(scenarios.load(task.path, task.set), {
      seed: task.seed,
      onCluster: (cluster) => {
        attached = true;
        recorder.attach(cluster);
        guardAgainstLivelock(cluster.sim, task.livelockEvents ?? DEFAULT_LIVELOCK_EVENTS);
      },
    });
    const all = {
      ...(attached ? whatIfMetrics(recorder.finish(result), result) : {}),
      ...result.metrics,
    };
    const metrics: Record<string, number | null> = {};
    for (const m of task.metrics) metrics[m] = all[m] ?? null;
    return {
      seed: task.seed,
      passed: result.passed,
      ...(result.error !== undefined ? { error: result.error } : {}),
      metrics,
      virtualMs: result.virtualMs,
      events: result.events,
      traceHash: result.traceHash,
      wallMs: performance.now() - started,
    };
  } catch (e) {
    return {
      seed: task.seed,
      passed: false,
      error: e instanceof Error ? e.message : String(e),
      metrics: Object.fromEntries(task.metrics.map((m) => [m, null])),
      virtualMs: 0,
      events: 0,
      traceHash: '',
      wallMs: performance.now() - started,
    };
  }
}

export default runCell;
