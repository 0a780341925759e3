// The shape of a Kafka message definition after the generator has read it: what the generated tables in
// src/wire/generated hold and what the codec interprets. Version ranges are inclusive [min, max]; an empty range
// (min > max) is Kafka's "none". Field semantics follow Apache Kafka's message definitions
// (clients/src/main/resources/common/message/README.md): versions, nullableVersions, taggedVersions, flexible
// versions and defaults.

export type VersionRange = readonly [number, number];

/** The highest version "N+" reaches. */
export const OPEN_END = 0x7fff;

export type PrimitiveType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'uuid'
  | 'bytes'
  | 'records';

export interface FieldSchema {
  /** camelCase of Kafka's field name (`TopicData` -> `topicData`). */
  readonly name: string;
  /** The element type for arrays; 'struct' when `fields` is set. */
  readonly type: PrimitiveType | 'struct';
  readonly array?: true;
  readonly versions: VersionRange;
  readonly nullable?: VersionRange;
  readonly tag?: number;
  readonly taggedVersions?: VersionRange;
  /** A custom default (Kafka's "default"); otherwise the type's own (0, false, '', empty, null for records). */
  readonly default?: number | boolean | string | null;
  /** Overrides the message's flexible versions for this field (RequestHeader's ClientId is never compact). */
  readonly flexibleVersions?: VersionRange;
  readonly fields?: readonly FieldSchema[];
}

export interface MessageSchema {
  readonly name: string;
  readonly apiKey?: number;
  readonly type: 'request' | 'response' | 'header' | 'data';
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly fields: readonly FieldSchema[];
}

export const inRange = (v: number, r: VersionRange | undefined): boolean =>
  r !== undefined && v >= r[0] && v <= r[1];
