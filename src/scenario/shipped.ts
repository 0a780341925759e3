// The scenarios that ship with kafkasim (the scenarios/ folder of the package), for `kafkasim list` and for
// running one by name (`kafkasim run automq-reassign-hotspot`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

export interface ShippedScenario {
  /** File name without .yaml. */
  id: string;
  file: string;
  name: string;
  /** The first line of the description. */
  summary: string;
}

/** Every scenarios/*.yaml file, by id; a file that does not parse is listed with the problem as summary. */
export function listShippedScenarios(dir: string = SCENARIOS_DIR): ShippedScenario[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const file = `${dir}${dir.endsWith('/') ? '' : '/'}${f}`;
      const id = f.slice(0, -'.yaml'.length);
      try {
        const doc = parse(readFileSync(file, 'utf8')) as { name?: unknown; description?: unknown } | null;
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

/** The file of a shipped scenario given by id (or name), if there is one. */
export function shippedScenarioFile(idOrName: string, dir: string = SCENARIOS_DIR): string | undefined {
  return listShippedScenarios(dir).find((s) => s.id === idOrName || s.name === idOrName)?.file;
}
