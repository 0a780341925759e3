// bend-ingest-kafka's configuration: the JSON keys of the source workflow's config file, with the service's
// defaults where the file is silent (databendcloud/bend-ingest-kafka config/config.go; the config of
// scenarios/bend-ingest-partition-expansion.yaml). Unknown keys
// are an error naming the key and the known ones, since a misspelt key would silently fall back to a default.
// The fork's four keys (lakeDSN, enableRebalanceOptimization, partitionAssignmentStrategy,
// topicMetadataRefreshIntervalMs) are not in the public repository; they are modelled as their names say.

import { ExitCode, KafkasimError } from '../sim/index.ts';

export interface IngestConfig {
  kafkaBootstrapServers: string;
  kafkaTopic: string;
  KafkaConsumerGroup: string;
  isSASL: boolean;
  saslUser: string;
  saslPassword: string;
  /** false means SSL/SASL_SSL; a plaintext broker needs true (kafkasim ignores TLS either way). */
  disableTLS: boolean;
  /** The Lake's DSN, `http://user:password@host:port[/database]`; `databendDSN` in the public repository. */
  lakeDSN: string;
  /** `database.table`; `databendTable` in the public repository. */
  lakeTable: string;
  batchSize: number;
  /** Seconds. */
  batchMaxInterval: number;
  dataFormat: string;
  workers: number;
  isJsonTransform: boolean;
  copyPurge: boolean;
  copyForce: boolean;
  disableVariantCheck: boolean;
  userStage: string;
  /** fetch.min.bytes. */
  minBytes: number;
  /** Unused since the switch to confluent-kafka-go. */
  maxBytes: number;
  /** Seconds; fetch.wait.max.ms = maxWait × 1000. */
  maxWait: number;
  useReplaceMode: boolean;
  useStreamingLoad: boolean;
  copyIntoUploadCompression: boolean;
  /** Seconds: cap of the ingest retry backoff. */
  maxRetryDelay: number;
  metricsPort: number;
  /** Finish and commit the in-flight batch before giving up revoked partitions. */
  enableRebalanceOptimization: boolean;
  /** partition.assignment.strategy. */
  partitionAssignmentStrategy: string;
  /** topic.metadata.refresh.interval.ms. */
  topicMetadataRefreshIntervalMs: number;
}

export const INGEST_DEFAULTS: Readonly<IngestConfig> = Object.freeze({
  kafkaBootstrapServers: 'localhost:9092',
  kafkaTopic: 'test',
  KafkaConsumerGroup: 'test-group',
  isSASL: false,
  saslUser: '',
  saslPassword: '',
  disableTLS: false,
  lakeDSN: 'localhost:8000',
  lakeTable: '',
  batchSize: 1000,
  batchMaxInterval: 30,
  dataFormat: 'json',
  workers: 1,
  isJsonTransform: false,
  copyPurge: false,
  copyForce: false,
  disableVariantCheck: false,
  userStage: '~',
  minBytes: 1024,
  maxBytes: 20_971_520,
  maxWait: 10,
  useReplaceMode: false,
  useStreamingLoad: false,
  copyIntoUploadCompression: true,
  maxRetryDelay: 1800,
  metricsPort: 2112,
  enableRebalanceOptimization: false,
  partitionAssignmentStrategy: 'range,roundrobin',
  topicMetadataRefreshIntervalMs: 300_000,
});

/** The public repository's names for two of the fork's keys. */
const ALIASES: Record<string, keyof IngestConfig> = {
  databendDSN: 'lakeDSN',
  databendTable: 'lakeTable',
};

export type IngestConfigInput = Partial<Record<keyof IngestConfig | keyof typeof ALIASES, unknown>>;

export class IngestConfigError extends KafkasimError {
  readonly code = 'INVALID_INGEST_CONFIG';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'IngestConfigError';
}

/** Parses a config object (or its JSON text) into a full config. */
export function ingestConfig(input: IngestConfigInput | string): IngestConfig {
  let raw: Record<string, unknown>;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input) as Record<string, unknown>;
    } catch (err) {
      throw new IngestConfigError(`unmarshal config failed: ${(err as Error).message}`);
    }
  } else raw = input as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new IngestConfigError('the ingest config must be a JSON object');
  const cfg: IngestConfig = { ...INGEST_DEFAULTS };
  const known = Object.keys(INGEST_DEFAULTS);
  for (const [key, value] of Object.entries(raw)) {
    const target = (ALIASES[key] ?? key) as keyof IngestConfig;
    if (!Object.hasOwn(INGEST_DEFAULTS, target)) {
      throw new IngestConfigError(
        `unknown ingest config key "${key}" (known keys: ${[...known, ...Object.keys(ALIASES)].join(', ')})`,
      );
    }
    const expected = typeof INGEST_DEFAULTS[target];
    if (typeof value !== expected)
      throw new IngestConfigError(
        `ingest config key "${key}" must be a ${expected}, not ${JSON.stringify(value)}`,
      );
    (cfg as unknown as Record<string, unknown>)[target] = value;
  }
  for (const k of ['batchSize', 'workers'] as const)
    if (!Number.isInteger(cfg[k]) || cfg[k] < 1)
      throw new IngestConfigError(`ingest config key "${k}" must be a positive integer, not ${cfg[k]}`);
  for (const k of ['batchMaxInterval', 'maxWait', 'maxRetryDelay', 'topicMetadataRefreshIntervalMs'] as const)
    if (!(cfg[k] >= 0)) throw new IngestConfigError(`ingest config key "${k}" must be >= 0, not ${cfg[k]}`);
  const strategies = cfg.partitionAssignmentStrategy.split(',').map((s) => s.trim());
  for (const s of strategies)
    if (!['range', 'roundrobin', 'cooperative-sticky'].includes(s))
      throw new IngestConfigError(`unknown partition.assignment.strategy "${s}"`);
  if (cfg.lakeTable === '') throw new IngestConfigError('ingest config key "lakeTable" is required');
  return cfg;
}

export interface LakeDsn {
  user: string;
  password: string;
  host: string;
  database: string;
}

/** `http://user:password@host:port/db?sslmode=disable` (databend-go DSN) -> its parts. */
export function parseLakeDsn(dsn: string): LakeDsn {
  const withScheme = /^[a-z]+:\/\//i.test(dsn) ? dsn : `http://${dsn}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new IngestConfigError(`lakeDSN "${dsn}" is not a URL`);
  }
  return {
    user: decodeURIComponent(url.username) || 'root',
    password: decodeURIComponent(url.password),
    host: url.host,
    database: url.pathname.replace(/^\//, '') || 'default',
  };
}

/** `db.table` -> its parts; a bare table name is in the DSN's database. */
export function parseLakeTable(name: string, database: string): { database: string; table: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { database, table: name } : { database: name.slice(0, dot), table: name.slice(dot + 1) };
}
