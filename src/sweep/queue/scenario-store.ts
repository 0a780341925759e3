// Scenario files travel with the sweep: the submitter stores the file's text in Redis under its SHA-256, once, and
// workers fetch it by that hash and keep it in a folder of their own, so a worker needs no shared file system and
// no copy of the submitter's files. A scenario that reads other files (a reassign step's `file:`) cannot travel
// like that and is refused at submission, as a scenario sent to `kafkasim serve` is.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadScenarioText, ScenarioError } from '../../scenario/index.ts';
import { SweepInputError } from '../errors.ts';
import { KEEP_FINISHED_S } from './queue-config.ts';
import type { RedisClient } from './queue-modules.ts';

const key = (sha256: string) => `kafkasim:scenario:${sha256}`;

/** The scenario's text as it travels, and its SHA-256 (the key workers fetch it by). */
export interface QueuedScenario {
  text: string;
  sha256: string;
}

export const textSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Reads the scenario file for the queue; refuses one that reads other files. Throws SweepInputError. */
export function scenarioForQueue(path: string, set: readonly string[]): QueuedScenario {
  const text = readFileSync(path, 'utf8');
  try {
    loadScenarioText(text, path, { set, allowFileReferences: false });
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    throw new SweepInputError(
      `--queue: workers get the scenario's text only, not the files next to it:\n${e.issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
    );
  }
  return { text, sha256: textSha256(text) };
}

/** Stores the text (kept as long as finished jobs are). */
export async function storeScenario(redis: RedisClient, sha256: string, text: string): Promise<void> {
  await redis.set(key(sha256), text, 'EX', KEEP_FINISHED_S);
}

/** A worker's local copies of the scenarios it ran, one file per hash. */
export class ScenarioCache {
  private readonly dir = mkdtempSync(join(tmpdir(), 'kafkasim-worker-'));
  private readonly paths = new Map<string, string>();

  constructor(private readonly redis: RedisClient) {}

  /** The path of a local copy of the scenario; throws when the queue no longer has it. */
  async path(sha256: string, fileName: string): Promise<string> {
    const known = this.paths.get(sha256);
    if (known) return known;
    const text = await this.redis.get(key(sha256));
    if (text === null)
      throw new Error(`the scenario ${fileName} (SHA-256 ${sha256.slice(0, 12)}…) is no longer on the queue`);
    if (textSha256(text) !== sha256)
      throw new Error(`the scenario ${fileName} on the queue does not match its hash`);
    const folder = join(this.dir, sha256.slice(0, 16));
    mkdirSync(folder, { recursive: true });
    const path = join(folder, basename(fileName));
    writeFileSync(path, text);
    this.paths.set(sha256, path);
    return path;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
