// The scenarios that ship with kafkasim (the scenarios/ folder of the package), for `kafkasim list` and for
// running one by name (`kafkasim run automq-reassign-hotspot`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { didYouMean } from '../did-you-mean.ts';
import { packageFile } from '../package-files.ts';

export const SCENARIOS_DIR = `${packageFile('scenarios')}/`;

export interface ShippedScenario {
  /** File name without .yaml. */
  id: string;
  file: string;
  name: string;
  /** The first line of the description. */
  summary: string;
}

/**
 * Every scenarios/*.yaml file, by id; a file whose name and description do not parse is listed with the problem as
 * summary (`kafkasim validate` checks the rest).
 */
export function listShippedScenarios(dir: string = SCENARIOS_DIR): ShippedScenario[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const file = `${dir}${dir.endsWith('/') ? '' : '/'}${f}`;
      const id = f.slice(0, -'.yaml'.length);
      try {
        const header = headerOf(readFileSync(file, 'utf8'));
        const quick = plainHeader(header);
        if (quick) return { id, file, ...quick };
        const doc = parseYaml(header) as { name?: unknown; description?: unknown } | null;
        const description = typeof doc?.description === 'string' ? doc.description.trim() : '';
        return {
          id,
          file,
          name: typeof doc?.name === 'string' ? doc.name : id,
          summary: description.split('\n')[0] ?? '',
        };
      } catch (e) {
        return { id, file, name: id, summary: `(does not parse: ${(e as Error).message.split('\n')[0]})` };
      }
    });
}

/**
 * The top-level `name` and `description` entries of a scenario's YAML (each key's line and the indented, blank or
 * comment lines under it), which is all a listing needs: parsing only them keeps `kafkasim list` fast (the whole
 * files cost several times more). A document laid out otherwise (flow style, no such keys) is returned whole.
 */
function headerOf(text: string): string {
  const kept: string[] = [];
  let keep = false;
  for (const line of text.split('\n')) {
    if (/^[^\s#]/.test(line)) keep = /^(name|description)\s*:/.test(line);
    if (keep) kept.push(line);
  }
  return kept.length > 0 ? kept.join('\n') : text;
}

/**
 * The name and the description's first line of a header written as every shipped scenario writes it, without the
 * YAML library (whose ~70 modules cost `kafkasim list` as much as the rest of its start-up): `name: <plain word>`
 * and `description: |` (a literal block, whose lines are the text as written). Anything else is left to the parser.
 */
export function plainHeader(header: string): { name: string; summary: string } | undefined {
  const lines = header.split('\n');
  const nameLine = lines.findIndex((l) => /^name\s*:/.test(l));
  const descLine = lines.findIndex((l) => /^description\s*:/.test(l));
  const name = /^name\s*:\s*([\w.-]+)\s*$/.exec(lines[nameLine] ?? '')?.[1];
  if (name === undefined || !/^description\s*:\s*\|-?\s*$/.test(lines[descLine] ?? '')) return undefined;
  const first = lines.slice(descLine + 1).find((l) => l.trim() !== '');
  // The block's lines must be indented (a top-level line ends it) and hold no tab (YAML forbids tab indentation).
  if (first === undefined || !/^ +\S/.test(first) || first.includes('\t')) return undefined;
  return { name, summary: first.trim() };
}

/** The YAML library, loaded only for a header plainHeader cannot read (CommonJS build: this function is sync). */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text);
}

/** The file of a shipped scenario given by id (or name), if there is one. */
export function shippedScenarioFile(idOrName: string, dir: string = SCENARIOS_DIR): string | undefined {
  // By id, the file is known without parsing every shipped scenario (this is on `kafkasim run <name>`'s start-up).
  const byId = `${dir}${dir.endsWith('/') ? '' : '/'}${idOrName}.yaml`;
  if (/^[\w.-]+$/.test(idOrName) && existsSync(byId)) return byId;
  return listShippedScenarios(dir).find((s) => s.id === idOrName || s.name === idOrName)?.file;
}

/**
 * What a scenario argument names: an existing file (a relative path against the working directory), else a shipped
 * scenario by id or name, else the argument unchanged (reading it then reports the missing file).
 */
export function scenarioFileOf(arg: string): string {
  if (existsSync(arg)) return arg;
  return shippedScenarioFile(arg) ?? arg;
}

/**
 * When `arg` is a bare name (no folder, no .yaml) that is neither a file nor a shipped scenario: the hint to print
 * after it, ` (did you mean 'x'?)`, or '' when nothing is near. Undefined when `arg` is a file, a shipped scenario
 * or a path (a missing path is reported as a missing file where it was expected).
 */
export function unknownScenarioNameHint(arg: string): string | undefined {
  if (scenarioFileOf(arg) !== arg || existsSync(arg)) return undefined;
  if (!/^[\w.-]+$/.test(arg) || /\.ya?ml$/i.test(arg)) return undefined;
  const hints = nearestShippedScenarios(arg).map((id) => `'${id}'`);
  if (hints.length === 0) return '';
  return ` (did you mean ${hints.length === 1 ? hints[0] : `one of ${hints.join(', ')}`}?)`;
}

/**
 * The shipped scenarios a misspelt or shortened name most likely means: the nearest by edit distance, else the few
 * ids that contain it (`automq-self-balancing` for `automq-self-balancing-5-brokers`).
 */
function nearestShippedScenarios(arg: string): string[] {
  const ids = listShippedScenarios().map((s) => s.id);
  const near = didYouMean(arg, ids);
  if (near !== undefined) return [near];
  const containing = ids.filter((id) => id.includes(arg.toLowerCase()));
  return containing.length <= 3 ? containing : [];
}
