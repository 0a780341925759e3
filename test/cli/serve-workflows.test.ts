// The source workflows done as docs/workflows.md shows them: `kafkasim serve` and the CLI's Kafka-tool commands (plus
// the API for what is not a Kafka tool: the ingestion service, the load producer and the Lake's SQL).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/api/index.ts';
import { bufferIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const run = async (...argv: string[]) => {
  const io = bufferIO();
  const code = await main(argv, io);
  return { code, out: io.text(), err: io.errors() };
};

describe('workflow A (AutoMQ self-balancing, A1) against kafkasim serve', () => {
  it('hotspot by hand, producer and consumer perf tests, the balancer spreads the partitions again', async () => {
    const server = await startServer({
      world: { seed: 1, brokers: 2, firstBrokerId: 1, storage: 'shared', autobalancer: true },
      pacer: { speed: 'max' },
      port: 0,
    });
    const B = server.url;
    const T = 'continuous-self-balancing-topic';
    try {
      expect(
        (await run('topics', '--partitions', '8', '--create', '--topic', T, '--bootstrap-server', B)).out,
      ).toBe(`Created topic ${T}.\n`);
      const move = join(mkdtempSync(join(tmpdir(), 'kafkasim-a1-')), 'move.json');
      writeFileSync(
        move,
        JSON.stringify({
          partitions: Array.from({ length: 8 }, (_, p) => ({ topic: T, partition: p, replicas: [2] })),
          version: 1,
        }),
      );
      const exec = await run(
        'reassign-partitions',
        '--bootstrap-server',
        B,
        '--reassignment-json-file',
        move,
        '--execute',
      );
      expect(exec.code).toBe(0);
      const hot = await fetch(`${B}/sim/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ until: { partitions_led_by: { topic: T, broker: 2 } }, timeout: '30s' }),
      });
      expect(((await hot.json()) as { met: boolean }).met).toBe(true);
      const [producer, consumer] = await Promise.all([
        run(
          'producer-perf-test',
          '--topic',
          T,
          '--num-records=1024000',
          '--throughput',
          '5120',
          '--record-size',
          '1024',
          '--producer-props',
          `bootstrap.servers=${B}`,
        ),
        run(
          'consumer-perf-test',
          '--topic',
          T,
          '--show-detailed-stats',
          '--timeout',
          '300000',
          '--messages=1024000',
          '--reporting-interval',
          '1000',
          `--bootstrap-server=${B}`,
        ),
      ]);
      expect(producer.code).toBe(0);
      expect(producer.out.trimEnd().split('\n').at(-1)).toMatch(
        /^1024000 records sent, 51\d\d\.\d{6} records\/sec \(5\.00 MB\/sec\)/,
      );
      // The balancer's moves: the producer's two WARN lines per retried batch, on stderr.
      expect(producer.err).toMatch(
        /WARN \[Producer clientId=perf-producer-client\] Got error produce response with correlation id \d+ on topic-partition continuous-self-balancing-topic-\d, retrying \(214748364\d attempts left\)\. Error: NOT_LEADER_OR_FOLLOWER/,
      );
      expect(producer.err).toMatch(
        /Received invalid metadata error in produce request on partition continuous-self-balancing-topic-\d due to org\.apache\.kafka\.common\.errors\.NotLeaderOrFollowerException/,
      );
      expect(consumer.code).toBe(0);
      expect(consumer.out.split('\n')[0]).toBe(
        'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
      );
      const after = (await run('topics', '--topic', T, '--describe', '--bootstrap-server', B)).out;
      const leaders = after
        .split('\n')
        .slice(1, 9)
        .map((l) => Number(/\tLeader: (\d)\t/.exec(l)![1]));
      expect(leaders.filter((l) => l === 1)).toHaveLength(4);
      expect(leaders.filter((l) => l === 2)).toHaveLength(4);
      expect(server.host.cluster.deliveryReport('perf-producer')).toMatchObject({
        acknowledged: 1_024_000,
        lost: 0,
        duplicated: 0,
      });
      const state = (await (await fetch(`${B}/kafkacruisecontrol/state`)).json()) as {
        AnomalyDetectorState: { executedMoves: number };
      };
      expect(state.AnomalyDetectorState.executedMoves).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe('workflow B (Kafka -> Lake with online partition expansion) against kafkasim serve', () => {
  it('ingests 100,000 rows across the expansion, no loss, no duplicates, lag 0', async () => {
    const server = await startServer({ world: { seed: 1, brokers: 1 }, pacer: { paused: true }, port: 0 });
    const B = server.url;
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(`${B}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return (await r.json()) as Record<string, unknown>;
    };
    const lake = { authorization: `Basic ${Buffer.from('lake:lake').toString('base64')}` };
    const sql = async (text: string) => (await post('/v1/query', { sql: text }, lake)).data;
    try {
      expect(
        (
          await run(
            'topics',
            '--bootstrap-server',
            B,
            '--create',
            '--topic',
            'lake-topic',
            '--partitions',
            '2',
            '--replication-factor',
            '1',
          )
        ).code,
      ).toBe(0);
      const config = {
        kafkaBootstrapServers: '127.0.0.1:9092',
        kafkaTopic: 'lake-topic',
        KafkaConsumerGroup: 'lake-group',
        isSASL: false,
        disableTLS: true,
        isJsonTransform: false,
        lakeDSN: 'http://lake:lake@localhost:8002',
        lakeTable: 'default.lake_table',
        batchSize: 1000,
        batchMaxInterval: 2,
        dataFormat: 'json',
        workers: 4,
        copyPurge: true,
        copyForce: false,
        disableVariantCheck: true,
        minBytes: 1,
        maxBytes: 20971520,
        maxWait: 1,
        useReplaceMode: false,
        useStreamingLoad: true,
        copyIntoUploadCompression: true,
        maxRetryDelay: 30,
        metricsPort: 22112,
        enableRebalanceOptimization: true,
        partitionAssignmentStrategy: 'range,roundrobin',
        topicMetadataRefreshIntervalMs: 5000,
      };
      expect((await post('/sim/workloads', { kind: 'ingest', config })).state).toBe('running');
      await post('/sim/advance', { duration: '10s' });
      await post('/sim/workloads', {
        kind: 'explicit-producer',
        topic: 'lake-topic',
        first_sequence: 0,
        count: 10000,
        partition_count: 2,
      });
      await post('/sim/advance', { duration: '30s' });
      expect(await sql('SELECT count(*) FROM default.lake_table')).toEqual([['10000']]);
      const phase1 = await run(
        'consumer-groups',
        '--bootstrap-server',
        B,
        '--describe',
        '--group',
        'lake-group',
      );
      expect(
        phase1.out.split('\n').filter((l) => /^lake-group\s+lake-topic\s+\d\s+5000\s+5000\s+0\s/.test(l)),
      ).toHaveLength(2);
      expect(
        await run('topics', '--bootstrap-server', B, '--alter', '--topic', 'lake-topic', '--partitions', '8'),
      ).toEqual({ code: 0, out: '', err: '' });
      await post('/sim/advance', { duration: '30s' });
      await post('/sim/workloads', {
        kind: 'explicit-producer',
        topic: 'lake-topic',
        first_sequence: 10000,
        count: 90000,
        partition_count: 8,
      });
      await post('/sim/advance', { duration: '60s' });
      expect(
        await sql(
          "SELECT count(*) AS total_rows, count(DISTINCT raw_data['sequence']::UInt64) AS distinct_sequences, min(raw_data['sequence']::UInt64) AS min_sequence, max(raw_data['sequence']::UInt64) AS max_sequence FROM default.lake_table",
        ),
      ).toEqual([['100000', '100000', '0', '99999']]);
      const perPartition = (await sql(
        'SELECT kpartition, count(*) AS rows, min(koffset), max(koffset) FROM default.lake_table GROUP BY kpartition ORDER BY kpartition',
      )) as string[][];
      expect(perPartition.map((r) => r[1])).toEqual([
        '16250',
        '16250',
        '11250',
        '11250',
        '11250',
        '11250',
        '11250',
        '11250',
      ]);
      const phase2 = await run(
        'consumer-groups',
        '--bootstrap-server',
        B,
        '--describe',
        '--group',
        'lake-group',
      );
      expect(
        phase2.out.split('\n').filter((l) => /^lake-group\s+lake-topic\s+\d\s+\d+\s+\d+\s+0\s/.test(l)),
      ).toHaveLength(8);
      const metrics = await (await fetch(`${B}/metrics`)).text();
      expect(metrics).toMatch(/^bend_ingest_kafka_ingest_rows_total 100000$/m);
      expect(metrics).toMatch(/^bend_ingest_kafka_ingest_errors_total 0$/m);
      const log = (await (await fetch(`${B}/sim/workloads/bend-ingest-kafka/output`)).json()) as {
        chunks: { text: string }[];
      };
      expect(log.chunks.some((c) => c.text.includes('kafka_rebalance'))).toBe(true);
      expect(log.chunks.filter((c) => /level=(error|fatal)/.test(c.text))).toEqual([]);
      const load = (await (await fetch(`${B}/sim/workloads/explicit-producer-2/output`)).json()) as {
        chunks: { text: string }[];
      };
      expect(load.chunks[0]!.text).toMatch(
        /^produced=90000 remaining=0 failed=0 elapsed=\S+ rate=[\d.]+ msg\/s\n$/,
      );
    } finally {
      await server.close();
    }
  });
});
