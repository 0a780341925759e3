// One virtual wall clock per run (`startTime`, default 2026-01-01T00:00:00Z): every timestamp a modelled tool
// prints comes from it, so two runs with the same seed print the same lines, and lines of different tools agree.
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupSinkConsumer } from '../../models/lake/index.ts';
import { Cluster } from '../../src/cluster/index.ts';
import { runScenario, ScenarioError } from '../../src/scenario/index.ts';

const JUNE = Date.UTC(2024, 5, 1, 9, 30);

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.lake.close();
  cluster = undefined;
});

const perfScenario = (startTime?: string | number) => ({
  name: 'start-time',
  ...(startTime !== undefined ? { startTime } : {}),
  cluster: { brokers: 2, storage: 'shared' },
  topics: [{ name: 't', partitions: 2 }],
  clients: {
    perfProducers: [{ name: 'p', topic: 't', numRecords: 60_000, throughput: 5000, recordSize: 100 }],
  },
  timeline: [{ at: '2s', start: ['p'] }, { run: '13s' }],
  expectations: [{ name: 'invariants', invariants: 'held' }],
});

describe('the virtual wall clock', () => {
  it("a scenario's startTime stamps the perf tool's window lines (AutoMQ's tool: the window's start)", () => {
    const r = runScenario(perfScenario('2024-06-01T09:30:00Z'));
    const windows = r.output.filter((l) =>
      / records sent, [\d.]+ records\/sec .* ms max latency\.\n?$/.test(l),
    );
    expect(windows.length).toBeGreaterThanOrEqual(2);
    // Each stamp is its window's start: the first one when the producer started, the next one about 5 s later.
    const stamp = (l: string) =>
      Date.parse(`${/^\[([\d-]+) ([\d:]+),(\d{3})\] /.exec(l)!.slice(1, 3).join('T')}Z`);
    expect(windows[0]).toMatch(/^\[2024-06-01 09:30:0\d,\d{3}\] \d+ records sent/);
    expect(stamp(windows[0]!)).toBeGreaterThanOrEqual(JUNE + 2000);
    expect(stamp(windows[1]!) - stamp(windows[0]!)).toBeGreaterThanOrEqual(5000);
    expect(stamp(windows[1]!) - stamp(windows[0]!)).toBeLessThan(5100);
    // Epoch milliseconds mean the same.
    const ms = runScenario(perfScenario(JUNE));
    expect(ms.output.filter((l) => l.includes('records sent'))).toEqual(
      r.output.filter((l) => l.includes('records sent')),
    );
  });

  it('without startTime the clock starts at 2026-01-01T00:00:00Z, the same every run', () => {
    const a = runScenario(perfScenario()).output.filter((l) => l.includes('records sent'));
    expect(a[0]).toMatch(/^\[2026-01-01 00:00:0\d,\d{3}\] /);
    expect(runScenario(perfScenario()).output.filter((l) => l.includes('records sent'))).toEqual(a);
  });

  it('a startTime that is no date is an error that says where and how to write it', () => {
    expect(() => runScenario(perfScenario(1.5))).toThrow(
      /startTime: expected a string or an integer; found number 1.5/,
    );
    for (const bad of ['2024-02-30T00:00:00Z', 'yesterday']) {
      expect(() => runScenario(perfScenario(bad))).toThrow(ScenarioError);
      expect(() => runScenario(perfScenario(bad))).toThrow(
        /startTime .* is not a date: write it as 2024-06-01T09:30:00Z/,
      );
    }
  });

  it('consumer-perf-test dates, the ingest log (logrus, whole seconds) and the Lake share the one clock', async () => {
    const lines: string[] = [];
    cluster = new Cluster({ seed: 2, brokers: 1, startTime: JUNE, out: (l) => lines.push(l) });
    cluster.start();
    cluster.admin.createTopic({ name: 'in', partitions: 2, replicationFactor: 1 });
    const producer = cluster.producer('app', { flavour: 'librdkafka' });
    for (let i = 0; i < 200; i++)
      producer.send({ topic: 'in', partition: i % 2, key: `k${i}`, value: `{"i":${i}}` });
    cluster.runFor('2s');
    const perf = cluster.consumerPerfTest({
      topic: 'in',
      messages: 200,
      showDetailedStats: true,
      reportingIntervalMs: 500,
    });
    const svc = cluster.ingestService({
      kafkaTopic: 'in',
      KafkaConsumerGroup: 'sink',
      lakeDSN: 'http://lake:lake@localhost:8002',
      lakeTable: 'default.rows',
      batchSize: 100,
      batchMaxInterval: 1,
      workers: 2,
    });
    cluster.runFor('20s');
    expect(perf.lines.slice(1).length).toBeGreaterThan(0);
    for (const row of perf.lines.slice(1)) expect(row).toMatch(/^2024-06-01 09:30:\d\d:\d{3}, /);
    const ingest = lines.filter((l) => l.startsWith('time='));
    expect(ingest.length).toBeGreaterThan(0);
    for (const l of ingest) expect(l).toMatch(/^time="2024-06-01T09:30:\d\dZ" level=\w+ msg=/);
    expect(cluster.lake.wallNow).toBe(JUNE + cluster.now);
    // librdkafka's default client.id: the coordinator names the workers' members after it.
    const members = svc.consumers.map((c) => (c as GroupSinkConsumer).member);
    expect(members.map((m) => m.config['client.id'])).toEqual(['rdkafka', 'rdkafka']);
    for (const m of members) expect(m.memberId).toMatch(/^rdkafka-/);
  });
});
