// Logs described by their epochs, for the Raft decision tests: runs of entries per epoch.
import type { EpochStart } from '../../../models/raft/index.ts';

/** A log from runs of entries per epoch (empty runs leave no epoch entry). */
export function logOf(runs: readonly { epoch: number; length: number }[]): {
  epochs: EpochStart[];
  end: number;
} {
  const epochs: EpochStart[] = [];
  let end = 0;
  for (const r of runs) {
    if (r.length === 0) continue;
    epochs.push({ epoch: r.epoch, startOffset: end });
    end += r.length;
  }
  return { epochs, end };
}

/** The epoch of the entry at `offset`. */
export function epochAt(log: { epochs: EpochStart[] }, offset: number): number {
  let epoch = 0;
  for (const e of log.epochs) if (e.startOffset <= offset) epoch = e.epoch;
  return epoch;
}
