// What the simulation writes into the Lake, as an ordered log of operations. The simulation appends an
// operation at the virtual time its ingest completes; the engine applies the log to DuckDB, in order, before
// any query runs (see lake.ts). Rows are kept as references to the consumed records (values and keys are the
// producer's own strings), so a pending write costs a few arrays, not a copy of the data.

/** A column as the Lake's catalog knows it (`type` in DuckDB's spelling: VARCHAR, BIGINT, JSON...). */
export interface LakeColumn {
  readonly name: string;
  readonly type: string;
}

/** Consecutive offsets of one partition, in the raw table's terms. */
export interface RawSegment {
  readonly topic: string;
  readonly partition: number;
  readonly baseOffset: number;
  /** raw_data per row, already cleaned (no tab or newline, trimmed); null for an empty message. */
  readonly values: readonly (string | null)[];
  /** Kafka keys ('' for a null key, as the Go service's string(key) gives). */
  readonly keys: readonly string[];
  /** Kafka record timestamps (CreateTime), epoch milliseconds. */
  readonly timestamps: ArrayLike<number>;
}

export type WriteOp =
  | { readonly kind: 'ddl'; readonly sql: string }
  | {
      readonly kind: 'raw';
      readonly database: string;
      readonly table: string;
      /** `replace`: REPLACE INTO ... ON (koffset, kpartition), as useReplaceMode. */
      readonly mode: 'insert' | 'replace';
      readonly segments: readonly RawSegment[];
      /** add_time of every row of the batch, epoch microseconds. */
      readonly addTimeMicros: number;
      /** Three random 32-bit numbers per segment make its rows' uuids (with each row's index). */
      readonly uuidSeeds: readonly (readonly [number, number, number])[];
    }
  | {
      readonly kind: 'json';
      readonly database: string;
      readonly table: string;
      readonly columns: readonly LakeColumn[];
      /** One JSON object per row (NDJSON lines), fields matched to columns by name. */
      readonly values: readonly string[];
    };

/** The raw-mode table bend-ingest-kafka creates (its README, "Raw mode"), in DuckDB types. */
export const RAW_TABLE_COLUMNS: readonly LakeColumn[] = [
  { name: 'uuid', type: 'VARCHAR' },
  { name: 'koffset', type: 'BIGINT' },
  { name: 'kpartition', type: 'INTEGER' },
  { name: 'raw_data', type: 'JSON' },
  { name: 'record_metadata', type: 'JSON' },
  { name: 'add_time', type: 'TIMESTAMP' },
];
