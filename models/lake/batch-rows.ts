// From consumed records to Lake rows, as bend-ingest-kafka builds its batch file (its README, "Raw mode"):
// raw mode keeps each value (tabs and newlines removed, trimmed; an empty value becomes null) with its Kafka
// coordinates, and one value that is not valid JSON fails the whole batch; JSON-transform mode writes each value
// as one NDJSON line whose fields fill the user's columns by name.
import type { RecordBatch } from '../storage/index.ts';
import { type MessageSlice, sliceOffset } from './sink-consumer.ts';
import type { LakeColumn, RawSegment } from './write-ops.ts';

export interface BadRecord {
  topic: string;
  partition: number;
  offset: number;
  error: string;
}

export type RawBuild =
  | { ok: true; segments: RawSegment[]; rows: number; bytes: number }
  | { ok: false; bad: BadRecord };

export type JsonBuild =
  | {
      ok: true;
      values: string[];
      sources: { topic: string; partition: number; baseOffset: number; count: number }[];
      bytes: number;
    }
  | { ok: false; bad: BadRecord };

/** The value as raw_data holds it: no tab or newline, trimmed, null when empty. */
export function cleanValue(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const v = value.indexOf('\t') >= 0 || value.indexOf('\n') >= 0 ? value.replace(/[\t\n]/g, '') : value;
  const t = v.trim();
  return t.length === 0 ? null : t;
}

/** Record timestamps (CreateTime: the producer's send time, whole milliseconds) of batch records. */
function timestampsOf(batch: RecordBatch, first: number, count: number, epochMs: number): Float64Array {
  const out = new Float64Array(count);
  let run = 0;
  let runStart = 0;
  for (let i = 0; i < count; i++) {
    const j = first + i;
    while (run < batch.runs.length - 1 && j >= runStart + batch.runs[run]!.count) {
      runStart += batch.runs[run]!.count;
      run++;
    }
    out[i] = epochMs + Math.floor(batch.runs[run]?.time ?? batch.appendTime);
  }
  return out;
}

export function buildRawRows(slices: readonly MessageSlice[], epochMs: number): RawBuild {
  const segments: RawSegment[] = [];
  let rows = 0;
  let bytes = 0;
  for (const s of slices) {
    const values: (string | null)[] = new Array(s.count);
    const keys: string[] = new Array(s.count);
    const records = s.batch.records;
    for (let i = 0; i < s.count; i++) {
      const rec = records?.[s.first + i];
      const v = cleanValue(rec?.value);
      if (v !== null) {
        // A value the model built as JSON stays JSON once cleaned (tabs and newlines can only be whitespace
        // between its tokens, and trimming removes whitespace), so only the others are parsed to find a bad one.
        if (rec?.valueIsJson !== true)
          try {
            JSON.parse(v);
          } catch (err) {
            return {
              ok: false,
              bad: {
                topic: s.topic,
                partition: s.partition,
                offset: sliceOffset(s, i),
                error: jsonError(err),
              },
            };
          }
        bytes += v.length;
      }
      values[i] = v;
      // The Go service writes string(key): a null key is "".
      keys[i] = rec?.key ?? '';
    }
    segments.push({
      topic: s.topic,
      partition: s.partition,
      baseOffset: sliceOffset(s, 0),
      values,
      keys,
      timestamps: timestampsOf(s.batch, s.first, s.count, epochMs),
    });
    rows += s.count;
  }
  return { ok: true, segments, rows, bytes };
}

/**
 * JSON-transform mode: every value must be a JSON object whose fields convert to the columns' types (COPY INTO
 * with NDJSON fails the whole file otherwise).
 */
export function buildJsonRows(slices: readonly MessageSlice[], columns: readonly LakeColumn[]): JsonBuild {
  const values: string[] = [];
  const sources: { topic: string; partition: number; baseOffset: number; count: number }[] = [];
  let bytes = 0;
  for (const s of slices) {
    const records = s.batch.records;
    for (let i = 0; i < s.count; i++) {
      const raw = cleanValue(records?.[s.first + i]?.value) ?? '';
      const bad = (error: string): JsonBuild => ({
        ok: false,
        bad: { topic: s.topic, partition: s.partition, offset: sliceOffset(s, i), error },
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch (err) {
        return bad(jsonError(err));
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return bad('an NDJSON line must be a JSON object');
      for (const c of columns) {
        const problem = fieldProblem((parsed as Record<string, unknown>)[c.name], c.type);
        if (problem) return bad(`column ${c.name}: ${problem}`);
      }
      values.push(raw);
      bytes += raw.length;
    }
    sources.push({ topic: s.topic, partition: s.partition, baseOffset: sliceOffset(s, 0), count: s.count });
  }
  return { ok: true, values, sources, bytes };
}

/** Why a JSON field cannot fill a column of DuckDB type `type` (undefined when it can). */
function fieldProblem(v: unknown, type: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  const t = type.toUpperCase();
  if (t === 'JSON') return undefined;
  if (/INT/.test(t)) {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) return `${JSON.stringify(v)} is not an integer`;
    if (t.startsWith('U') && n < 0) return `${n} is negative`;
    return undefined;
  }
  if (t === 'DOUBLE' || t === 'FLOAT' || t.startsWith('DECIMAL')) {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) ? undefined : `${JSON.stringify(v)} is not a number`;
  }
  if (t === 'BOOLEAN') return typeof v === 'boolean' ? undefined : `${JSON.stringify(v)} is not a boolean`;
  if (t === 'VARCHAR') return typeof v === 'object' ? `${JSON.stringify(v)} is not a string` : undefined;
  if (t === 'TIMESTAMP' || t === 'DATE')
    return typeof v === 'string' && !Number.isNaN(Date.parse(v))
      ? undefined
      : `${JSON.stringify(v)} is not a ${t}`;
  return undefined;
}

function jsonError(err: unknown): string {
  return `invalid JSON: ${err instanceof Error ? err.message : String(err)}`;
}
