import { describe, expect, it } from 'vitest';
import {
  INGEST_DEFAULTS,
  IngestConfigError,
  ingestConfig,
  parseLakeDsn,
  parseLakeTable,
} from '../../../models/lake/index.ts';
import { workflowConfig } from './workflow-b.ts';

describe('bend-ingest-kafka config', () => {
  it("reads the guide's JSON as is", () => {
    const cfg = ingestConfig(JSON.stringify(workflowConfig()));
    expect(cfg).toMatchObject({
      kafkaTopic: 'e2e_auto_rebalance',
      KafkaConsumerGroup: 'e2e-auto-rebalance',
      lakeDSN: 'http://lake:lake@localhost:8002',
      batchSize: 1000,
      batchMaxInterval: 2,
      workers: 4,
      maxWait: 1,
      minBytes: 1,
      useStreamingLoad: true,
      maxRetryDelay: 30,
      enableRebalanceOptimization: true,
      partitionAssignmentStrategy: 'range,roundrobin',
      topicMetadataRefreshIntervalMs: 5000,
    });
  });

  it("fills what the file leaves out with the service's defaults", () => {
    const cfg = ingestConfig({ lakeTable: 'default.t' });
    expect(cfg).toMatchObject({
      kafkaTopic: 'test',
      KafkaConsumerGroup: 'test-group',
      batchSize: 1000,
      batchMaxInterval: 30,
      workers: 1,
      isJsonTransform: false,
      minBytes: 1024,
      maxWait: 10,
      useReplaceMode: false,
      useStreamingLoad: false,
      maxRetryDelay: 1800,
      metricsPort: 2112,
      enableRebalanceOptimization: false,
      topicMetadataRefreshIntervalMs: 300_000,
    });
    expect(Object.keys(cfg).sort()).toEqual(Object.keys(INGEST_DEFAULTS).sort());
  });

  it('accepts the public repository names databendDSN and databendTable', () => {
    const cfg = ingestConfig({ databendDSN: 'http://u:p@h:8000/db', databendTable: 'db.t' });
    expect(cfg.lakeDSN).toBe('http://u:p@h:8000/db');
    expect(cfg.lakeTable).toBe('db.t');
  });

  it('refuses unknown keys, wrong types and impossible values with a clear message', () => {
    expect(() => ingestConfig({ lakeTable: 't', batchSise: 10 })).toThrow(
      /unknown ingest config key "batchSise" \(known keys: kafkaBootstrapServers, .*batchSize/,
    );
    expect(() => ingestConfig({ lakeTable: 't', workers: '4' })).toThrow(
      /"workers" must be a number, not "4"/,
    );
    expect(() => ingestConfig({ lakeTable: 't', batchSize: 0 })).toThrow(IngestConfigError);
    expect(() => ingestConfig({ lakeTable: 't', partitionAssignmentStrategy: 'range,fancy' })).toThrow(
      /fancy/,
    );
    expect(() => ingestConfig({})).toThrow(/lakeTable/);
    expect(() => ingestConfig('{not json')).toThrow(/unmarshal config failed/);
  });

  it('parses the DSN and the table name', () => {
    expect(parseLakeDsn('http://lake:lake@localhost:8002')).toEqual({
      user: 'lake',
      password: 'lake',
      host: 'localhost:8002',
      database: 'default',
    });
    expect(parseLakeDsn('localhost:8000')).toMatchObject({ user: 'root', password: '', database: 'default' });
    expect(parseLakeDsn('http://a%40b:p%3Aq@h/db?sslmode=disable')).toMatchObject({
      user: 'a@b',
      password: 'p:q',
      database: 'db',
    });
    expect(parseLakeTable('default.t', 'x')).toEqual({ database: 'default', table: 't' });
    expect(parseLakeTable('t', 'x')).toEqual({ database: 'x', table: 't' });
  });
});
