// The sink's rules, one at a time, on assign-mode consumers in the stand-in group (./local-group.ts), so that
// rebalances come exactly when a test asks for them.
import { afterEach, describe, expect, it } from 'vitest';
import type { Producer } from '../../../models/clients/index.ts';
import { IngestService } from '../../../models/lake/index.ts';
import type { TraceEvent } from '../../../models/sim/index.ts';
import { Cluster } from '../../../src/cluster/index.ts';
import { type LocalGroup, localGroupConsumers } from './local-group.ts';

let cluster: Cluster;
afterEach(async () => {
  await cluster?.lake.close();
});

function setup(
  config: Record<string, unknown>,
  partitions = 1,
): { service: IngestService; producer: Producer } {
  cluster = new Cluster({ seed: 3, brokers: 1, out: () => {} });
  cluster.start();
  cluster.admin.createTopic({ name: 'in', partitions, replicationFactor: 1 });
  const service = cluster.ingestService(
    {
      kafkaTopic: 'in',
      KafkaConsumerGroup: 'sink',
      lakeDSN: 'http://lake:lake@localhost:8002',
      lakeTable: 'default.rows',
      batchSize: 1000,
      batchMaxInterval: 30,
      workers: 1,
      maxWait: 1,
      minBytes: 1,
      ...config,
    },
    { consumers: standIn(), log: () => {} },
  );
  // The stand-in group's first rebalance waits group.initial.rebalance.delay.ms (3 s).
  cluster.runUntil(() => service.rebalanceLog.length >= service.config.workers, { timeout: '30s' });
  const producer = cluster.producer('app', { flavour: 'librdkafka', config: { 'linger.ms': 0 } });
  cluster.runFor('100ms');
  return { service, producer };
}

function send(p: Producer, from: number, count: number, partition = 0): void {
  for (let i = from; i < from + count; i++)
    p.send({ topic: 'in', partition, key: `k${i}`, value: `{"i":${i}}` });
}

function loads(): TraceEvent[] {
  return cluster.sim.trace.recent('ingest.loaded');
}

/** The stand-in group of the last service set up. */
let standInGroup: () => LocalGroup;
function standIn() {
  const { factory, group } = localGroupConsumers(cluster.sim, cluster.bootstrap());
  standInGroup = group;
  return factory;
}
const group = (_s: IngestService): LocalGroup => standInGroup();

describe('the ingest worker', () => {
  it('cuts batches at batchSize, then ends the rest after 3 empty polls (1.5 s after the last message)', () => {
    const { service, producer } = setup({});
    send(producer, 0, 2500);
    const sentAt = cluster.now;
    cluster.runFor('10s');
    const l = loads();
    expect(l.map((e) => e.rows)).toEqual([1000, 1000, 500]);
    // The two full batches go at once; the tail waits for three empty 500 ms polls.
    expect(l[1]!.t - sentAt).toBeLessThan(500);
    expect(l[2]!.t - sentAt).toBeGreaterThanOrEqual(1500);
    expect(l[2]!.t - sentAt).toBeLessThan(2000);
    expect(cluster.lake.rowCount('default', 'rows')).toBe(2500);
    expect(service.metrics.batchSize.count).toBe(3);
    expect(group(service).committedOffset('in', 0)).toBe(2500);
  });

  it('ends a batch that keeps receiving messages at batchMaxInterval', () => {
    setup({ batchMaxInterval: 2 });
    const p = cluster.producer('trickle', { flavour: 'librdkafka', config: { 'linger.ms': 0 } });
    let n = 0;
    const timer = p.every(400, () => {
      send(p, n, 1);
      if (++n === 20) timer.cancel();
    });
    cluster.runFor('15s');
    const l = loads();
    expect(l.reduce((s, e) => s + (e.rows as number), 0)).toBe(20);
    // About 2 s of messages every 400 ms per batch (fetches bring one or two at a time), never the whole stream.
    expect(l.length).toBeGreaterThanOrEqual(3);
    for (const e of l.slice(0, -1)) expect(e.rows as number).toBeGreaterThanOrEqual(4);
    for (const e of l.slice(0, -1)) expect(e.rows as number).toBeLessThanOrEqual(7);
  });

  it('commits only after the rows are in the Lake (at-least-once)', () => {
    const { service, producer } = setup({});
    send(producer, 0, 1000);
    cluster.runUntil(() => loads().length === 1, { timeout: '10s' });
    expect(cluster.lake.rowCount('default', 'rows')).toBe(1000);
    expect(group(service).committedOffset('in', 0)).toBeUndefined();
    cluster.runFor('100ms');
    expect(group(service).committedOffset('in', 0)).toBe(1000);
    expect(service.metrics.consumeRowsTotal).toBe(1000);
    expect(service.metrics.ingestRowsTotal).toBe(1000);
  });

  it('retries a failed load with backoff 1 s x 2^n capped at maxRetryDelay, 10 attempts, then gives the batch up', () => {
    const { service, producer } = setup({ maxRetryDelay: 5 });
    cluster.lake.setAvailable(false);
    send(producer, 0, 1000);
    cluster.runFor('120s');
    const failures = service.logLines.filter((l) => l.includes('ingest attempt'));
    expect(failures).toHaveLength(10);
    // logrus' text format with its default RFC 3339 time: whole seconds, UTC as Z.
    for (const l of failures) expect(l).toMatch(/^time="2026-01-01T\d\d:\d\d:\d\dZ" level=error msg=/);
    const times = failures.map((l) => Date.parse(/time="([^"]+)"/.exec(l)![1]!));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Each retry waits the backoff (then fails 1 ms later, after the refused connection): whole seconds apart.
    expect(gaps).toEqual([1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000]);
    expect(service.metrics.ingestErrorsTotal).toBe(10);
    expect(service.losses).toHaveLength(1);
    expect(service.losses[0]).toMatchObject({
      records: 1000,
      ranges: [{ topic: 'in', partition: 0, from: 0, to: 999 }],
    });
    expect(service.losses[0]!.reason).toMatch(/connection refused \(gave up after 10 attempts\)/);
    // The consumer moved on: the next batch's commit skips the lost one.
    cluster.lake.setAvailable(true);
    send(producer, 1000, 10);
    cluster.runFor('5s');
    expect(group(service).committedOffset('in', 0)).toBe(1010);
    expect(cluster.lake.table('default', 'rows')!.ledger.missing('in', 0, 0, 1009)).toEqual([
      { topic: 'in', partition: 0, from: 0, to: 999 },
    ]);
  });

  it('a Lake that comes back within the retries loses nothing', () => {
    const { service, producer } = setup({});
    cluster.lake.outage('6s', (d, fn) => cluster.sim.schedule(d, fn));
    send(producer, 0, 1000);
    cluster.runFor('30s');
    expect(service.metrics.ingestErrorsTotal).toBe(3);
    expect(service.losses).toEqual([]);
    expect(cluster.lake.rowCount('default', 'rows')).toBe(1000);
  });
});

describe('rebalances during a batch', () => {
  const inFlight = (optimization: boolean) => {
    const { service, producer } = setup({ enableRebalanceOptimization: optimization });
    send(producer, 0, 600);
    // The batch holds 600 messages and waits for more when the rebalance starts.
    cluster.runFor('800ms');
    expect(loads()).toHaveLength(0);
    group(service).requestRebalance('test');
    cluster.runFor('10s');
    return service;
  };

  it('with enableRebalanceOptimization the batch is ingested and committed before the partition is released', () => {
    const service = inFlight(true);
    const ledger = cluster.lake.table('default', 'rows')!.ledger;
    expect(ledger.summary()).toEqual({ rows: 600, distinctRecords: 600, duplicateRows: 0 });
    const revoke = service.rebalanceLog.find((e) => e.event === 'revoked')!;
    const reassigned = service.rebalanceLog.filter((e) => e.event === 'assigned')[1]!;
    const loaded = loads()[0]!;
    // Cut short at the revocation, loaded, committed, and only then the group moved on.
    expect(loaded.rows).toBe(600);
    expect(loaded.t).toBeGreaterThanOrEqual(revoke.time);
    expect(reassigned.time).toBeGreaterThan(loaded.t);
  });

  it('without it the next owner reads the batch again: its records are duplicated, exactly', () => {
    const service = inFlight(false);
    const ledger = cluster.lake.table('default', 'rows')!.ledger;
    expect(ledger.summary()).toEqual({ rows: 1200, distinctRecords: 600, duplicateRows: 600 });
    expect(ledger.duplicated('in', 0, 0, 599)).toEqual([{ topic: 'in', partition: 0, from: 0, to: 599 }]);
    expect(group(service).committedOffset('in', 0)).toBe(600);
  });
});

describe('the service', () => {
  it('exposes the metrics with bend-ingest-kafka names', () => {
    const { service, producer } = setup({});
    send(producer, 0, 10);
    cluster.runFor('5s');
    const text = service.metrics.text();
    for (const name of [
      'bend_ingest_kafka_ingest_rows_total 10',
      'bend_ingest_kafka_ingest_bytes_total ',
      'bend_ingest_kafka_consume_rows_total 10',
      'bend_ingest_kafka_consume_bytes_total ',
      'bend_ingest_kafka_ingest_errors_total 0',
      'bend_ingest_kafka_copy_into_duration_seconds_count 1',
      'bend_ingest_kafka_upload_stage_duration_seconds_count 1',
      'bend_ingest_kafka_batch_size_bucket{le="10"} 1',
      'bend_ingest_kafka_batch_fill_duration_seconds_count 1',
    ])
      expect(text).toContain(`\n${name}`);
    expect(text).toContain('# TYPE bend_ingest_kafka_ingest_rows_total counter');
  });

  it('does not start with wrong Lake credentials, an unknown database or a raw table missing columns', () => {
    cluster = new Cluster({ seed: 3, brokers: 1, out: () => {} });
    cluster.start();
    cluster.admin.createTopic({ name: 'in', partitions: 1, replicationFactor: 1 });
    cluster.lake.addUser('lake', 'lake');
    const base = { kafkaTopic: 'in', lakeTable: 'default.rows', lakeDSN: 'http://lake:lake@h' };
    const start = (cfg: Record<string, unknown>, id: string) => {
      const s = cluster.ingestService({ ...base, ...cfg }, { id, log: () => {} });
      cluster.runFor('10ms');
      return s;
    };
    // cluster.ingestService would add the DSN's user to the Lake: build this one directly.
    const wrong = new IngestService(
      cluster.sim,
      { ...base, lakeDSN: 'http://lake:nope@h' },
      { lake: cluster.lake, bootstrap: cluster.bootstrap(), id: 'wrong', log: () => {} },
    );
    wrong.start();
    cluster.runFor('10ms');
    expect(wrong.fatal).toMatch(/authentication failed for user 'lake'/);
    expect(wrong.status).toBe('stopped');
    expect(start({ lakeTable: 'nodb.rows' }, 'nodb').fatal).toBe("Unknown database 'nodb'");
    cluster.lake.createTable('default', 'partial', [{ name: 'uuid', type: 'VARCHAR' }]);
    expect(start({ lakeTable: 'default.partial' }, 'partial').fatal).toMatch(
      /lacks the raw-mode columns koffset/,
    );
    expect(start({ lakeTable: 'default.mine', isJsonTransform: true }, 'json').fatal).toMatch(
      /Unknown table/,
    );
  });

  it('JSON-transform mode fills the user table; a line that does not fit fails the COPY, retried, then lost', async () => {
    cluster = new Cluster({ seed: 3, brokers: 1, out: () => {} });
    cluster.start();
    cluster.admin.createTopic({ name: 'in', partitions: 1, replicationFactor: 1 });
    await cluster.lake.query('CREATE TABLE default.people (id UInt64, name String)');
    const service = cluster.ingestService(
      {
        kafkaTopic: 'in',
        lakeTable: 'default.people',
        lakeDSN: 'lake:lake@h',
        isJsonTransform: true,
        maxRetryDelay: 1,
        minBytes: 1,
        maxWait: 1,
      },
      { consumers: standIn(), log: () => {} },
    );
    cluster.runUntil(() => service.rebalanceLog.length > 0, { timeout: '30s' });
    const p = cluster.producer('app', { flavour: 'librdkafka' });
    cluster.runFor('100ms');
    p.send({ topic: 'in', partition: 0, key: null, value: '{"id": 1, "name": "ann"}' });
    p.send({ topic: 'in', partition: 0, key: null, value: '{"id": 2}' });
    cluster.runFor('5s');
    p.send({ topic: 'in', partition: 0, key: null, value: '{"id": "x"}' });
    cluster.runFor('60s');
    expect((await cluster.lake.query('SELECT id, name FROM default.people ORDER BY id')).rows).toEqual([
      ['1', 'ann'],
      ['2', null],
    ]);
    expect(service.metrics.ingestErrorsTotal).toBe(10);
    expect(service.losses).toHaveLength(1);
    expect(service.losses[0]!.reason).toMatch(
      /^COPY INTO failed: column id: "x" is not an integer at in\[0\]@2/,
    );
  });
});

describe('on the group protocol (GroupSinkConsumer)', () => {
  it('a stopped service leaves the group (SIGTERM: Close()), even with the rebalance optimization', () => {
    cluster = new Cluster({ seed: 3, brokers: 1, out: () => {} });
    cluster.start();
    cluster.admin.createTopic({ name: 'in', partitions: 2, replicationFactor: 1 });
    const service = cluster.ingestService(
      {
        kafkaTopic: 'in',
        KafkaConsumerGroup: 'sink',
        lakeTable: 'default.rows',
        lakeDSN: 'lake:lake@h',
        workers: 2,
        enableRebalanceOptimization: true,
      },
      { log: () => {} },
    );
    cluster.runUntil(() => service.rebalanceLog.filter((e) => e.event === 'assigned').length === 2, {
      timeout: '30s',
    });
    expect(cluster.listGroups()).toEqual([{ groupId: 'sink', state: 'Stable' }]);
    service.stop();
    cluster.runFor('2s');
    expect(cluster.listGroups()).toEqual([{ groupId: 'sink', state: 'Empty' }]);
    expect(service.rebalanceLog.filter((e) => e.event === 'revoked').map((e) => e.partitions.length)).toEqual(
      [1, 1],
    );
  });
});

describe('a table dropped under the running service', () => {
  it('fails the loads (retried, then lost) instead of breaking the simulation', async () => {
    const { service, producer } = setup({ maxRetryDelay: 1 });
    await cluster.lake.query('DROP TABLE default.rows');
    send(producer, 0, 10);
    cluster.runFor('30s');
    expect(service.losses).toHaveLength(1);
    expect(service.losses[0]!.reason).toMatch(/Unknown table 'default'.'rows'/);
    expect(service.metrics.ingestErrorsTotal).toBe(10);
  });
});
