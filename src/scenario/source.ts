// A scenario's source: the YAML document with the position of every node, so that any problem found later
// (schema, references, --set overrides) can point at file:line:column. Overrides from `--set path=value` are
// applied to the document itself and remembered, so problems in what they set point at the flag instead.
import { Document, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { FORBIDDEN_CONFIG_NAMES } from '../../models/metadata/index.ts';
import { formatPath, ScenarioError, type ScenarioIssue } from './errors.ts';

export type DocPath = (string | number)[];

/**
 * Aliases a document may expand, at most (yaml's own default, used for every YAML kafkasim reads): a "billion
 * laughs" document of nested aliases is refused instead of expanded.
 */
export const YAML_MAX_ALIAS_COUNT = 100;

/** Keys no scenario (and no --set path) may use: they reach Object.prototype when copied into a plain object. */
const FORBIDDEN_KEYS = FORBIDDEN_CONFIG_NAMES;

/** The first forbidden key in a parsed value, as a path; undefined when there is none. */
export function forbiddenKeyPath(value: unknown): DocPath | undefined {
  const stack: { v: unknown; path: DocPath }[] = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: [...path, i] });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key)) return [...path, key];
      stack.push({ v: (v as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return undefined;
}

/** yaml's toJS with the alias limit; an alias bomb or a document nested too deep is a ScenarioError. */
function toJsChecked(doc: Document, name: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof ReferenceError || e instanceof RangeError) {
      const message =
        e instanceof ReferenceError
          ? `the YAML's aliases expand to too many nodes (at most ${YAML_MAX_ALIAS_COUNT} alias uses): ${e.message}`
          : 'the YAML is nested too deeply';
      throw new ScenarioError([{ source: name, path: '', message }]);
    }
    throw e;
  }
}

interface Override {
  flag: string;
  path: DocPath;
}

/** Maps that hold free-form Kafka keys (with dots), where a --set path's remaining segments form one key. */
const FREE_FORM_MAPS = new Set(['configs', 'config', 'slowBrokers', 'equals', 'metrics']);

export class ScenarioSource {
  private readonly overrides: Override[] = [];
  private readonly lines: string[] | undefined;

  private constructor(
    /** File name as given, or `<inline>`. */
    readonly name: string,
    readonly doc: Document,
    private readonly lineCounter: LineCounter | undefined,
    text: string | undefined,
  ) {
    this.lines = text?.split(/\r?\n/);
  }

  /** Parses YAML text; syntax errors come back as issues (the document is then unusable). */
  static parse(name: string, text: string): { source: ScenarioSource; issues: ScenarioIssue[] } {
    const lineCounter = new LineCounter();
    let doc: Document.Parsed;
    try {
      doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      return {
        source: new ScenarioSource(name, new Document(null), undefined, undefined),
        issues: [{ source: name, path: '', message: 'invalid YAML: nested too deeply', syntax: true }],
      };
    }
    const source = new ScenarioSource(name, doc, lineCounter, text);
    // Only the first syntax error: the parser's recovery from it reports follow-on errors (an unclosed bracket or
    // quote makes every later line look wrong) that mislead more than they help.
    const first = doc.errors.reduce<(typeof doc.errors)[number] | undefined>(
      (a, e) => (a === undefined || e.pos[0] < a.pos[0] ? e : a),
      undefined,
    );
    if (first === undefined) return { source, issues: [] };
    const { line, col } = lineCounter.linePos(first.pos[0]);
    const message = `invalid YAML: ${first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
    return { source, issues: [{ ...source.issueAt(line, col, [], message), syntax: true }] };
  }

  /** Wraps an object given through the library API (no positions). */
  static fromObject(value: unknown, name = '<inline>'): ScenarioSource {
    return new ScenarioSource(name, new Document(value), undefined, undefined);
  }

  /** The document as plain values. Throws ScenarioError for an alias bomb, deep nesting or a forbidden key. */
  toJS(): unknown {
    const value = toJsChecked(this.doc, this.name);
    const bad = forbiddenKeyPath(value);
    if (bad !== undefined)
      throw new ScenarioError([
        this.issue(bad, `the key '${String(bad.at(-1))}' is not allowed (it would reach Object.prototype)`, {
          key: true,
        }),
      ]);
    return value;
  }

  private issueAt(line: number, column: number, path: DocPath, message: string): ScenarioIssue {
    const excerpt = this.lines?.[line - 1]?.replace(/\t/g, ' ');
    return {
      source: this.name,
      line,
      column,
      path: formatPath(path),
      message,
      ...(excerpt !== undefined ? { excerpt } : {}),
    };
  }

  /**
   * An issue at `path`. With `key`, it points at the mapping key of the last segment (for unknown keys);
   * otherwise at the value. Paths inside a --set override point at the flag.
   */
  issue(path: DocPath, message: string, options: { key?: boolean } = {}): ScenarioIssue {
    const override = this.overrideCovering(path);
    if (override) return { source: `--set ${override.flag}`, path: formatPath(path), message };
    const offset = this.offsetOf(path, options.key ?? false);
    if (offset === undefined || !this.lineCounter)
      return { source: this.name, path: formatPath(path), message };
    const { line, col } = this.lineCounter.linePos(offset);
    return this.issueAt(line, col, path, message);
  }

  private overrideCovering(path: DocPath): Override | undefined {
    // The latest override wins, as it does for the value.
    for (let i = this.overrides.length - 1; i >= 0; i--) {
      const o = this.overrides[i]!;
      if (o.path.length <= path.length && o.path.every((seg, j) => String(seg) === String(path[j]))) return o;
    }
    return undefined;
  }

  /** Start offset of the node at `path`, or of its nearest ancestor that has a position. */
  private offsetOf(path: DocPath, key: boolean): number | undefined {
    let node: unknown = this.doc.contents;
    let best: number | undefined = rangeStart(node);
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) return best;
        if (key && i === path.length - 1) return rangeStart(pair.key) ?? best;
        node = pair.value;
        best = rangeStart(node) ?? rangeStart(pair.key) ?? best;
      } else if (isSeq(node)) {
        const item = node.items[Number(seg)];
        if (item === undefined) return best;
        node = item;
        best = rangeStart(node) ?? best;
      } else return best;
    }
    return best;
  }

  /**
   * Applies `path=value` (value read as YAML, so `16` is a number and `[1, 2]` a list). Returns issues for a
   * malformed flag or a path that cannot exist (an index past the end of a list, a key under a scalar).
   */
  applySet(flag: string): ScenarioIssue[] {
    const eq = flag.indexOf('=');
    const pathText = eq > 0 ? flag.slice(0, eq).trim() : '';
    const fail = (message: string): ScenarioIssue[] => [{ source: `--set ${flag}`, path: pathText, message }];
    if (eq <= 0) return fail('expected path=value, e.g. topics.0.partitions=16');
    const segments = parsePathText(pathText);
    if (!segments) {
      return fail(
        `cannot read the path '${pathText}': expected keys and indices separated by dots, e.g. topics.0.partitions or cluster.configs["min.insync.replicas"]`,
      );
    }
    const forbidden = segments.find((seg) => FORBIDDEN_KEYS.has(seg.text));
    if (forbidden)
      return fail(`the key '${forbidden.text}' is not allowed (it would reach Object.prototype)`);
    const valueDoc = parseDocument(flag.slice(eq + 1));
    if (valueDoc.errors.length > 0) {
      return fail(`the value is not valid YAML: ${valueDoc.errors[0]!.message.split('\n')[0]}`);
    }
    let value: unknown;
    try {
      value = toJsChecked(valueDoc, `--set ${flag}`);
    } catch (e) {
      if (e instanceof ScenarioError) return fail(e.issues[0]!.message);
      throw e;
    }
    const bad = forbiddenKeyPath(value);
    if (bad !== undefined)
      return fail(`the key '${String(bad.at(-1))}' is not allowed (it would reach Object.prototype)`);
    const resolved: DocPath = [];
    let node: unknown = this.doc.contents;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      if (isSeq(node)) {
        if (!/^\d+$/.test(seg.text)) {
          return fail(
            `${formatPath(resolved) || '(document)'} is a list: expected an index, found '${seg.text}'`,
          );
        }
        const index = Number(seg.text);
        if (index >= node.items.length) {
          const n = node.items.length;
          return fail(
            `${formatPath(resolved)} has ${n} item${n === 1 ? '' : 's'}: index ${index} is out of range (0..${n - 1})`,
          );
        }
        resolved.push(index);
        node = node.items[index];
      } else if (isMap(node) || node === undefined || node === null || isScalar(node)) {
        if (isScalar(node) && node.value !== null) {
          return fail(
            `${formatPath(resolved)} is a ${typeof node.value}, not a mapping: cannot set '${seg.text}' in it`,
          );
        }
        const map = isMap(node) ? node : undefined;
        const parentKey = resolved[resolved.length - 1];
        // Keys may contain dots (config keys): the longest run of segments naming an existing key wins.
        let taken = 0;
        if (map && !seg.quoted) {
          for (let j = segments.length; j > i; j--) {
            const candidate = segments
              .slice(i, j)
              .map((s) => s.text)
              .join('.');
            if (map.items.some((p) => isScalar(p.key) && String(p.key.value) === candidate)) {
              taken = j - i;
              break;
            }
          }
        }
        if (taken === 0) {
          taken =
            !seg.quoted && typeof parentKey === 'string' && FREE_FORM_MAPS.has(parentKey)
              ? segments.length - i
              : 1;
        }
        const key = segments
          .slice(i, i + taken)
          .map((s) => s.text)
          .join('.');
        resolved.push(key);
        node = map?.items.find((p) => isScalar(p.key) && String(p.key.value) === key)?.value;
        i += taken - 1;
      } else {
        return fail(`${formatPath(resolved)} cannot hold '${seg.text}'`);
      }
    }
    if (resolved.length === 0) return fail('the path is empty');
    // An empty section (`cluster:` with nothing under it) is a null scalar: make it a mapping to set into.
    for (let n = 1; n < resolved.length; n++) {
      const at = this.doc.getIn(resolved.slice(0, n), true);
      if (isScalar(at) && at.value === null) this.doc.setIn(resolved.slice(0, n), this.doc.createNode({}));
    }
    try {
      this.doc.setIn(resolved, this.doc.createNode(value));
    } catch (e) {
      return fail(`cannot set ${formatPath(resolved)}: ${(e as Error).message}`);
    }
    this.overrides.push({ flag, path: resolved });
    return [];
  }
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | undefined)?.range;
  return range ? range[0] : undefined;
}

/** `a.b.0["x.y"]` -> segments; quoted segments are one key even with dots. Undefined when malformed. */
function parsePathText(text: string): { text: string; quoted: boolean }[] | undefined {
  const out: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '[') {
      const m = /^\[\s*("(?:[^"\\]|\\.)*"|'[^']*'|\d+)\s*\]/.exec(text.slice(i));
      if (!m) return undefined;
      const raw = m[1]!;
      out.push(
        raw.startsWith('"')
          ? { text: JSON.parse(raw) as string, quoted: true }
          : raw.startsWith("'")
            ? { text: raw.slice(1, -1), quoted: true }
            : { text: raw, quoted: false },
      );
      i += m[0].length;
      if (text[i] === '.') i++;
      continue;
    }
    const m = /^[^.[\]]+/.exec(text.slice(i));
    if (!m) return undefined;
    out.push({ text: m[0], quoted: false });
    i += m[0].length;
    if (text[i] === '.') {
      i++;
      if (i === text.length) return undefined;
    }
  }
  return out.length > 0 ? out : undefined;
}
