// The scenario language's Lake pieces: an ingest service client, the explicit producer step, Lake row / group
// lag / ingest conditions, and SQL (print and expectation) answered by runScenarioAsync as of the virtual time
// each query was asked.
import { describe, expect, it } from 'vitest';
import {
  loadScenarioObject,
  runScenario,
  runScenarioAsync,
  ScenarioError,
} from '../../src/scenario/index.ts';

const TABLE = 'default.t';
const scenario = (extra: { timeline?: object[]; expectations?: object[]; config?: object } = {}) => ({
  name: 'lake-sql',
  cluster: { brokers: 1 },
  topics: [{ name: 'load', partitions: 2 }],
  clients: {
    ingest: [
      {
        name: 'sink',
        config: {
          kafkaTopic: 'load',
          KafkaConsumerGroup: 'g',
          lakeDSN: 'http://lake:lake@localhost:8002',
          lakeTable: TABLE,
          batchSize: 100,
          batchMaxInterval: 1,
          workers: 2,
          useStreamingLoad: true,
          topicMetadataRefreshIntervalMs: 5000,
          ...extra.config,
        },
        autoStart: true,
      },
    ],
  },
  timeline: extra.timeline ?? [
    { waitUntil: { condition: { ingest: { name: 'sink', assigned: 2 } }, timeout: '60s' } },
    { print: { sql: 'SELECT count(*) AS n FROM default.t' } },
    { produce: { topic: 'load', start: 0, count: 500, partitions: 2 } },
    { waitUntil: { condition: { lakeRows: { table: TABLE, count: 500 } }, timeout: '60s' } },
    { waitUntil: { condition: { groupLag: { group: 'g', topic: 'load', lag: 0 } }, timeout: '30s' } },
    { print: { text: 'after' } },
    { print: { sql: 'SELECT count(*) AS n FROM default.t' } },
  ],
  expectations: extra.expectations ?? [
    { name: 'rows', sql: { query: 'SELECT count(*) FROM default.t', equals: [[500]] } },
    { name: 'metrics', ingest: { name: 'sink', rowsTotal: 500 } },
    { name: 'errors', ingest: { name: 'sink', errorsTotal: 0 } },
  ],
});

describe('Lake SQL in scenarios', () => {
  it('answers each print as of its virtual time and splices it where it was asked', async () => {
    const lines: string[] = [];
    const r = await runScenarioAsync(scenario(), { out: (l) => lines.push(l) });
    expect(r.expectations.filter((e) => !e.passed)).toEqual([]);
    const o = r.output;
    // Before the producer: an empty table; after: 500 rows.
    expect(o.slice(o.indexOf('n'), o.indexOf('n') + 4)).toEqual(['n', '-', '0', '(1 row)']);
    const after = o.indexOf('after');
    expect(after).toBeGreaterThan(o.indexOf('n'));
    expect(o.slice(after + 1, after + 5)).toEqual(['n', '---', '500', '(1 row)']);
    expect(o.some((l) => /^produced=500 remaining=0 failed=0 /.test(l))).toBe(true);
    expect(lines).toEqual(o);
  });

  it('a failing sql expectation reports the rows; a bad query reports the Lake error', async () => {
    const r = await runScenarioAsync(
      scenario({
        expectations: [
          { name: 'wrong', sql: { query: 'SELECT count(*) FROM default.t', equals: [[1]] } },
          { name: 'bad', sql: { query: 'SELECT nope FROM default.missing', equals: [] } },
        ],
      }),
    );
    expect(r.passed).toBe(false);
    expect(r.expectations[0]).toMatchObject({ passed: false, actual: [['500']] });
    expect(r.expectations[1]!.passed).toBe(false);
    expect(String(r.expectations[1]!.actual)).toMatch(/^error: /);
  });

  it('the synchronous runner refuses a scenario that needs SQL, with a clear message', () => {
    expect(() => runScenario(scenario())).toThrow(/runScenarioAsync/);
    const noSql = scenario({
      timeline: [{ waitUntil: { condition: { ingest: { name: 'sink', assigned: 2 } }, timeout: '60s' } }],
      expectations: [{ name: 'two workers, one partition each', ingest: { name: 'sink', maxPerWorker: 1 } }],
    });
    expect(runScenario(noSql).passed).toBe(true);
  });

  it('unknown ingest config keys and unknown ingest services are load errors', () => {
    expect(() => loadScenarioObject(scenario({ config: { kafkaTopik: 'x' } }))).toThrow(ScenarioError);
    expect(() =>
      loadScenarioObject(
        scenario({ expectations: [{ name: 'x', ingest: { name: 'nosuch', rowsTotal: 1 } }] }),
      ),
    ).toThrow(/unknown ingest service 'nosuch'/);
  });
});
