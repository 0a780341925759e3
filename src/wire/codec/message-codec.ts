// Reads and writes any message the generated schema tables describe, at any of its versions: fields present in a
// version in order, compact lengths (unsigned varint of length + 1) in flexible versions, nullable strings, bytes
// and arrays, and the tagged-field section at the end of every struct in flexible versions (unknown tags are
// skipped, as KIP-482 asks). Absent fields read as their defaults, as Kafka's generated `read` does.
import { Reader, WireDecodeError, Writer } from './bytes.ts';
import { type FieldSchema, inRange, type MessageSchema, type PrimitiveType } from './schema.ts';

export type Message = Record<string, unknown>;

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** The value a field has when a version does not carry it. */
export function defaultOf(f: FieldSchema): unknown {
  if (f.array) return [];
  if (f.default !== undefined) return f.default;
  switch (f.type) {
    case 'bool':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return ZERO_UUID;
    case 'bytes':
      return new Uint8Array(0);
    case 'records':
      return null;
    case 'struct': {
      const o: Message = {};
      for (const g of f.fields!) o[g.name] = defaultOf(g);
      return o;
    }
    default:
      return 0;
  }
}

function flexibleFor(f: FieldSchema, version: number, flexible: boolean): boolean {
  return f.flexibleVersions ? inRange(version, f.flexibleVersions) : flexible;
}

// ---- reading -------------------------------------------------------------------------------------------------

function readPrimitive(
  r: Reader,
  type: PrimitiveType,
  nullable: boolean,
  flexible: boolean,
  what: string,
): unknown {
  switch (type) {
    case 'bool':
      return r.int8(what) !== 0;
    case 'int8':
      return r.int8(what);
    case 'int16':
      return r.int16(what);
    case 'uint16':
      return r.uint16(what);
    case 'int32':
      return r.int32(what);
    case 'uint32':
      return r.uint32(what);
    case 'int64':
      return r.int64(what);
    case 'float64':
      return r.float64(what);
    case 'uuid':
      return r.bytes(16, what).toString('base64url');
    case 'string': {
      const n = flexible ? r.uvarint(what) - 1 : r.int16(what);
      if (n < 0) {
        if (nullable) return null;
        throw new WireDecodeError(`${what}: null where the field is not nullable`);
      }
      return r.bytes(n, what).toString('utf8');
    }
    case 'bytes':
    case 'records': {
      const n = flexible ? r.uvarint(what) - 1 : r.int32(what);
      if (n < 0) {
        if (nullable || type === 'records') return null;
        throw new WireDecodeError(`${what}: null where the field is not nullable`);
      }
      return r.bytes(n, what);
    }
  }
}

function readValue(r: Reader, f: FieldSchema, version: number, flexible: boolean, path: string): unknown {
  const fieldFlexible = flexibleFor(f, version, flexible);
  const nullable = inRange(version, f.nullable);
  if (f.array) {
    const n = fieldFlexible ? r.uvarint(path) - 1 : r.int32(path);
    if (n < 0) {
      if (nullable) return null;
      throw new WireDecodeError(`${path}: null array where the field is not nullable`);
    }
    // Every element takes at least one byte: a count beyond what is left is a lie, not a reason to allocate.
    if (n > r.remaining)
      throw new WireDecodeError(`${path}: ${n} elements but only ${r.remaining} bytes left`);
    const out: unknown[] = new Array(n);
    for (let i = 0; i < n; i++)
      out[i] =
        f.type === 'struct'
          ? readStruct(r, f.fields!, version, flexible, `${path}[${i}]`)
          : readPrimitive(r, f.type, false, fieldFlexible, `${path}[${i}]`);
    return out;
  }
  if (f.type === 'struct') {
    if (nullable && r.int8(path) < 0) return null;
    return readStruct(r, f.fields!, version, flexible, path);
  }
  return readPrimitive(r, f.type, nullable, fieldFlexible, path);
}

function readStruct(
  r: Reader,
  fields: readonly FieldSchema[],
  version: number,
  flexible: boolean,
  path: string,
): Message {
  const o: Message = {};
  for (const f of fields) {
    if ((f.tag !== undefined && inRange(version, f.taggedVersions)) || !inRange(version, f.versions))
      o[f.name] = defaultOf(f);
    else o[f.name] = readValue(r, f, version, flexible, `${path}.${f.name}`);
  }
  if (flexible) {
    const count = r.uvarint(`${path} tagged fields`);
    let last = -1;
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint(`${path} tag`);
      if (tag <= last)
        throw new WireDecodeError(`${path}: tagged fields out of order (${tag} after ${last})`);
      last = tag;
      const size = r.uvarint(`${path} tag ${tag} size`);
      r.need(size, `${path} tag ${tag}`);
      const f = fields.find((g) => g.tag === tag && inRange(version, g.taggedVersions));
      if (f) {
        const sub = new Reader(r.buf, r.offset, r.offset + size);
        o[f.name] = readValue(sub, f, version, flexible, `${path}.${f.name}`);
      }
      r.offset += size;
    }
  }
  return o;
}

/** Reads one message body of `schema` at `version`. */
export function decodeMessage(schema: MessageSchema, version: number, r: Reader): Message {
  if (!inRange(version, schema.validVersions))
    throw new WireDecodeError(`${schema.name} has no version ${version}`);
  return readStruct(r, schema.fields, version, inRange(version, schema.flexibleVersions), schema.name);
}

// ---- writing -------------------------------------------------------------------------------------------------

function writePrimitive(
  w: Writer,
  type: PrimitiveType,
  v: unknown,
  nullable: boolean,
  flexible: boolean,
  what: string,
): void {
  switch (type) {
    case 'bool':
      return w.int8(v ? 1 : 0);
    case 'int8':
      return w.int8(v as number);
    case 'int16':
      return w.int16(v as number);
    case 'uint16':
      return w.uint16(v as number);
    case 'int32':
      return w.int32(v as number);
    case 'uint32':
      return w.uint32(v as number);
    case 'int64':
      return w.int64(v as number);
    case 'float64':
      return w.float64(v as number);
    case 'uuid': {
      const b = Buffer.from((v as string | undefined) ?? ZERO_UUID, 'base64url');
      if (b.length !== 16) throw new Error(`${what}: a uuid is 16 bytes, got ${b.length}`);
      return w.bytes(b);
    }
    case 'string': {
      if (v === null || v === undefined) {
        if (!nullable) throw new Error(`${what}: null in a non-nullable string`);
        return flexible ? w.uvarint(0) : w.int16(-1);
      }
      const b = Buffer.from(v as string, 'utf8');
      if (flexible) w.uvarint(b.length + 1);
      else w.int16(b.length);
      return w.bytes(b);
    }
    case 'bytes':
    case 'records': {
      if (v === null || v === undefined) {
        if (!nullable && type !== 'records') throw new Error(`${what}: null in non-nullable bytes`);
        return flexible ? w.uvarint(0) : w.int32(-1);
      }
      const b = v as Uint8Array;
      if (flexible) w.uvarint(b.length + 1);
      else w.int32(b.length);
      return w.bytes(b);
    }
  }
}

function writeValue(
  w: Writer,
  f: FieldSchema,
  v: unknown,
  version: number,
  flexible: boolean,
  path: string,
): void {
  const fieldFlexible = flexibleFor(f, version, flexible);
  const nullable = inRange(version, f.nullable);
  if (f.array) {
    if (v === null || v === undefined) {
      if (v === null && !nullable) throw new Error(`${path}: null in a non-nullable array`);
      if (v === undefined || !nullable) v = [];
      else return fieldFlexible ? w.uvarint(0) : w.int32(-1);
    }
    const a = v as unknown[];
    if (fieldFlexible) w.uvarint(a.length + 1);
    else w.int32(a.length);
    for (let i = 0; i < a.length; i++) {
      if (f.type === 'struct') writeStruct(w, f.fields!, a[i] as Message, version, flexible, path);
      else writePrimitive(w, f.type, a[i], false, fieldFlexible, path);
    }
    return;
  }
  if (f.type === 'struct') {
    if (nullable) {
      if (v === null || v === undefined) return w.int8(-1);
      w.int8(1);
    }
    return writeStruct(w, f.fields!, (v ?? defaultOf(f)) as Message, version, flexible, path);
  }
  writePrimitive(w, f.type, v === undefined ? defaultOf(f) : v, nullable, fieldFlexible, path);
}

function isDefault(f: FieldSchema, v: unknown): boolean {
  if (v === undefined) return true;
  const d = defaultOf(f);
  if (Array.isArray(v)) return v.length === 0 && Array.isArray(d);
  if (v instanceof Uint8Array) return v.length === 0 && d instanceof Uint8Array;
  if (typeof v === 'object' && v !== null) return false;
  return v === d;
}

function writeStruct(
  w: Writer,
  fields: readonly FieldSchema[],
  o: Message,
  version: number,
  flexible: boolean,
  path: string,
): void {
  let tagged: FieldSchema[] | undefined;
  for (const f of fields) {
    if (f.tag !== undefined && inRange(version, f.taggedVersions)) {
      if (!isDefault(f, o[f.name])) (tagged ??= []).push(f);
      continue;
    }
    if (!inRange(version, f.versions)) continue;
    writeValue(w, f, o[f.name], version, flexible, `${path}.${f.name}`);
  }
  if (!flexible) return;
  if (!tagged) return w.uvarint(0);
  tagged.sort((a, b) => a.tag! - b.tag!);
  w.uvarint(tagged.length);
  for (const f of tagged) {
    const sub = new Writer(64);
    writeValue(sub, f, o[f.name], version, flexible, `${path}.${f.name}`);
    w.uvarint(f.tag!);
    w.uvarint(sub.offset);
    w.bytes(sub.result());
  }
}

/** Writes one message body of `schema` at `version`; fields left out take their defaults. */
export function encodeMessage(schema: MessageSchema, version: number, value: Message, w: Writer): void {
  if (!inRange(version, schema.validVersions)) throw new Error(`${schema.name} has no version ${version}`);
  writeStruct(w, schema.fields, value, version, inRange(version, schema.flexibleVersions), schema.name);
}
