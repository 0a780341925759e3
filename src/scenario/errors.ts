// Errors in a scenario: every problem names where it is (file:line:column, or the --set flag that caused it),
// the path inside the document, and what was expected, so that a user can fix the file without guessing.

/** One problem with a scenario, located as precisely as the input allows. */
import { ExitCode, KafkasimError } from '../../models/sim/index.ts';
export interface ScenarioIssue {
  /** The file, `<inline>` for an object, or `--set <path>=<value>` when an override caused it. */
  source: string;
  /** 1-based; absent when the location is not in a file (inline objects, --set). */
  line?: number;
  column?: number;
  /** The path inside the document, in --set syntax (`topics.0.partitions`); '' for the whole document. */
  path: string;
  message: string;
  /** The source line the problem is on (for a caret under the column), when known. */
  excerpt?: string;
  /** A YAML syntax error: the text does not parse, so the problem is at a line and column, not at a path. */
  syntax?: true;
}

/** Renders a path (string keys and array indices) in --set syntax; keys with dots are bracketed and quoted. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += out ? `.${seg}` : String(seg);
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

export function formatIssue(issue: ScenarioIssue): string {
  const where =
    issue.line !== undefined ? `${issue.source}:${issue.line}:${issue.column ?? 1}` : `${issue.source}`;
  // A problem with the file as a whole (it cannot be read) has neither a position nor a path; a syntax error has
  // a position and no path (the text around it is not yet a document).
  if (issue.syntax || (issue.path === '' && issue.line === undefined)) return `${where}: ${issue.message}`;
  const path = issue.path === '' ? '(document)' : issue.path;
  return `${where}: ${path}: ${issue.message}`;
}

/** The issue with the offending source line and a caret under the column. */
export function formatIssueWithExcerpt(issue: ScenarioIssue): string {
  const head = formatIssue(issue);
  if (issue.excerpt === undefined || issue.line === undefined) return head;
  const gutter = String(issue.line);
  const caret = `${' '.repeat(gutter.length)} | ${' '.repeat(Math.max(0, (issue.column ?? 1) - 1))}^`;
  return `${head}\n  ${gutter} | ${issue.excerpt}\n  ${caret}`;
}

/** A scenario that cannot run as written: invalid YAML, a schema violation, or a reference to nothing. */
export class ScenarioError extends KafkasimError {
  readonly code = 'INVALID_SCENARIO';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'ScenarioError';
  constructor(readonly issues: readonly ScenarioIssue[]) {
    super(issues.map(formatIssue).join('\n'));
  }
}

/** Describes a value for "found ..." in messages: `string "x"`, `integer 3`, `a list`, `a mapping`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
  return `${typeof value} ${String(value)}`;
}

// The hint is shared with the CLI's flags, commands and scenario names (src/did-you-mean.ts).
export { didYouMean } from '../did-you-mean.ts';
