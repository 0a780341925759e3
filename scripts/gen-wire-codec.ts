// Generates src/wire/generated from Apache Kafka's protocol message definitions (JSON with comments, copied into
// src/wire/definitions with their Apache licence headers): one module per message with its schema table (what
// src/wire/codec interprets to read and write every version) and TypeScript interfaces for its fields, plus an
// index of the API keys. Kafka generates its Java classes from the same files (the `generator` module,
// MessageDataGenerator); this generator keeps the codec in step with them instead of hand-writing it.
//
//   npm run gen:wire                       regenerate from src/wire/definitions
//   npm run gen:wire -- --out DIR          write somewhere else (the test compares that with the committed code)
//   npm run gen:wire -- --from KAFKA_DIR   first refresh the copied definitions from a Kafka checkout's
//                                          clients/src/main/resources/common/message
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFINITIONS = join(ROOT, 'src/wire/definitions');
const OUT = join(ROOT, 'src/wire/generated');
const OPEN_END = 0x7fff;
const PRIMITIVES = new Set([
  'bool',
  'int8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'float64',
  'string',
  'uuid',
  'bytes',
  'records',
]);

interface JsonField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  tag?: number;
  taggedVersions?: string;
  default?: string | number | boolean;
  flexibleVersions?: string;
  fields?: JsonField[];
  about?: string;
}
interface JsonMessage {
  apiKey?: number;
  type: 'request' | 'response' | 'header' | 'data';
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: JsonField[];
  commonStructs?: { name: string; versions?: string; fields: JsonField[] }[];
}

/** Removes `//` comments outside strings (the definitions are JSON with comments). */
export function stripComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return out;
}

function range(spec: string | undefined, where: string): [number, number] | undefined {
  if (spec === undefined) return undefined;
  const s = spec.trim();
  if (s === 'none') return [1, 0];
  let m = /^(\d+)\+$/.exec(s);
  if (m) return [Number(m[1]), OPEN_END];
  m = /^(\d+)-(\d+)$/.exec(s);
  if (m) return [Number(m[1]), Number(m[2])];
  m = /^(\d+)$/.exec(s);
  if (m) return [Number(m[1]), Number(m[1])];
  throw new Error(`${where}: bad version range '${spec}'`);
}

const camel = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);
const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

function defaultOf(f: JsonField, type: string, where: string): number | boolean | string | null | undefined {
  if (f.default === undefined) return undefined;
  const d = String(f.default);
  if (d === 'null') return null;
  if (type === 'bool') return d === 'true';
  if (type === 'string') return d;
  if (type === 'float64') return Number(d);
  if (/^(int|uint)/.test(type)) {
    const n = d.startsWith('0x') || d.startsWith('-0x') ? Number.parseInt(d, 16) : Number(d);
    if (!Number.isFinite(n)) throw new Error(`${where}: bad default '${d}'`);
    return n;
  }
  throw new Error(`${where}: a default for type ${type}`);
}

interface Struct {
  name: string;
  fields: JsonField[];
}

class MessageGen {
  readonly structs: Struct[] = [];
  private readonly common = new Map<string, JsonField[]>();

  constructor(readonly msg: JsonMessage) {
    for (const c of msg.commonStructs ?? []) this.common.set(c.name, c.fields);
  }

  /** The schema literal of a field list. */
  fieldsLiteral(fields: JsonField[], where: string, indent: string): string {
    return `[\n${fields.map((f) => `${indent}  ${this.fieldLiteral(f, `${where}.${f.name}`, `${indent}  `)},\n`).join('')}${indent}]`;
  }

  private elementOf(f: JsonField): { element: string; array: boolean } {
    const array = f.type.startsWith('[]');
    return { element: array ? f.type.slice(2) : f.type, array };
  }

  private structFields(f: JsonField, element: string, where: string): JsonField[] {
    const fields = f.fields ?? this.common.get(element);
    if (!fields) throw new Error(`${where}: unknown type '${element}'`);
    if (f.fields || !this.structs.some((s) => s.name === element))
      this.structs.push({ name: element, fields });
    return fields;
  }

  fieldLiteral(f: JsonField, where: string, indent: string): string {
    const { element, array } = this.elementOf(f);
    const primitive = PRIMITIVES.has(element);
    const parts: string[] = [`name: '${camel(f.name)}'`, `type: '${primitive ? element : 'struct'}'`];
    if (array) parts.push('array: true');
    const versions = range(f.versions, where);
    if (!versions) throw new Error(`${where}: no versions`);
    parts.push(`versions: [${versions.join(', ')}]`);
    const nullable = range(f.nullableVersions, where);
    if (nullable) parts.push(`nullable: [${nullable.join(', ')}]`);
    if (f.tag !== undefined) {
      parts.push(`tag: ${f.tag}`);
      parts.push(`taggedVersions: [${range(f.taggedVersions, where)!.join(', ')}]`);
    }
    const def = defaultOf(f, element, where);
    if (def !== undefined) parts.push(`default: ${JSON.stringify(def)}`);
    const flex = range(f.flexibleVersions, where);
    if (flex) parts.push(`flexibleVersions: [${flex.join(', ')}]`);
    if (!primitive)
      parts.push(`fields: ${this.fieldsLiteral(this.structFields(f, element, where), where, indent)}`);
    return `{ ${parts.join(', ')} }`;
  }

  tsType(f: JsonField): string {
    const { element, array } = this.elementOf(f);
    let t: string;
    switch (element) {
      case 'bool':
        t = 'boolean';
        break;
      case 'string':
      case 'uuid':
        t = 'string';
        break;
      case 'bytes':
      case 'records':
        t = 'Uint8Array';
        break;
      default:
        t = PRIMITIVES.has(element) ? 'number' : element;
    }
    if (array) t = `${t}[]`;
    if (f.nullableVersions !== undefined || element === 'records') t = `${t} | null`;
    return t;
  }

  interfaceOf(name: string, fields: JsonField[]): string {
    const lines = fields.map((f) => {
      const doc = f.about ? `  /** ${f.about.replace(/\*\//g, '* /')} (versions ${f.versions}) */\n` : '';
      return `${doc}  ${camel(f.name)}: ${this.tsType(f)};\n`;
    });
    return `export interface ${name} {\n${lines.join('')}}\n`;
  }
}

function generate(file: string): { module: string; code: string; msg: JsonMessage } {
  const name = basename(file, '.json');
  const msg = JSON.parse(stripComments(readFileSync(file, 'utf8'))) as JsonMessage;
  if (msg.name !== name) throw new Error(`${file}: the message is named ${msg.name}`);
  const gen = new MessageGen(msg);
  const valid = range(msg.validVersions, name)!;
  const flexible = range(msg.flexibleVersions, name)!;
  const fields = gen.fieldsLiteral(msg.fields, name, '  ');
  const apiKey = msg.apiKey !== undefined ? `  apiKey: ${msg.apiKey},\n` : '';
  const interfaces = [gen.interfaceOf(`${name}Data`, msg.fields)];
  const seen = new Set<string>();
  for (const s of gen.structs) {
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    interfaces.push(gen.interfaceOf(s.name, s.fields));
  }
  const code = `// GENERATED by scripts/gen-wire-codec.ts from Apache Kafka's message definition ${name}.json
// (src/wire/definitions/${name}.json: Copyright The Apache Software Foundation, Apache License 2.0; see NOTICE).
// Do not edit: change the generator or the definition and run \`npm run gen:wire\`.
import type { MessageSchema } from '../codec/schema.ts';

export const ${name}: MessageSchema = {
  name: '${name}',
${apiKey}  type: '${msg.type}',
  validVersions: [${valid.join(', ')}],
  flexibleVersions: [${flexible.join(', ')}],
  fields: ${fields},
};

${interfaces.join('\n')}`;
  return { module: kebab(name), code, msg };
}

export function generateAll(definitions: string): Map<string, string> {
  const files = readdirSync(definitions)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const out = new Map<string, string>();
  const apis = new Map<number, { request?: string; response?: string; module: Record<string, string> }>();
  const others: { name: string; module: string }[] = [];
  for (const f of files) {
    const { module, code, msg } = generate(join(definitions, f));
    out.set(`${module}.ts`, code);
    if (msg.apiKey !== undefined && (msg.type === 'request' || msg.type === 'response')) {
      const entry = apis.get(msg.apiKey) ?? { module: {} };
      entry[msg.type] = msg.name;
      entry.module[msg.type] = module;
      apis.set(msg.apiKey, entry);
    } else others.push({ name: msg.name, module });
  }
  const keys = [...apis.keys()].sort((a, b) => a - b);
  const imports: string[] = [];
  const rows: string[] = [];
  for (const k of keys) {
    const e = apis.get(k)!;
    if (!e.request || !e.response)
      throw new Error(`api key ${k}: needs both a request and a response definition`);
    imports.push(`import { ${e.request} } from './${e.module.request}.ts';`);
    imports.push(`import { ${e.response} } from './${e.module.response}.ts';`);
    const api = e.request.replace(/Request$/, '');
    rows.push(`  ${k}: { name: '${api}', request: ${e.request}, response: ${e.response} },`);
  }
  for (const o of others) imports.push(`import { ${o.name} } from './${o.module}.ts';`);
  const index = `// GENERATED by scripts/gen-wire-codec.ts from Apache Kafka's message definitions in src/wire/definitions
// (Copyright The Apache Software Foundation, Apache License 2.0; see NOTICE): the API keys this codec knows.
// Do not edit: run \`npm run gen:wire\`.
import type { MessageSchema } from '../codec/schema.ts';
${imports.join('\n')}

export interface ApiSchemas {
  readonly name: string;
  readonly request: MessageSchema;
  readonly response: MessageSchema;
}

/** Every API key with a definition here, by key. */
export const API_SCHEMAS: Readonly<Record<number, ApiSchemas>> = {
${rows.join('\n')}
};

export { ${others.map((o) => o.name).join(', ')} };
`;
  out.set('index.ts', index);
  return out;
}

function main(): void {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, from: { type: 'string' } },
    strict: true,
  });
  if (values.from) {
    for (const f of readdirSync(DEFINITIONS).filter((n) => n.endsWith('.json')))
      copyFileSync(join(values.from, f), join(DEFINITIONS, f));
  }
  const out = resolve(values.out ?? OUT);
  const files = generateAll(DEFINITIONS);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const [name, code] of files) writeFileSync(join(out, name), code);
  process.stdout.write(`wrote ${files.size} files to ${relative(process.cwd(), out) || '.'}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
