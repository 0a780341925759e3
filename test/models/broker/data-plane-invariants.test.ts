// The data-plane invariants are on in every cluster and are not vacuous: each catches the breakage it names, on
// the next event, with the seed to replay it.
import { describe, expect, it } from 'vitest';
import { DATA_PLANE_INVARIANTS, type Replica } from '../../../models/broker/index.ts';
import { InvariantViolation } from '../../../models/sim/index.ts';
import { type Cluster, createCluster } from '../../../src/cluster/index.ts';

/** RF 3, min.insync.replicas 2, an acks=all producer that has had 20 batches acknowledged on partition 0. */
function running(seed = 4): { c: Cluster; send: (n?: number) => void } {
  const c = createCluster({ seed, brokers: 3, storage: 'kafka' });
  c.admin.createTopic({
    name: 't',
    partitions: 1,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
  const p = c.producer('app', { config: { acks: 'all', 'linger.ms': 0 } });
  const send = (n = 1) => {
    for (let i = 0; i < n; i++) p.send({ topic: 't', partition: 0, valueBytes: 100 });
  };
  for (let i = 0; i < 20; i++) {
    send();
    c.runFor('20ms');
  }
  c.runUntil(() => p.recordsAcked === 20, { timeout: '5s', description: '20 records acknowledged' });
  c.runFor('200ms'); // the followers learn the final high watermark
  return { c, send };
}

function replicaOn(c: Cluster, role: 'leader' | 'follower'): { broker: number; replica: Replica } {
  for (const [id, b] of c.brokers) {
    const r = b.findReplica('t', 0);
    if (r?.role === role) return { broker: id, replica: r };
  }
  throw new Error(`no ${role}`);
}

/** Runs `poke` as an event of its own (the model's own events may repair what it broke later), then runs on. */
function violation(c: Cluster, poke: () => void): InvariantViolation {
  c.sim.schedule(0, poke, 'test.poke');
  try {
    c.runFor('1s');
  } catch (e) {
    expect(e).toBeInstanceOf(InvariantViolation);
    return e as InvariantViolation;
  }
  throw new Error('no violation');
}

describe('data-plane invariants', () => {
  it('are registered in every cluster, and hold through a run with acknowledged writes', () => {
    const { c } = running();
    expect(c.dataPlane).toBeDefined();
    const leader = replicaOn(c, 'leader').replica;
    expect(leader.log.highWatermark).toBe(20);
    expect(() => c.runFor('2s')).not.toThrow();
    const off = createCluster({ dataPlaneInvariants: false });
    expect(off.dataPlane).toBeUndefined();
    expect(DATA_PLANE_INVARIANTS).toHaveLength(6);
  });

  it('HighWatermarkWithinLog: a follower whose high watermark passes its log end', () => {
    const { c } = running();
    const { broker, replica } = replicaOn(c, 'follower');
    const v = violation(c, () => {
      replica.log.highWatermark = replica.log.logEndOffset + 3;
    });
    expect(v.invariant).toBe('HighWatermarkWithinLog');
    expect(v.detail).toBe(`broker ${broker} t-0 (follower): high watermark 23 above log end offset 20`);
    expect(v.message).toContain('replay with seed 4');
  });

  it('MonotonicLeaderHighWatermark: a leader whose high watermark goes back in its epoch', () => {
    const { c } = running();
    const { broker, replica } = replicaOn(c, 'leader');
    const v = violation(c, () => {
      replica.log.highWatermark = 15;
    });
    expect(v.invariant).toBe('MonotonicLeaderHighWatermark');
    expect(v.detail).toBe(
      `broker ${broker} leads t-0 in epoch ${replica.leaderEpoch}: its high watermark went back from 20 to 15`,
    );
  });

  it('IsrLogsAgree: an ISR member that lost committed batches', () => {
    const { c } = running();
    const leader = replicaOn(c, 'leader');
    const { broker, replica } = replicaOn(c, 'follower');
    const v = violation(c, () => replica.log.truncateTo(12));
    expect(v.invariant).toBe('IsrLogsAgree');
    expect(v.detail).toBe(
      `t-0: ISR member ${broker} disagrees with leader ${leader.broker} (epoch ${leader.replica.leaderEpoch}, high watermark 20): its log ends at 12`,
    );
  });

  it('IsrLogsAgree: an ISR member whose committed batch differs from the leader’s, at the same offsets', () => {
    const { c } = running();
    const { broker, replica } = replicaOn(c, 'follower');
    const log = replica.log;
    const original = log.allBatches().find((b) => b.baseOffset === 5)!;
    const rest = log.allBatches().filter((b) => b.baseOffset > 5);
    const v = violation(c, () => {
      // Within one event: the log end and high watermark are back where they were, the batches are the same
      // objects but for the forged one.
      log.truncateTo(5);
      log.appendAsFollower([{ ...original, origin: 'someone-else' }, ...rest]);
      log.highWatermark = 20;
    });
    expect(v.invariant).toBe('IsrLogsAgree');
    expect(v.detail).toContain(`ISR member ${broker} disagrees`);
    expect(v.detail).toContain('at offset 5 the leader has [5..5] (leader epoch');
    expect(v.detail).toContain('from app), the member [5..5]');
    expect(v.detail).toContain('from someone-else)');
  });

  it('IsrWithinReplicas: a leader whose ISR names a broker that is not a replica', () => {
    const { c, send } = running();
    const { broker, replica } = replicaOn(c, 'leader');
    const isr = [...replica.isr];
    const v = violation(c, () => {
      replica.isr = [...isr, 7];
      send();
    });
    expect(v.invariant).toBe('IsrWithinReplicas');
    expect(v.detail).toBe(
      `t-0 (leader ${broker}, epoch ${replica.leaderEpoch}): ISR [${[...isr, 7].join(', ')}] has 7, not a replica of [${replica.replicas.join(', ')}]`,
    );
  });

  it('IsrWithinReplicas: a leader missing from its own ISR', () => {
    const { c, send } = running();
    const { broker, replica } = replicaOn(c, 'leader');
    const v = violation(c, () => {
      replica.isr = replica.isr.filter((id) => id !== broker);
      send();
    });
    expect(v.invariant).toBe('IsrWithinReplicas');
    expect(v.detail).toMatch(new RegExp(`^broker ${broker} leads t-0 in epoch \\d+ but is not in its ISR`));
  });

  it('MonotonicLeaderEpoch: a replica whose leader epoch goes back', () => {
    const { c } = running();
    // A new leader (epoch 1), so that the epoch can go back to 0.
    c.crashBroker(replicaOn(c, 'leader').broker);
    c.runUntil(() => c.image.topics.t!.partitions[0]!.leaderEpoch === 1, { timeout: '30s' });
    c.runFor('1s');
    const { broker, replica } = replicaOn(c, 'follower');
    const epoch = replica.leaderEpoch;
    expect(epoch).toBe(1);
    // A replica tells its broker's watcher of every change to its epoch: seen after that event.
    c.sim.schedule(0, () => {
      replica.leaderEpoch = epoch - 1;
    });
    let v: InvariantViolation | undefined;
    try {
      c.admin.createTopic({ name: 'other', partitions: 1, replicationFactor: 3 });
      c.runFor('1s');
    } catch (e) {
      v = e as InvariantViolation;
    }
    expect(v).toBeInstanceOf(InvariantViolation);
    v = v!;
    expect(v.invariant).toBe('MonotonicLeaderEpoch');
    expect(v.detail).toBe(`broker ${broker} t-0: leader epoch went back from ${epoch} to ${epoch - 1}`);
  });

  it('AcknowledgedInIsr: an acknowledged batch missing from an ISR member (the others checks off)', () => {
    const { c } = running();
    c.dataPlane!.remove();
    c.dataPlane!.register({ names: ['AcknowledgedInIsr'] });
    const { broker, replica } = replicaOn(c, 'follower');
    const v = violation(c, () => replica.log.truncateTo(18));
    expect(v.invariant).toBe('AcknowledgedInIsr');
    expect(v.detail).toBe(
      `t-0: acknowledged batch [18..18] of app (its records 18..18) is not in the log of ISR member ${broker} (log end 18; at that offset: no batch)`,
    );
  });

  it('AcknowledgedInIsr: an acknowledgement the logs never had', () => {
    const { c } = running();
    const v = violation(c, () =>
      c.dataPlane!.acknowledged({
        topic: 't',
        partition: 0,
        baseOffset: 3,
        count: 1,
        origin: 'app',
        firstIndex: 9,
      }),
    );
    expect(v.invariant).toBe('AcknowledgedInIsr');
    expect(v.detail).toContain(
      'acknowledged batch [3..3] of app (its records 9..9) is not in the log of ISR member',
    );
    expect(v.detail).toContain('at that offset: [3..3] (leader epoch');
  });

  it('AcknowledgedInIsr: after an unclean election the partition is no longer held to it', () => {
    const { c } = running();
    c.dataPlane!.acknowledged({
      topic: 't',
      partition: 0,
      baseOffset: 3,
      count: 1,
      origin: 'app',
      firstIndex: 9,
    });
    c.sim.trace.emit('controller.elect', 'controller-3000', { topic: 't', partition: 0, unclean: true });
    expect(() => c.runFor('1s')).not.toThrow();
  });

  it('a deleted topic takes its acknowledged batches with it', () => {
    const { c } = running();
    c.admin.deleteTopics(['t']);
    expect(() => c.runFor('2s')).not.toThrow();
    expect(c.image.topics.t).toBeUndefined();
  });

  it('cost what changes, not what exists: an idle partition is never looked at again', () => {
    const c = createCluster({ seed: 9, brokers: 3, storage: 'kafka' });
    c.admin.createTopic({ name: 'many', partitions: 200, replicationFactor: 3 });
    c.admin.createTopic({ name: 't', partitions: 1, replicationFactor: 3 });
    c.runFor('5s');
    const idle = c.dataPlane!.looks.looked;
    const events = c.sim.eventCount;
    c.runFor('10s'); // follower fetches go on; nothing changes
    expect(c.sim.eventCount - events).toBeGreaterThan(50);
    expect(c.dataPlane!.looks.looked).toBe(idle);
    // One write to one partition: its three replicas are looked at, a few times each, not the 603 replicas.
    const p = c.producer('app', { config: { acks: 'all', 'linger.ms': 0 } });
    p.send({ topic: 't', partition: 0, valueBytes: 100 });
    c.runUntil(() => p.recordsAcked === 1, { timeout: '5s', description: 'acknowledged' });
    c.runFor('1s');
    const looked = c.dataPlane!.looks.looked - idle;
    expect(looked).toBeGreaterThan(0);
    expect(looked).toBeLessThan(30);
    // A metadata change (a new topic of one partition) looks at that partition's replicas only.
    const before = c.dataPlane!.looks.looked;
    c.admin.createTopic({ name: 'one', partitions: 1, replicationFactor: 3 });
    c.runFor('2s');
    expect(c.image.topics.one).toBeDefined();
    const created = c.dataPlane!.looks.looked - before;
    expect(created).toBeGreaterThan(0);
    expect(created).toBeLessThan(30);
  });
});
