// The runner on inline scenarios (the library API): step actions and their tool output, conditions with
// expected vs actual, failures that stop the timeline, metrics, and what a run reports.
import { describe, expect, it, vi } from 'vitest';
import type { TraceEvent } from '../../models/sim/index.ts';
import { isr } from '../../src/scenario/conditions/isr.ts';
import { runScenario, type ScenarioResult } from '../../src/scenario/index.ts';

const base = {
  name: 'inline',
  seed: 3,
  cluster: { brokers: 3 },
  topics: [{ name: 'orders', partitions: 3, replicationFactor: 1 }],
};

const byName = (r: ScenarioResult, name: string) => {
  const e = r.expectations.find((x) => x.name === name);
  if (!e) throw new Error(`no expectation ${name}`);
  return e;
};

describe('expectations report expected vs actual', () => {
  it('a failing distribution expectation fails the run and shows the counts', () => {
    const r = runScenario({
      ...base,
      timeline: [{ run: '1s' }],
      expectations: [
        { name: 'spread', leadersPerBroker: { topic: 'orders', maxSkew: 0 } },
        { name: 'all on 0', leadersPerBroker: { topic: 'orders', equals: { 0: 3 } } },
        { name: 'three partitions', partitionCount: { topic: 'orders', count: 3 } },
      ],
    });
    expect(byName(r, 'spread')).toEqual({
      name: 'spread',
      passed: true,
      expected: 'max - min leaders per broker <= 0 (orders)',
      actual: { 0: 1, 1: 1, 2: 1 },
    });
    expect(byName(r, 'all on 0')).toMatchObject({
      passed: false,
      expected: 'leaders per broker = {"0":3,"1":0,"2":0} (orders)',
      actual: { 0: 1, 1: 1, 2: 1 },
    });
    expect(byName(r, 'three partitions').passed).toBe(true);
    expect(r.passed).toBe(false);
  });

  it('comparisons: numbers mean equal, objects give bounds', () => {
    const r = runScenario({
      ...base,
      clients: { producers: [{ name: 'p', topic: 'orders', rate: 100, records: 50, autoStart: true }] },
      timeline: [{ run: '3s' }],
      expectations: [
        { name: 'exact', delivery: { producer: 'p', acknowledged: 50 } },
        { name: 'bounds', delivery: { producer: 'p', sent: { gte: 50, lt: 51 }, lost: { ne: 1 } } },
        { name: 'wrong', delivery: { producer: 'p', acknowledged: { gt: 50 } } },
      ],
    });
    expect(byName(r, 'exact')).toMatchObject({
      passed: true,
      expected: 'producer p: acknowledged = 50',
      actual: { acknowledged: 50 },
    });
    expect(byName(r, 'bounds')).toMatchObject({
      passed: true,
      expected: 'producer p: sent >= 50 and sent < 51, lost != 1',
      actual: { sent: 50, lost: 0 },
    });
    expect(byName(r, 'wrong')).toMatchObject({ passed: false, actual: { acknowledged: 50 } });
  });

  it('all / any / not combine conditions', () => {
    const r = runScenario({
      ...base,
      timeline: [{ run: '1s' }],
      expectations: [
        {
          name: 'all',
          all: [{ partitionCount: { topic: 'orders', count: 3 } }, { reassignments: { count: 0 } }],
        },
        {
          name: 'any',
          any: [{ partitionCount: { topic: 'orders', count: 4 } }, { reassignments: { count: 0 } }],
        },
        { name: 'not', not: { partitionCount: { topic: 'orders', count: 3 } } },
      ],
    });
    expect(r.expectations.map((e) => e.passed)).toEqual([true, true, false]);
    expect(byName(r, 'not').expected).toBe('not (partitions of orders = 3)');
  });
});

describe('steps', () => {
  it('admin steps print what kafka-topics prints, errors included, and an error stops the timeline', () => {
    const r = runScenario({
      ...base,
      timeline: [
        { createTopic: { name: 'audit', partitions: 2, replicationFactor: 2 } },
        { after: '500ms', print: 'list-topics' },
        { print: { text: 'now a duplicate' } },
        { createTopic: { name: 'audit', partitions: 2 } },
        { label: 'never', run: '1s' },
      ],
      expectations: [{ name: 'audit has 2 partitions', partitionCount: { topic: 'audit', count: 2 } }],
    });
    expect(r.output).toEqual([
      'Created topic audit.',
      'audit',
      'orders',
      'now a duplicate',
      "Error while executing topic command : Topic 'audit' already exists.",
    ]);
    expect(r.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok', 'failed', 'skipped']);
    expect(r.passed).toBe(false);
    expect(byName(r, 'audit has 2 partitions').passed).toBe(true);
    expect(byName(r, 'timeline completed')).toMatchObject({ passed: false });
    expect(r.error).toMatch(
      /^step 3 \(createTopic\): creating topic audit failed: Topic 'audit' already exists\./,
    );
  });

  it('at / after place steps in virtual time; quiet steps print nothing', () => {
    const r = runScenario({
      ...base,
      timeline: [
        { at: '2s', label: 'a', print: { 'describe-topic': 'orders' }, quiet: true },
        { after: '1500ms', label: 'b', run: '1s' },
        { at: '3s', label: 'c', print: { text: 'late' } },
      ],
      expectations: [
        { name: 'b ran 1s after a', timing: { from: 'a', to: 'b', min: '2500ms', max: '2500ms' } },
      ],
      metrics: { aToB: { timing: { from: 'a', to: 'b' } } },
    });
    expect(r.steps.map((s) => [s.label, s.start, s.end])).toEqual([
      ['a', 2000, 2000],
      ['b', 3500, 4500],
      // `at` in the past runs at once.
      ['c', 4500, 4500],
    ]);
    expect(r.output).toEqual(['late']);
    expect(r.passed).toBe(true);
    expect(r.metrics.aToB).toBe(2500);
    // The cluster boots first (brokers register and are unfenced); the timeline starts after that.
    expect(r.virtualMs).toBeGreaterThan(4500);
  });

  it('waitUntil: the step ends when the condition holds; a timeout fails (or continues when asked)', () => {
    const r = runScenario({
      ...base,
      clients: {
        perfProducers: [{ name: 'perf', topic: 'orders', numRecords: 200, throughput: 100, recordSize: 10 }],
      },
      timeline: [
        { start: 'perf' },
        { label: 'done', waitUntil: { condition: { perf: { name: 'perf', done: true } }, timeout: '10s' } },
        {
          label: 'never',
          waitUntil: {
            condition: { partitionCount: { topic: 'orders', count: 9 } },
            timeout: '2s',
            onTimeout: 'continue',
          },
        },
        { waitUntil: { condition: { partitionCount: { topic: 'orders', count: 9 } }, timeout: '1s' } },
        { run: '1s' },
      ],
      expectations: [{ name: 'took about 2s', timing: { to: 'done', min: '1s', max: '4s' } }],
    });
    const done = r.steps[1]!;
    expect(done.status).toBe('ok');
    // 200 records at 100/s: the last goes out at ~1.99s after the start, and is acknowledged soon after.
    expect(done.end! - r.steps[0]!.end!).toBeGreaterThan(1980);
    expect(done.end! - r.steps[0]!.end!).toBeLessThan(2100);
    expect(r.steps.slice(2).map((s) => s.status)).toEqual(['timed-out', 'timed-out', 'skipped']);
    expect(r.steps[2]!.end! - r.steps[2]!.start!).toBe(2000);
    expect(r.error).toMatch(
      /waitUntil timed out after 1s \(at \d+(\.\d+)?s\): expected partitions of orders = 9; actual 3$/,
    );
    expect(r.passed).toBe(false);
  });

  it('waitUntil on a condition that reads only the image evaluates it when the image changed, not after every event', () => {
    const evaluate = vi.spyOn(isr, 'evaluate');
    try {
      const r = runScenario({
        ...base,
        topics: [{ name: 'orders', partitions: 3, replicationFactor: 3 }],
        clients: { producers: [{ name: 'p', topic: 'orders', rate: 200, autoStart: true }] },
        timeline: [
          { at: '1s', label: 'crash', crashBroker: 1 },
          {
            label: 'out',
            waitUntil: { condition: { isr: { topic: 'orders', excludes: 1 } }, timeout: '30s' },
          },
        ],
      });
      expect(r.passed).toBe(true);
      const out = r.steps[1]!;
      // The wait lasts until the controller fences broker 1 (broker.session.timeout.ms, 9 s) while the producer's
      // 200 records/s and the followers' fetches run a few thousand events; the image changes a few times.
      expect(out.end! - out.start!).toBeGreaterThan(5000);
      expect(r.events).toBeGreaterThan(1000);
      expect(evaluate.mock.calls.length).toBeGreaterThan(0);
      expect(evaluate.mock.calls.length).toBeLessThan(50);
    } finally {
      evaluate.mockRestore();
    }
  });

  it('crashBroker {leaderOf} resolves the leader when the step runs; restartBroker {brokerOf} the same broker', () => {
    const r = runScenario({
      ...base,
      topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
      // Traffic, so that the restarted broker has something to catch up to (an idle follower does not rejoin
      // the ISR in today's broker model).
      clients: { producers: [{ name: 'p', topic: 'orders', rate: 100, autoStart: true }] },
      timeline: [
        { at: '1s', label: 'crash', crashBroker: { leaderOf: { topic: 'orders', partition: 0 } } },
        {
          label: 'elected',
          waitUntil: { condition: { leaderFromIsr: { topic: 'orders', since: 'crash' } }, timeout: '30s' },
        },
        { label: 'restart', restartBroker: { brokerOf: 'crash' } },
        { waitUntil: { condition: { isr: { topic: 'orders', size: 3 } }, timeout: '30s' } },
      ],
      expectations: [
        { name: 'new leader from the ISR', leaderFromIsr: { topic: 'orders', since: 'crash' } },
        { name: 'ISR whole again', isr: { topic: 'orders', size: 3 } },
      ],
    });
    expect(r.passed).toBe(true);
    const crashed = r.steps[0]!.broker!;
    expect(r.steps[0]!.image!.topics.orders!.partitions[0]!.leader).toBe(crashed);
    expect(r.steps[2]!.broker).toBe(crashed);
    const row = (byName(r, 'new leader from the ISR').actual as { leader: number }[])[0]!;
    expect(row.leader).not.toBe(crashed);
  });

  it('reassign prints --execute; reassign-verify shows progress, then completion with the throttle lines', () => {
    const r = runScenario({
      ...base,
      topics: [{ name: 'orders', assignments: [[0]] }],
      clients: {
        producers: [
          { name: 'p', topic: 'orders', rate: 1000, recordSize: 1000, records: 5000, autoStart: true },
        ],
      },
      timeline: [
        {
          at: '6s',
          label: 'move',
          reassign: { json: { version: 1, partitions: [{ topic: 'orders', partition: 0, replicas: [1] }] } },
        },
        { print: 'reassign-verify' },
        { waitUntil: { condition: { reassignments: { count: 0 } }, timeout: '60s' } },
        { print: { 'reassign-verify': 'move' } },
        { waitUntil: { condition: { delivery: { producer: 'p', acknowledged: 5000 } }, timeout: '30s' } },
      ],
      expectations: [
        { name: 'moved', replicasPerBroker: { topic: 'orders', equals: { 1: 1 } } },
        { name: 'nothing lost', delivery: { producer: 'p', lost: 0, acknowledged: 5000 } },
      ],
    });
    expect(r.passed).toBe(true);
    expect(r.output.join('\n')).toBe(
      [
        'Current partition replica assignment',
        '',
        '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[0],"log_dirs":["any"]}]}',
        '',
        'Save this to use as the --reassignment-json-file option during rollback',
        'Successfully started partition reassignment for orders-0',
        'Status of partition reassignment:',
        'Reassignment of partition orders-0 is still in progress.',
        '',
        'Status of partition reassignment:',
        'Reassignment of partition orders-0 is completed.',
        '',
        'Clearing broker-level throttles on brokers 0,1,2',
        'Clearing topic-level throttles on topic orders',
      ].join('\n'),
    );
  });

  it('a consumer reads what a producer writes; offsets and lag are measurable', () => {
    const r = runScenario({
      ...base,
      clients: {
        producers: [
          { name: 'p', topic: 'orders', rate: 500, records: 1000, keys: 'sequence', autoStart: true },
        ],
        consumers: [
          { name: 'c', topic: 'orders', config: { 'auto.offset.reset': 'earliest' }, autoStart: true },
        ],
      },
      timeline: [
        { waitUntil: { condition: { consumer: { name: 'c', consumed: 1000 } }, timeout: '30s' } },
        { run: '1s' },
      ],
      expectations: [
        { name: 'all consumed', consumer: { name: 'c', consumed: 1000, lag: 0 } },
        { name: 'offsets', offsets: { topic: 'orders', highWatermark: 1000, logEndOffset: 1000 } },
      ],
      metrics: { consumed: { consumer: { name: 'c', field: 'consumed' } } },
    });
    expect(r.expectations.filter((e) => !e.passed)).toEqual([]);
    expect(r.metrics.consumed).toBe(1000);
    expect(r.metrics['c.consumed']).toBe(1000);
    expect(r.metrics['p.acknowledged']).toBe(1000);
  });
});

describe('what a run reports', () => {
  it('the result, the trace and the output stream', () => {
    const events: TraceEvent[] = [];
    const lines: string[] = [];
    const steps: string[] = [];
    const r = runScenario(
      { ...base, timeline: [{ run: '1s' }, { print: { 'describe-topic': 'orders' } }] },
      { out: (l) => lines.push(l), trace: (e) => events.push(e), onStep: (s) => steps.push(s.command) },
    );
    expect(r.scenario).toBe('inline');
    expect(r.seed).toBe(3);
    expect(r.events).toBeGreaterThan(0);
    expect(r.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect(lines).toEqual(r.output);
    expect(lines[0]).toMatch(
      /^Topic: orders\tTopicId: \S+\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: /,
    );
    expect(steps).toEqual([
      '# run 1s',
      '$ kafka-topics.sh --bootstrap-server localhost:9092 --describe --topic orders',
    ]);
    expect(events.filter((e) => e.kind === 'scenario.step').map((e) => e.action)).toEqual(['run', 'print']);
    expect(events.length).toBeGreaterThan(0);
  });

  it('options override the seed and values, like --seed and --set', () => {
    const r = runScenario(
      { ...base, timeline: [{ run: '1s' }] },
      { seed: 9, set: ['topics.0.partitions=5'] },
    );
    expect(r.seed).toBe(9);
    const again = runScenario({
      ...base,
      topics: [{ ...base.topics[0], partitions: 5 }],
      seed: 9,
      timeline: [{ run: '1s' }],
    });
    expect(r.traceHash).toBe(again.traceHash);
  });

  it('an invariant violation stops the timeline and fails `invariants: held` with the violation', () => {
    const r = runScenario(
      {
        ...base,
        timeline: [{ run: '1s' }, { label: 'late', run: '10s' }, { print: { text: 'never printed' } }],
        expectations: [
          { name: 'invariants', invariants: 'held' },
          { name: 'still measurable', partitionCount: { topic: 'orders', count: 3 } },
        ],
      },
      {
        // Boot takes ~2s and the first step 1s: the violation comes during step 'late'.
        onCluster: (cluster) => {
          cluster.sim.addInvariant(
            'test.clock-below-8s',
            () => cluster.now < 8000 || `the clock reached ${cluster.now}`,
          );
        },
      },
    );
    expect(r.passed).toBe(false);
    expect(byName(r, 'invariants')).toMatchObject({
      passed: false,
      actual: expect.stringMatching(/^invariant test\.clock-below-8s violated: the clock reached \d+/),
    });
    expect(byName(r, 'still measurable').passed).toBe(true);
    expect(r.steps.map((s) => s.status)).toEqual(['ok', 'failed', 'skipped']);
    expect(r.output).toEqual([]);
  });

  it('a setup the cluster refuses fails the run with the reason', () => {
    const r = runScenario({
      ...base,
      cluster: { brokers: 2, storage: 'shared' },
      topics: [{ name: 'orders', partitions: 2, replicationFactor: 2 }],
      timeline: [{ run: '1s' }],
    });
    expect(r.passed).toBe(false);
    expect(r.error).toMatch(/^setup: creating topic orders failed: /);
    expect(r.steps[0]!.status).toBe('skipped');
  });
});
