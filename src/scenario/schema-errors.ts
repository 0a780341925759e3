// Turns ajv's errors into messages a person can act on: one per problem, at the right node, saying what was
// expected and what was found. Unions (`anyOf`/`oneOf` of value shapes) are resolved by re-validating the value
// against each branch and reporting only the branch the value was evidently meant to be; "exactly one of these
// keys" unions become one message naming the keys.
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { describeValue, didYouMean } from './errors.ts';
import { SCENARIO_SCHEMA_ID, scenarioSchema } from './schema.ts';
import type { DocPath } from './source.ts';

export interface SchemaProblem {
  path: DocPath;
  message: string;
  /** Point at the key of the last path segment rather than its value. */
  key?: boolean;
}

type Schema = Record<string, unknown>;

let ajvInstance: Ajv | undefined;
let rootValidator: ValidateFunction | undefined;
const branchValidators = new Map<string, ValidateFunction>();

function ajv(): Ajv {
  if (!ajvInstance) {
    // Loaded here, not imported: from the build a valid document never needs ajv's compiler (the precompiled
    // validator accepts it), and loading ajv costs a run or a sweep worker about as much as a fifth of all its
    // other modules together.
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajvInstance = new Ajv({ allErrors: true, strict: true, verbose: true, allowUnionTypes: true });
    rootValidator = ajvInstance.compile({ ...scenarioSchema, $id: SCENARIO_SCHEMA_ID });
  }
  return ajvInstance;
}

let precompiled: ((data: unknown) => boolean) | null | undefined;

/** The build's precompiled validator (see precompile-validator.ts), or null when running from the sources. */
function precompiledValidator(): ((data: unknown) => boolean) | null {
  if (precompiled === undefined) {
    try {
      precompiled = createRequire(import.meta.url)('./scenario-validator.cjs') as (data: unknown) => boolean;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
      precompiled = null;
    }
  }
  return precompiled;
}

/** Validates a whole scenario document; returns the problems (empty when valid). */
export function validateAgainstSchema(data: unknown): SchemaProblem[] {
  if (precompiledValidator()?.(data)) return [];
  ajv();
  if (rootValidator!(data)) return [];
  return convert(rootValidator!.errors ?? [], [], data);
}

/** Where each sub-schema object sits in the schema document (errors name schemas by object, not by path). */
let pointers: WeakMap<object, string> | undefined;

function pointerOf(schema: object): string | undefined {
  if (!pointers) {
    pointers = new WeakMap();
    const walk = (node: unknown, pointer: string) => {
      if (!node || typeof node !== 'object') return;
      if (!pointers!.has(node)) pointers!.set(node, pointer);
      for (const [k, v] of Object.entries(node))
        walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    };
    walk(scenarioSchema, '');
  }
  return pointers.get(schema);
}

/** A validator for branch `index` of the union `keyword` in `parent` (a sub-schema of the scenario schema). */
function branchValidator(parent: object, keyword: string, index: number): ValidateFunction {
  const at = pointerOf(parent);
  if (at === undefined) throw new Error(`schema-errors: a union's schema is not part of the scenario schema`);
  const pointer = `${at}/${keyword}/${index}`;
  let v = branchValidators.get(pointer);
  if (!v) {
    v = ajv().compile({ $ref: `${SCENARIO_SCHEMA_ID}#${pointer}` });
    branchValidators.set(pointer, v);
  }
  return v;
}

function pointerToPath(pointer: string): DocPath {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const within = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);

/** A union whose branches are each `{required: [key], properties: {key: true}}`: "one of these keys". */
function keyChoice(e: ErrorObject): string[] | undefined {
  if ((e.keyword !== 'oneOf' && e.keyword !== 'anyOf') || !Array.isArray(e.schema)) return undefined;
  const keys: string[] = [];
  for (const branch of e.schema as Schema[]) {
    const req = branch.required;
    if (
      !Array.isArray(req) ||
      req.length !== 1 ||
      Object.keys(branch).some((k) => k !== 'required' && k !== 'properties')
    )
      return undefined;
    keys.push(String(req[0]));
  }
  return keys;
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'nothing (null)',
};

function typeWords(type: unknown): string {
  const list = Array.isArray(type) ? type : [type];
  return list.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
}

function titleOf(schema: unknown): string | undefined {
  const s = schema as Schema | undefined;
  if (!s) return undefined;
  if (typeof s.title === 'string') return s.title;
  return undefined;
}

function listKeys(keys: string[]): string {
  return keys.length <= 24 ? keys.join(', ') : `${keys.slice(0, 24).join(', ')}, ...`;
}

function convert(errors: readonly ErrorObject[], base: DocPath, _root: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const handled = new Set<ErrorObject>();
  const keyChoices = errors.filter((e) => keyChoice(e) !== undefined);
  // Branch errors of key-choice unions are only "missing key X" for each candidate: the union speaks for them.
  for (const kc of keyChoices) {
    for (const e of errors) {
      if (
        e.keyword === 'required' &&
        e.instancePath === kc.instancePath &&
        e.schemaPath.startsWith(`${kc.schemaPath}/`)
      )
        handled.add(e);
    }
  }
  // Value unions, outermost first: everything inside their value is re-derived from the chosen branch.
  const unions = errors
    .filter((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && !keyChoices.includes(e))
    .sort((a, b) => a.instancePath.length - b.instancePath.length);
  const unionPaths: string[] = [];
  for (const u of unions) {
    if (handled.has(u)) continue;
    if (unionPaths.some((p) => within(u.instancePath, p))) {
      handled.add(u);
      continue;
    }
    unionPaths.push(u.instancePath);
    for (const e of errors) if (e !== u && within(e.instancePath, u.instancePath)) handled.add(e);
    out.push(...resolveUnion(u, [...base, ...pointerToPath(u.instancePath)]));
    handled.add(u);
  }
  const unknownKeyAt = new Set(
    errors.filter((e) => e.keyword === 'additionalProperties').map((e) => e.instancePath),
  );
  for (const e of errors) {
    if (handled.has(e)) continue;
    // Inner errors of propertyNames carry the key in `propertyName`; the propertyNames error reports them.
    if ((e as ErrorObject & { propertyName?: string }).propertyName !== undefined) continue;
    const path = [...base, ...pointerToPath(e.instancePath)];
    const kc = keyChoice(e);
    if (kc) {
      const present =
        e.data && typeof e.data === 'object' ? kc.filter((k) => Object.hasOwn(e.data as object, k)) : [];
      // A misspelt key is already reported as unknown (with a suggestion); "none given" would only repeat it.
      if (present.length === 0 && unknownKeyAt.has(e.instancePath)) continue;
      const how = e.keyword === 'oneOf' ? 'exactly one' : 'at least one';
      const found =
        present.length === 0
          ? 'found none'
          : `found ${present.slice(0, -1).join(', ')} and ${present[present.length - 1]}`;
      out.push({ path, message: `expected ${how} of these keys: ${listKeys(kc)}; ${found}` });
      continue;
    }
    out.push(single(e, path));
  }
  return dedupe(out);
}

function dedupe(problems: SchemaProblem[]): SchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${JSON.stringify(p.path)}|${p.key ? 1 : 0}|${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** How far into the value a branch got before failing: the branch the author meant gets furthest. */
function depthOf(e: ErrorObject): number {
  return pointerToPath(e.instancePath).length;
}

function resolveUnion(u: ErrorObject, path: DocPath): SchemaProblem[] {
  const branches = (u.schema as unknown[]) ?? [];
  const candidates: { errors: ErrorObject[]; depth: number }[] = [];
  branches.forEach((_, i) => {
    const v = branchValidator(u.parentSchema as object, u.keyword, i);
    if (v(u.data)) return;
    const errors = v.errors ?? [];
    const rejected = errors.some(
      (e) =>
        (e.keyword === 'type' && e.instancePath === '') ||
        (e.keyword === 'const' && pointerToPath(e.instancePath).length === 1) ||
        (e.keyword === 'enum' && e.instancePath === '' && typeof u.data !== 'object'),
    );
    if (!rejected) candidates.push({ errors, depth: Math.max(0, ...errors.map(depthOf)) });
  });
  const whole = (): SchemaProblem[] => {
    const expected =
      titleOf(u.parentSchema) ??
      branches.map((b) => titleOf(b) ?? typeWords((b as Schema).type ?? 'value')).join(' or ');
    let hint = '';
    if (u.data && typeof u.data === 'object' && !Array.isArray(u.data)) {
      // A mapping no branch accepts usually has a misspelt key: name it.
      const known = branches.flatMap((b) =>
        Object.keys(((b as Schema).properties as Schema | undefined) ?? {}),
      );
      const unknown = Object.keys(u.data).filter((k) => !known.includes(k));
      if (unknown.length > 0) {
        const suggestion = didYouMean(unknown[0]!, known);
        hint = ` with unknown key '${unknown[0]}'${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`;
      }
    }
    return [{ path, message: `expected ${expected}; found ${describeValue(u.data)}${hint}` }];
  };
  if (candidates.length === 0) return whole();
  let chosen = candidates[0]!;
  if (candidates.length > 1) {
    const deepest = Math.max(...candidates.map((c) => c.depth));
    const best = candidates.filter((c) => c.depth === deepest);
    if (best.length > 1 && deepest === 0) return whole();
    chosen = best[0]!;
  }
  return convert(chosen.errors, path, u.data);
}

function single(e: ErrorObject, path: DocPath): SchemaProblem {
  const found = describeValue(e.data);
  const parent = e.parentSchema as Schema | undefined;
  const title = titleOf(parent);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const allowed = Object.keys((parent?.properties as Schema | undefined) ?? {});
      const hint = didYouMean(key, allowed);
      return {
        path: [...path, key],
        key: true,
        message: `unknown key '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}; expected one of: ${listKeys(allowed)}`,
      };
    }
    case 'required':
      return { path, message: `missing required key '${String(p.missingProperty)}'` };
    case 'type':
      return { path, message: `expected ${title ?? typeWords(p.type)}; found ${found}` };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { path, message: `expected ${title ?? `one of ${allowed}`}; found ${found}` };
    }
    case 'const':
      return { path, message: `expected ${JSON.stringify(p.allowedValue)}; found ${found}` };
    case 'pattern':
      return {
        path,
        message: `expected ${title ?? `a string matching /${String(p.pattern)}/`}; found ${found}`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const op = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' }[e.keyword];
      const what = parent?.type === 'integer' ? 'an integer' : 'a number';
      return { path, message: `expected ${what} ${op} ${String(p.limit)}; found ${found}` };
    }
    case 'minItems':
      return {
        path,
        message: `expected at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}; found ${found}`,
      };
    case 'minLength':
      return { path, message: `expected a non-empty string; found ${found}` };
    case 'minProperties': {
      const keys = Object.keys((parent?.properties as Schema | undefined) ?? {});
      return {
        path,
        message: `expected at least one key${keys.length ? ` (${listKeys(keys)})` : ''}; found an empty mapping`,
      };
    }
    case 'propertyNames': {
      const key = String(p.propertyName);
      const inner = (parent?.propertyNames as Schema | undefined) ?? {};
      const expected =
        typeof inner.pattern === 'string' && /\\d\+/.test(inner.pattern)
          ? 'a broker id (a number)'
          : (title ?? 'a valid key');
      return { path: [...path, key], key: true, message: `invalid key '${key}': expected ${expected}` };
    }
    default:
      return { path, message: e.message ?? `invalid (${e.keyword})` };
  }
}
