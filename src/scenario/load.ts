// Loading a scenario: read the YAML (keeping every node's position), apply --set overrides, validate against
// the JSON Schema, then check references. Any problem throws one ScenarioError listing every issue found, each
// with file:line:column (or the --set flag), the path inside the document and what was expected.
import { dirname, resolve } from 'node:path';
import type { ReassignmentJson } from '../format/index.ts';
import { ScenarioError, type ScenarioIssue } from './errors.ts';
import { InputFileError, readInputFile } from './input-file.ts';
import { checkReferences } from './references.ts';
import { validateAgainstSchema } from './schema-errors.ts';
import { ScenarioSource } from './source.ts';
import type { ScenarioSpec } from './types.ts';

export interface LoadOptions {
  /** `path=value` overrides, applied in order (later wins). */
  set?: readonly string[];
  /** Where relative file references (reassign `file:`) resolve from. Default: the file's folder, or cwd. */
  baseDir?: string;
  /**
   * False for a scenario that came over the network: a `file:` reference is then an error, never a read of
   * the server's files. Default true.
   */
  allowFileReferences?: boolean;
}

export interface LoadedScenario {
  spec: ScenarioSpec;
  /** The file it came from, if any. */
  file: string | undefined;
  baseDir: string;
  brokerIds: number[];
  /** The reassignment JSON of each reassign step, by timeline index. */
  reassignments: Map<number, ReassignmentJson>;
}

/** Reads and validates a scenario file. Throws ScenarioError. */
export function loadScenarioFile(file: string, options: LoadOptions = {}): LoadedScenario {
  return loadScenarioFileText(readScenarioFile(file), file, options);
}

/** A scenario file's text. Throws ScenarioError when it cannot be read. */
export function readScenarioFile(file: string): string {
  try {
    return readInputFile(file);
  } catch (e) {
    if (!(e instanceof InputFileError)) throw e;
    throw new ScenarioError([{ source: file, path: '', message: e.message }]);
  }
}

/** Validates the text read from `file` (relative `file:` references resolve from its folder). Throws ScenarioError. */
export function loadScenarioFileText(text: string, file: string, options: LoadOptions = {}): LoadedScenario {
  return loadScenarioText(text, file, { baseDir: dirname(resolve(file)), ...options });
}

/** Validates YAML text; `name` is what error messages call it. Throws ScenarioError. */
export function loadScenarioText(text: string, name: string, options: LoadOptions = {}): LoadedScenario {
  const { source, issues } = ScenarioSource.parse(name, text);
  if (issues.length > 0) throw new ScenarioError(issues);
  return finish(source, name, options);
}

/** Validates a scenario given as an object (library API). Throws ScenarioError. */
export function loadScenarioObject(value: unknown, options: LoadOptions = {}): LoadedScenario {
  return finish(ScenarioSource.fromObject(value), undefined, options);
}

function finish(source: ScenarioSource, file: string | undefined, options: LoadOptions): LoadedScenario {
  const setIssues = (options.set ?? []).flatMap((flag) => source.applySet(flag));
  if (setIssues.length > 0) throw new ScenarioError(setIssues);
  const data = source.toJS();
  const problems = validateAgainstSchema(data);
  if (problems.length > 0) {
    throw new ScenarioError(
      sortIssues(problems.map((p) => source.issue(p.path, p.message, { key: p.key ?? false }))),
    );
  }
  const spec = data as ScenarioSpec;
  const baseDir = options.baseDir ?? process.cwd();
  const { issues, refs } = checkReferences(
    spec,
    source,
    options.allowFileReferences === false ? undefined : baseDir,
  );
  if (issues.length > 0) throw new ScenarioError(sortIssues(issues));
  return { spec, file, baseDir, brokerIds: refs.brokerIds, reassignments: refs.reassignments };
}

function sortIssues(issues: ScenarioIssue[]): ScenarioIssue[] {
  return [...issues].sort(
    (a, b) =>
      (a.source === b.source ? 0 : a.source < b.source ? -1 : 1) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
