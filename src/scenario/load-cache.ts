// Loading the same scenario file with the same --set flags again without parsing and validating it again: a
// sweep's worker thread runs every cell once per seed, so it would otherwise parse the YAML, apply the flags and
// validate the result for each run. The file is still read every time (the cache is keyed by its text, so an
// edited file is loaded afresh), and each caller gets its own copy (structuredClone), so nothing a run does to its
// scenario reaches the next one. Errors are not cached.
import { type LoadedScenario, loadScenarioFileText, readScenarioFile } from './load.ts';

export class ScenarioLoadCache {
  private readonly loaded = new Map<string, LoadedScenario>();
  /** Loads answered from the cache (not parsed again). */
  hits = 0;

  /** @param capacity how many (text, flags) pairs are kept; the least recently used goes first. */
  constructor(private readonly capacity = 32) {}

  /** loadScenarioFile(file, { set }), from the cache when this text with these flags was loaded before. */
  load(file: string, set: readonly string[] = []): LoadedScenario {
    const text = readScenarioFile(file);
    // NUL separates the parts: it cannot appear in a --set flag given on a command line.
    const key = [file, text, ...set].join('\0');
    let hit = this.loaded.get(key);
    if (hit) {
      this.hits++;
      this.loaded.delete(key);
    } else hit = loadScenarioFileText(text, file, { set });
    this.loaded.set(key, hit);
    if (this.loaded.size > this.capacity) this.loaded.delete(this.loaded.keys().next().value!);
    return structuredClone(hit);
  }

  get size(): number {
    return this.loaded.size;
  }
}
