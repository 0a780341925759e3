// The conditions added when the HTTP API's `until` language folded into the scenario's: underReplicated,
// leaderless, fencedBrokers and traced, in waitUntil steps and in expectations.
import { describe, expect, it } from 'vitest';
import { runScenario, type ScenarioResult } from '../../src/scenario/index.ts';

const byName = (r: ScenarioResult, name: string) => r.expectations.find((x) => x.name === name)!;

describe('cluster conditions', () => {
  it('a crashed broker: fenced after its session, its partitions under-replicated, none leaderless (RF 3)', () => {
    const r = runScenario({
      name: 'fenced',
      seed: 5,
      cluster: { brokers: 3 },
      topics: [{ name: 't', partitions: 3, replicationFactor: 3 }],
      timeline: [
        { waitUntil: { condition: { underReplicated: { count: 0 } }, timeout: '5s' } },
        { label: 'crash', crashBroker: 0 },
        {
          label: 'fenced',
          waitUntil: { condition: { traced: { kind: 'controller.session-expired' } }, timeout: '30s' },
        },
        { run: '1s' },
      ],
      expectations: [
        { name: 'one fenced', fencedBrokers: { count: 1 } },
        { name: 'shrunk', underReplicated: { topic: 't', count: 3 } },
        { name: 'led', leaderless: { topic: 't', count: 0 } },
        { name: 'seen since the start', traced: { kind: 'controller.session-expired' } },
        { name: 'never seen', traced: { kind: 'no-such-event' } },
        {
          name: 'fenced after the session timeout',
          timing: { from: 'crash', to: 'fenced', min: '8s', max: '12s' },
        },
      ],
    });
    expect(r.error).toBeUndefined();
    expect(byName(r, 'one fenced')).toMatchObject({ passed: true, actual: { count: 1, fenced: [0] } });
    expect(byName(r, 'shrunk')).toMatchObject({ passed: true, actual: 3 });
    expect(byName(r, 'led').passed).toBe(true);
    expect(byName(r, 'seen since the start')).toMatchObject({ passed: true, actual: 'seen' });
    expect(byName(r, 'never seen')).toMatchObject({ passed: false, actual: 'not seen' });
    expect(byName(r, 'fenced after the session timeout').passed).toBe(true);
  });

  it('leaderless counts partitions without a leader; a topic that does not exist fails it', () => {
    const r = runScenario({
      name: 'leaderless',
      seed: 5,
      cluster: { brokers: 2 },
      topics: [{ name: 't', assignments: [[0], [1]] }],
      timeline: [
        { crashBroker: 1 },
        // Fenced after broker.session.timeout.ms: its partition (RF 1) has no leader left.
        { waitUntil: { condition: { leaderless: { topic: 't', count: 1 } }, timeout: '20s' } },
        { deleteTopic: 't' },
        { run: '1s' },
      ],
      expectations: [{ name: 'gone', leaderless: { topic: 't', count: 0 } }],
    });
    expect(r.error).toBeUndefined();
    expect(byName(r, 'gone')).toMatchObject({ passed: false, actual: "no topic 't'" });
  });
});
