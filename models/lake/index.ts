// The Lake and the Kafka -> Lake sink (source workflow B).
// Models: a Databend-compatible warehouse whose tables live in an embedded DuckDB (loaded on first use), with a
// Databend dialect layer and Databend's HTTP query API as a plain handler; bend-ingest-kafka as a process of
// consume workers, each a librdkafka consumer in a group (models/group's protocol, or a stand-in a test gives),
// with its batching rules, modelled ingest time, retries, commits
// after ingest (at-least-once), the rebalance optimization, replace mode, faults, metrics and a rebalance log;
// the workflow's explicit-partition load producer. README.md in this folder explains the model.
// Left out: Databend's planner and storage (DuckDB answers the SQL), Variant key ordering and nullability in
// result types, stages as objects, SASL/TLS, max.poll.interval.ms during a long ingest, the metrics HTTP
// server (metrics are a text page).
// Facts: Databend's HTTP API (https://docs.databend.com/developer/apis/http; databendlabs/databend
// src/query/service/src/servers/http/), databendcloud/bend-ingest-kafka (README, config/config.go,
// consume_worker.go, metrics.go: config, batch flow, delivery, metrics), and workflow B as
// scenarios/bend-ingest-partition-expansion.yaml runs it.
export { type BadRecord, buildJsonRows, buildRawRows, cleanValue } from './batch-rows.ts';
export { DATABEND_VERSION, type DialectStatement, INTERNAL_SCHEMA, translate } from './dialect.ts';
export type { EngineLimits } from './duckdb-engine.ts';
export { DatabendErrorCodes, type DatabendErrorName, LakeError } from './errors.ts';
export {
  type ExplicitProducerOptions,
  type ExplicitProducerResult,
  ExplicitProducerRun,
  loadRecordValue,
} from './explicit-producer.ts';
export { GroupSinkConsumer, type GroupSinkConsumerOptions } from './group-sink-consumer.ts';
export {
  LakeHttpApi,
  type LakeHttpApiOptions,
  type LakeHttpRequest,
  type LakeHttpResponse,
} from './http-api.ts';
export {
  INGEST_DEFAULTS,
  type IngestConfig,
  IngestConfigError,
  type IngestConfigInput,
  ingestConfig,
  type LakeDsn,
  parseLakeDsn,
  parseLakeTable,
} from './ingest-config.ts';
export {
  type Incident,
  IngestService,
  type IngestServiceOptions,
  type LossEntry,
  type RebalanceLogEntry,
  type SinkConsumerFactory,
} from './ingest-service.ts';
export {
  DEFAULT_INGEST_TIMINGS,
  type IngestTimings,
  ingestDuration,
  type LoadPath,
} from './ingest-timing.ts';
export { IngestWorker, rangesOf, type WorkerState } from './ingest-worker.ts';
export {
  DEFAULT_LAKE_EPOCH_MS,
  Lake,
  type LakeOptions,
  type LakeQueryResult,
  type LakeTableInfo,
} from './lake.ts';
export { LakeLedger, type LedgerSummary, type OffsetRange } from './ledger.ts';
export { IngestMetrics } from './metrics.ts';
export {
  type CommitOffset,
  type MessageSlice,
  type RebalanceEvent,
  type SinkConsumer,
  sliceOffset,
} from './sink-consumer.ts';
export { type LakeColumn, RAW_TABLE_COLUMNS, type RawSegment, type WriteOp } from './write-ops.ts';
