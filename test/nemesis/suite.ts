// Runs a configuration over a range of seeds and says, for each run that broke a promise of its configuration,
// what broke and how to replay it.
import {
  brokenPromises,
  NEMESIS_CONFIGS,
  type NemesisConfigName,
  type NemesisResult,
  replayCommand,
  runNemesis,
} from './nemesis.ts';

export interface SuiteOutcome {
  results: NemesisResult[];
  /** One line per run that broke a promise of its configuration, with the command that replays it. */
  failures: string[];
}

/** The failure line of one run, or undefined when it kept every promise of its configuration. */
export function failureOf(r: NemesisResult): string | undefined {
  const broken = brokenPromises(r);
  if (broken.length === 0) return undefined;
  return `${r.config} seed ${r.seed}: ${broken.join('; ')}\n  replay: ${replayCommand(r.config, r.seed)}`;
}

/** `count` seeds of `config` from `first`. */
export function runSeeds(config: NemesisConfigName, first: number, count: number): SuiteOutcome {
  const results: NemesisResult[] = [];
  const failures: string[] = [];
  for (let seed = first; seed < first + count; seed++) {
    const r = runNemesis(config, seed);
    results.push(r);
    const f = failureOf(r);
    if (f) failures.push(f);
  }
  return { results, failures };
}

export const CONFIG_NAMES = Object.keys(NEMESIS_CONFIGS) as NemesisConfigName[];
