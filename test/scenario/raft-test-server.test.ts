// raftTestServer scenarios: a quorum of Kafka's Raft test servers from properties files instead of a cluster, the
// VerifiableProducer and kafka-producer-perf-test steps, the output condition and metric, and the located errors
// for what such a scenario cannot have. The shipped raft-test-server.yaml runs in scenarios.test.ts (golden hash).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  clusterOptionsOf,
  loadScenarioText,
  runScenario,
  ScenarioError,
  type ScenarioIssue,
  type StepEvent,
} from '../../src/scenario/index.ts';
import { runCell } from '../../src/sweep/run-cell.ts';

const properties = (n: number, extra = '') =>
  `broker.id=${n}\\nlisteners=PLAINTEXT://localhost:${9091 + n}\\nquorum.voters=1@localhost:9092,2@localhost:9093,3@localhost:9094\\nlog.dirs=/tmp/raft-logs-${n}\\nzookeeper.connect=localhost:2181\\n${extra}`;

const SMALL = (fsync: number) => `name: small-raft
raftTestServer:
  properties:
    raft-quorum-1.properties: "${properties(1, 'verbose=true\\n')}"
    raft-quorum-2.properties: "${properties(2)}"
    raft-quorum-3.properties: "${properties(3)}"
  configs:
    kafkasim.raft.fsync.ms: ${fsync}
timeline:
  - label: verifiable
    verifiableProducer: { bootstrapServer: http://localhost:9093, maxMessages: 20, throughput: 10 }
  - producerPerfTest: { bootstrapServer: localhost:9092, numRecords: 200, throughput: -1, recordSize: 10 }
expectations:
  - name: acked
    output: { matches: '"name":"producer_send_success"', count: 20 }
  - name: invariants
    invariants: held
metrics:
  recordsPerSec: { output: { matches: '^200 records sent, ([\\d.]+) records/sec' } }
  successLines: { output: { matches: 'producer_send_success' } }
  noSuchLine: { output: { matches: '^nothing like (this)' } }
  noSuchCount: { output: { matches: '^nothing like this' } }
`;

function issuesOf(text: string): ScenarioIssue[] {
  try {
    loadScenarioText(text, 'raft.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return [...e.issues];
    throw e;
  }
  throw new Error('expected the scenario to be invalid');
}

describe('a raftTestServer scenario', () => {
  it('runs the two tools against the quorum: commands, JSON lines at increasing offsets, the perf summary', () => {
    const steps: StepEvent[] = [];
    const r = runScenario(loadScenarioText(SMALL(1), 'small.yaml'), { onStep: (e) => steps.push(e) });
    expect(r.error).toBeUndefined();
    expect(r.expectations.map((e) => [e.name, e.passed])).toEqual([
      ['acked', true],
      ['invariants', true],
    ]);
    expect(steps.map((s) => s.command)).toEqual([
      '$ kafka-run-class.sh org.apache.kafka.tools.VerifiableProducer --bootstrap-server http://localhost:9093 --topic __cluster_metadata --max-messages 20 --throughput 10',
      '$ kafka-producer-perf-test.sh --topic __cluster_metadata --num-records 200 --throughput -1 --record-size 10 --producer-props bootstrap.servers=localhost:9092',
    ]);
    const acks = r.output
      .filter((l) => l.includes('producer_send_success'))
      .map((l) => JSON.parse(l) as { value: string; offset: number });
    expect(acks.map((a) => a.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    for (let i = 1; i < acks.length; i++) expect(acks[i]!.offset).toBeGreaterThan(acks[i - 1]!.offset);
    expect(r.output.at(-1)).toMatch(/^200 records sent, [\d.]+ records\/sec/);
    expect(r.metrics.successLines).toBe(20);
    expect(r.metrics.noSuchLine).toBeNull();
    expect(r.metrics.noSuchCount).toBe(0);
    // The verifiable producer at 10/s for 20 values: the step lasts about 2 s of virtual time.
    const v = r.steps.find((s) => s.label === 'verifiable')!;
    expect(v.end! - v.start!).toBeGreaterThan(1900);
    expect(v.end! - v.start!).toBeLessThan(2100);
  });

  it("the perf test's throughput comes from the model: a slower fsync lowers it", () => {
    const fast = runScenario(loadScenarioText(SMALL(1), 'small.yaml')).metrics.recordsPerSec!;
    const slow = runScenario(loadScenarioText(SMALL(10), 'small.yaml')).metrics.recordsPerSec!;
    expect(fast).toBeGreaterThan(0);
    expect(slow).toBeLessThan(fast * 0.8);
  });

  it('the shipped one runs by name', () => {
    const r = runScenario('raft-test-server', { set: ['timeline[0].verifiableProducer.maxMessages=3'] });
    expect(r.scenario).toBe('raft-test-server');
    expect(r.output.filter((l) => l.includes('"name":"tool_data","sent":3,"acked":3,'))).toHaveLength(1);
  });

  it('refuses what it cannot have, each at its place', () => {
    const text = `${SMALL(1).replace('name: small-raft\n', 'name: small-raft\ncluster: { brokers: 1 }\n')}`
      .replace('    kafkasim.raft.fsync.ms: 1\n', '    kafkasim.raft.fsynk.ms: 1\n')
      .replace('timeline:\n', 'timeline:\n  - crashBroker: 0\n')
      .replace(
        '  - name: invariants\n    invariants: held\n',
        '  - name: leaders\n    leaderless: { count: 0 }\n',
      );
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^cluster: a raftTestServer scenario has no cluster/),
        expect.stringMatching(
          /^raftTestServer\.configs\["kafkasim\.raft\.fsynk\.ms"\]: unknown quorum setting 'kafkasim\.raft\.fsynk\.ms' \(did you mean 'kafkasim\.raft\.fsync\.ms'\?\)/,
        ),
        expect.stringMatching(/^timeline\.0\.crashBroker: crashBroker needs a cluster/),
        expect.stringMatching(/^expectations\.1\.leaderless: leaderless reads a cluster/),
      ]),
    );
  });

  it('a properties file without its voters, or voters that disagree, is an error naming the file', () => {
    const noVoters = SMALL(1).replace(
      `"${properties(2)}"`,
      '"broker.id=2\\nlisteners=PLAINTEXT://localhost:9093\\n"',
    );
    expect(issuesOf(noVoters).map((i) => `${i.path}: ${i.message}`)).toContain(
      'raftTestServer.properties["raft-quorum-2.properties"]: raft-quorum-2.properties: controller.quorum.voters or quorum.voters is required',
    );
    const disagree = SMALL(1).replace(
      `"${properties(3)}"`,
      `"${properties(3).replace('3@localhost:9094', '4@localhost:9094')}"`,
    );
    expect(issuesOf(disagree).map((i) => i.message)).toContain(
      "node 3: its quorum voters differ from node 1's",
    );
  });

  it('a sweep run gives its metrics; serve (which needs a cluster) refuses it, saying so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-raft-'));
    const file = join(dir, 'small.yaml');
    writeFileSync(file, SMALL(1));
    const r = runCell({ path: file, set: [], seed: 1, metrics: ['recordsPerSec', 'successLines'] });
    expect(r.error).toBeUndefined();
    expect(r.metrics.recordsPerSec).toBeGreaterThan(0);
    expect(r.metrics.successLines).toBe(20);
    const spec = loadScenarioText(SMALL(1), 'small.yaml').spec;
    expect(() => clusterOptionsOf(spec, 1)).toThrow(ScenarioError);
    expect(() => clusterOptionsOf(spec, 1)).toThrow(/is a quorum of Raft test servers, not a cluster/);
  });

  it('the Raft tools need a raftTestServer', () => {
    const text = `name: no-quorum
timeline:
  - verifiableProducer: { bootstrapServer: localhost:9092, maxMessages: 1, throughput: 1 }
`;
    expect(issuesOf(text).map((i) => i.message)).toEqual([
      "verifiableProducer runs against Kafka's Raft test server: it needs a top-level raftTestServer (the quorum's properties files) instead of a cluster",
    ]);
  });
});

describe('the output condition in a cluster scenario', () => {
  it('counts the lines a tool printed, and a bad expression is an error at its place', () => {
    const text = `name: out
topics: [{ name: t, partitions: 1, replicationFactor: 1 }]
timeline:
  - print: { describe-topic: t }
expectations:
  - name: described
    output: { matches: '^Topic: t\\t', count: 1 }
`;
    const r = runScenario(loadScenarioText(text, 'out.yaml'));
    expect(r.expectations[0]).toMatchObject({ passed: true, actual: 1 });
    const bad = text.replace("'^Topic: t\\t'", "'(unclosed'");
    expect(issuesOf(bad).map((i) => `${i.path}: ${i.message}`)[0]).toMatch(
      /^expectations\.0\.output\.matches: '\(unclosed' is not a regular expression/,
    );
  });
});
