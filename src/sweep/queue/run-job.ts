// One job on the queue: one run (a cell with one seed). The job carries what a worker on another machine needs to
// run it: the scenario (by its hash; the text is stored once per sweep beside the queue, see scenario-store.ts),
// the --set flags (the sweep's fixed ones, then the cell's grid values), the seed and the metrics. Its id is a hash
// of exactly those and kafkasim's version, so the same run always has the same id: submitting a sweep again, or a
// grown sweep (more seeds, more grid values), adds no job whose run is already queued or finished, and collects
// the finished ones instead of running them again.
import { createHash } from 'node:crypto';
import { packageVersion } from '../../package-files.ts';
import { setFlagsOf } from '../grid.ts';
import type { PlannedRun, SweepPlan } from '../plan.ts';

export interface RunJobData {
  /** kafkasim's version that submitted it (the queue's name has it too). */
  version: string;
  /** The sweep that submitted it first (for workers' logs; a later sweep may collect the same run). */
  sweep: string;
  /** SHA-256 of the scenario's text (see scenario-store.ts). */
  scenarioSha256: string;
  /** The scenario file's name, for messages. */
  scenarioFile: string;
  set: string[];
  seed: number | string;
  metrics: string[];
  /** The cell's position in the submitting sweep (for workers' logs). */
  cell: number;
}

export function runJobData(
  plan: SweepPlan,
  run: PlannedRun,
  scenario: { sha256: string; file: string },
): RunJobData {
  return {
    version: plan.identity.kafkasimVersion,
    sweep: plan.identity.id,
    scenarioSha256: scenario.sha256,
    scenarioFile: scenario.file,
    set: [...plan.set, ...setFlagsOf(run.cell)],
    seed: run.seed,
    metrics: plan.metrics,
    cell: run.cell.index,
  };
}

/** `run-<32 hex>`: the hash of what decides the run's result (BullMQ ids may not be plain integers or hold ':'). */
export function runJobId(data: Pick<RunJobData, 'scenarioSha256' | 'set' | 'seed' | 'metrics'>): string {
  const key = JSON.stringify([packageVersion(), data.scenarioSha256, data.set, data.seed, data.metrics]);
  return `run-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}
