// The scenario language for the KRaft metadata quorum: cluster.controllers and the quorum's configs, the
// crashController / restartController steps and their selectors (with located errors for unknown controllers),
// the quorum, metadataLoad and metadataConsistent conditions, the errorWindow metric, and the flush switch
// failing kraft-flush.yaml on MonotonicHighWatermark with the seed, virtual time and a hint.
import { describe, expect, it } from 'vitest';
import {
  clusterOptionsOf,
  loadScenarioText,
  runScenario,
  SCENARIOS_DIR,
  ScenarioError,
  type ScenarioIssue,
} from '../../src/scenario/index.ts';

const QUORUM = `name: quorum
cluster:
  brokers: 3
  controllers: 3
  metadataLoad: { rate: 20 }
  configs:
    kafkasim.raft.flush.enable: true
    controller.quorum.election.timeout.ms: 500
timeline:
  - at: 2s
    label: first
    crashController: active
  - label: elected
    waitUntil:
      condition: { quorum: { leader: true } }
      timeout: 10s
  - restartController: { controllerOf: first }
  - run: 3s
  - label: converged
    waitUntil:
      condition: { metadataConsistent: true }
      timeout: 10s
expectations:
  - name: one failover
    quorum: { leaderChanges: 1 }
  - name: the counter is exact
    metadataLoad: { exact: true }
  - name: invariants
    invariants: held
metrics:
  changes: { quorum: { field: leaderChanges } }
  committed: { metadataLoad: { field: committed } }
`;

function issuesOf(text: string, set?: string[]): ScenarioIssue[] {
  try {
    loadScenarioText(text, 'quorum.yaml', set ? { set } : {});
  } catch (e) {
    if (e instanceof ScenarioError) return [...e.issues];
    throw e;
  }
  throw new Error('expected the scenario to be invalid');
}

describe('cluster.controllers and the quorum configs', () => {
  it('map to the cluster options with the model types (a --set string becomes a boolean)', () => {
    const loaded = loadScenarioText(QUORUM, 'quorum.yaml', {
      set: ['cluster.configs.kafkasim.raft.flush.enable=false'],
    });
    const options = clusterOptionsOf(loaded.spec, 1);
    expect(options.controllers).toBe(3);
    expect(options.metadataLoad).toEqual({ recordsPerSec: 20 });
    expect(options.quorumConfig).toEqual({
      'kafkasim.raft.flush.enable': false,
      'controller.quorum.election.timeout.ms': 500,
    });
    // Quorum keys are not broker server.properties.
    expect(options.serverProperties?.['controller.quorum.election.timeout.ms']).toBeUndefined();
  });

  it('rejects quorum keys with a single controller, saying why, at the key', () => {
    const issues = issuesOf(QUORUM.replace('  controllers: 3\n', ''));
    const issue = issues.find((i) => i.path === 'cluster.configs["kafkasim.raft.flush.enable"]')!;
    expect(issue).toMatchObject({ line: 6 });
    expect(issue.message).toMatch(
      /needs cluster.controllers >= 2: a single controller keeps a local metadata log/,
    );
  });

  it('rejects a quorum value of the wrong type, and the voters (derived from controllers)', () => {
    const typed = issuesOf(QUORUM.replace('election.timeout.ms: 500', 'election.timeout.ms: soon'));
    expect(typed.map((i) => i.path)).toEqual(['cluster.configs["controller.quorum.election.timeout.ms"]']);
    const voters = issuesOf(
      QUORUM.replace('  configs:\n', "  configs:\n    controller.quorum.voters: '1@a:1'\n"),
    );
    expect(voters.map((i) => [i.path, i.message])).toEqual([
      [
        'cluster.configs["controller.quorum.voters"]',
        'controller.quorum.voters is derived from cluster.controllers (voters 3000, 3001, 3002); do not set it',
      ],
    ]);
  });
});

describe('controller steps', () => {
  it('an unknown controller id is an error with file:line', () => {
    const issues = issuesOf(QUORUM.replace('crashController: active', 'crashController: 3003'));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ source: 'quorum.yaml', line: 12, path: 'timeline.0.crashController' });
    expect(issues[0]!.message).toBe(
      "unknown controller 3003; the cluster's controllers are 3000, 3001, 3002 (cluster.controllers: 3)",
    );
  });

  it('controllerOf must name an earlier controller step; a delayed step checks its selector too', () => {
    const bad = QUORUM.replace('controllerOf: first', 'controllerOf: elected').replace(
      'crashController: active',
      'crashController: { controller: 3009, delay: 10ms }',
    );
    const issues = issuesOf(bad);
    expect(issues.map((i) => [i.path, i.message])).toEqual([
      [
        'timeline.0.crashController.controller',
        "unknown controller 3009; the cluster's controllers are 3000, 3001, 3002 (cluster.controllers: 3)",
      ],
      [
        'timeline.2.restartController.controllerOf',
        "step 'elected' does not act on a controller (crashController or restartController)",
      ],
    ]);
  });

  it('a controller network id is a node for network faults; an unknown one is an error', () => {
    const withIsolate = (node: string) =>
      QUORUM.replace('  - run: 3s\n', `  - run: 3s\n  - isolate: ${node}\n`);
    expect(() => loadScenarioText(withIsolate('controller-3002'), 'quorum.yaml')).not.toThrow();
    const issues = issuesOf(withIsolate('controller-3007'));
    expect(issues.map((i) => i.message)).toEqual([
      "unknown controller 3007; the cluster's controllers are 3000, 3001, 3002 (cluster.controllers: 3)",
    ]);
  });

  it('`active` crashes the Raft leader, controllerOf restarts the same one, and the run records it', () => {
    const r = runScenario(loadScenarioText(QUORUM, 'quorum.yaml'));
    expect(r.expectations.filter((e) => !e.passed)).toEqual([]);
    const crash = r.steps[0]!;
    const restart = r.steps[2]!;
    expect(crash.controller).toBeGreaterThanOrEqual(3000);
    expect(restart.controller).toBe(crash.controller);
    expect(r.metrics.changes).toBe(1);
    expect(r.metrics.committed).toBeGreaterThan(50);
  });

  it('a delayed crash lands while the next step runs', () => {
    const text = QUORUM.replace(
      '    crashController: active\n',
      '    crashController: { controller: active, delay: 10ms }\n  - createTopic: { name: t, partitions: 4, replicationFactor: 3 }\n',
    )
      .replace('restartController: { controllerOf: first }', 'restartController: { controllerOf: first }')
      .replace(
        '  - name: one failover\n    quorum: { leaderChanges: 1 }\n',
        '  - name: t\n    partitionCount: { topic: t, count: 4 }\n',
      );
    const r = runScenario(loadScenarioText(text, 'quorum.yaml'));
    expect(r.expectations.filter((e) => !e.passed)).toEqual([]);
    // The crash step ended at once; the createTopic step spanned the failover (it waited for a new leader).
    expect(r.steps[0]!.end).toBe(r.steps[0]!.start);
    expect(r.steps[1]!.end! - r.steps[1]!.start!).toBeGreaterThan(1000);
    expect(r.steps[0]!.controller).toBeDefined();
  });
});

describe('conditions that need their feature', () => {
  it('metadataLoad without cluster.metadataLoad is an error', () => {
    const issues = issuesOf(QUORUM.replace('  metadataLoad: { rate: 20 }\n', ''));
    expect(issues.map((i) => [i.path, i.message])).toEqual([
      [
        'expectations.1.metadataLoad',
        'needs a metadata append load: set cluster.metadataLoad: {rate: <records/s>}',
      ],
      [
        'metrics.committed.metadataLoad',
        'needs a metadata append load: set cluster.metadataLoad: {rate: <records/s>}',
      ],
    ]);
  });
});

describe('kraft-flush.yaml with the flush guarantees off', () => {
  it('stops on MonotonicHighWatermark, naming the seed and virtual time, with a hint that flush is off', () => {
    const r = runScenario(`${SCENARIOS_DIR}kraft-flush.yaml`, {
      set: ['cluster.configs.kafkasim.raft.flush.enable=false'],
    });
    expect(r.passed).toBe(false);
    const invariants = r.expectations.find((e) => e.expected === 'no invariant violated')!;
    expect(invariants.passed).toBe(false);
    expect(invariants.actual).toMatch(
      /^invariant MonotonicHighWatermark violated: the high watermark went back from \d+ to \d+ \(leader 300\d, epoch \d+\) \(seed 1, virtual time [\d.]+ms, event #\d+\); replay with seed 1\. Hint: kafkasim\.raft\.flush\.enable is false/,
    );
    expect(r.error).toContain('invariant MonotonicHighWatermark violated');
    // Acknowledged appends were lost: the counter is not exact.
    const exact = r.expectations.find((e) => e.name.startsWith('the committed counter is exact'))!;
    expect(exact.passed).toBe(false);
  });
});

describe('the errorWindow metric (broker-heartbeat-loss.yaml)', () => {
  it('is the time from the first to the last produce error, after the fenced broker lost its partitions', () => {
    const r = runScenario(`${SCENARIOS_DIR}broker-heartbeat-loss.yaml`);
    expect(r.passed).toBe(true);
    const { 'app.errorWindowMs': window, 'app.firstErrorMs': first, 'app.lastErrorMs': last } = r.metrics;
    expect(r.metrics['app.produceErrors']).toBeGreaterThan(0);
    expect(window).toBeCloseTo(last! - first!, 6);
    expect(window).toBeGreaterThan(0);
    // The errors come after the heartbeats stopped (at 5s), once the fenced leader's requests fail.
    expect(first).toBeGreaterThan(5000);
  });

  it('maxAckGapMs covers the silent wait before the errors as well: the outage as the producer lived it', () => {
    const r = runScenario(`${SCENARIOS_DIR}broker-heartbeat-loss.yaml`);
    const { 'app.maxAckGapMs': gap, 'app.lastErrorMs': last, fencedAfterMs: fenced } = r.metrics;
    // A partition of the cut-off leader got no acknowledgement from about the fencing (5 s + ~8 s) until after the
    // last error: longer than the error window, which starts only when parked requests time out (30 s).
    expect(gap).toBeGreaterThan(r.metrics['app.errorWindowMs']!);
    expect(gap).toBeGreaterThan(last! - (5000 + fenced!) - 1000);
    // Without the fault no partition waits long: acknowledgements come every few milliseconds.
    const calm = runScenario(`${SCENARIOS_DIR}broker-heartbeat-loss.yaml`, {
      // The same cut, from a client that never talks to the controller: no broker is fenced (the run's waits time out).
      set: ['timeline.0.dropOutbound.from=app'],
    });
    expect(calm.metrics['app.maxAckGapMs']).toBeLessThan(1000);
  });
});

describe('metadataConsistent under a steady metadata load', () => {
  // 50 appends/s and an fsync of 3 ms: a follower learns of a commit only from its next Fetch answer, so every
  // follower is one commit behind the active controller for most of each batch interval (Kafka before 4.1).
  const LOADED = `name: consistent-under-load
cluster:
  brokers: 2
  controllers: 3
  metadataLoad: { rate: 50 }
  configs:
    kafkasim.raft.fsync.ms: 3
timeline:
  - run: 2s
  - label: converged
    waitUntil:
      condition: { metadataConsistent: true }
      timeout: 2s
expectations:
  - name: consistent
    metadataConsistent: true
`;
  const replay = (seed: number) =>
    `seed ${seed}; replay: runScenario(loadScenarioText(LOADED, 'consistent-under-load.yaml'), { seed: ${seed} }) in test/scenario/quorum.test.ts, or save LOADED as a file and \`kafkasim run <file> --seed ${seed}\``;

  it('holds at once on every seed: followers one Fetch answer behind are consistent', () => {
    for (const seed of [1, 2, 3]) {
      const r = runScenario(loadScenarioText(LOADED, 'consistent-under-load.yaml'), { seed });
      expect(r.error, replay(seed)).toBeUndefined();
      expect(r.passed, replay(seed)).toBe(true);
      // The wait ends within a batch interval, not at its timeout.
      const wait = r.steps.find((s) => s.label === 'converged')!;
      expect(wait.end! - wait.start!, replay(seed)).toBeLessThan(100);
    }
  });

  it('fails for a node that stopped following: an isolated broker, once the fetch wait has passed', () => {
    const text = LOADED.replace('  - run: 2s\n', '  - run: 2s\n  - isolate: 1\n  - run: 1s\n').replace(
      'timeout: 2s',
      'timeout: 2s\n      onTimeout: continue',
    );
    const r = runScenario(loadScenarioText(text, 'isolated.yaml'));
    const e = r.expectations.find((x) => x.name === 'consistent')!;
    expect(e.passed).toBe(false);
    expect(Object.keys((e.actual as { differing: Record<string, number> }).differing)).toEqual(['broker-1']);
  });
});
