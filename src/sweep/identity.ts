// What makes two sweep documents parts of one sweep: the scenario's content (a hash of the file and of the
// reassignment files it reads, so the same file under another path or on another machine is the same sweep), the
// fixed overrides, the grid, the seeds, the metrics and the kafkasim version that ran it (another version may
// simulate differently). `kafkasim sweep merge` refuses parts whose identities differ.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { packageVersion } from '../package-files.ts';
import type { LoadedScenario } from '../scenario/index.ts';
import type { GridAxis } from './grid.ts';

export interface SweepIdentity {
  /** A short hash of everything below and the scenario's name, set, grid, seeds and metrics. */
  id: string;
  /** SHA-256 of the scenario file's bytes (and of the reassignment files it reads, if any). */
  scenarioSha256: string;
  kafkasimVersion: string;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** The hash of a scenario's content: its file's bytes, then each reassignment file it reads. */
export function scenarioHash(path: string, loaded: Pick<LoadedScenario, 'reassignments'>): string {
  const bytes = readFileSync(path);
  if (loaded.reassignments.size === 0) return sha256(bytes);
  const files = [...loaded.reassignments.entries()].sort(([a], [b]) => a - b);
  return sha256(Buffer.concat([bytes, Buffer.from(`\0${JSON.stringify(files)}`)]));
}

export function sweepIdentity(fields: {
  scenario: string;
  scenarioSha256: string;
  set: readonly string[];
  grid: readonly GridAxis[];
  seeds: readonly (number | string)[];
  metrics: readonly string[];
  kafkasimVersion?: string;
}): SweepIdentity {
  const kafkasimVersion = fields.kafkasimVersion ?? packageVersion();
  const id = sha256(
    JSON.stringify([
      fields.scenario,
      fields.scenarioSha256,
      fields.set,
      fields.grid,
      fields.seeds,
      fields.metrics,
      kafkasimVersion,
    ]),
  ).slice(0, 16);
  return { id, scenarioSha256: fields.scenarioSha256, kafkasimVersion };
}
