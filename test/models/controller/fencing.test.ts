import { describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

/** A topic whose partitions have the given replica lists. */
function topicWith(h: Harness, name: string, assignments: number[][]): void {
  const r = h.call({
    type: 'CreateTopics',
    topics: [{ name, numPartitions: -1, replicationFactor: -1, assignments }],
  });
  expect(r.topics[0]!.errorCode).toBe(0);
}

describe('fencing after the session timeout', () => {
  it('fences a silent broker only once broker.session.timeout.ms has passed since its last heartbeat', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    topicWith(h, 't', [
      [0, 1, 2],
      [1, 2, 0],
    ]);
    const b0 = h.broker(0);
    // Crash right after a heartbeat was answered, so the deadline is known exactly.
    const count = b0.heartbeatResponses.length;
    h.runUntil(() => b0.heartbeatResponses.length > count, 'next heartbeat');
    b0.crash();
    const lastHeartbeatAt = h.sim.now - 1; // the controller saw it one network hop before the answer came
    h.sim.runFor(9000 - 2);
    expect(h.isUnfenced(0)).toBe(true);
    const fencedAt = h.runUntil(() => !h.isUnfenced(0), 'fenced', '1s');
    // Fenced at the expiry, plus the 1 ms commit delay.
    expect(fencedAt).toBe(lastHeartbeatAt + 9000 + 1);
    const fence = h.eventsOf('controller.fence');
    expect(fence).toHaveLength(1);
    expect(fence[0]).toMatchObject({ brokerId: 0, reason: 'session-timeout' });
    expect(h.eventsOf('controller.session-expired')[0]).toMatchObject({
      brokerId: 0,
      sessionTimeoutMs: 9000,
    });
  });

  it('re-elects leaders from the ISR and shrinks the ISR of every partition of the fenced broker', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    topicWith(h, 't', [
      [0, 1, 2],
      [1, 0, 2],
      [2, 1, 0],
    ]);
    const before = [0, 1, 2].map((p) => h.partition('t', p));
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    const p0 = h.partition('t', 0);
    expect(p0.leader).toBe(1);
    expect(p0.isr).toEqual([1, 2]);
    expect(p0.leaderEpoch).toBe(before[0]!.leaderEpoch + 1);
    expect(p0.partitionEpoch).toBe(before[0]!.partitionEpoch + 1);
    // Partition 1 keeps its leader; only the ISR shrinks, which does not bump the leader epoch.
    const p1 = h.partition('t', 1);
    expect(p1.leader).toBe(1);
    expect(p1.isr).toEqual([1, 2]);
    expect(p1.leaderEpoch).toBe(before[1]!.leaderEpoch);
    expect(h.partition('t', 2).isr).toEqual([2, 1]);
    const elect = h.eventsOf('controller.elect');
    expect(elect).toHaveLength(1);
    expect(elect[0]).toMatchObject({
      topic: 't',
      partition: 0,
      previousLeader: 0,
      leader: 1,
      previousIsr: [0, 1, 2],
      isr: [1, 2],
      reason: 'broker-fenced:session-timeout',
      unclean: false,
    });
    expect(h.eventsOf('controller.isr').map((e) => e.partition)).toEqual([1, 2]);
  });

  it('leaves a partition without a leader when no ISR member is alive, keeping the last ISR member', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    topicWith(h, 't', [[0, 1]]);
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced 0', '30s');
    expect(h.partition('t', 0)).toMatchObject({ leader: 1, isr: [1] });
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced 1', '30s');
    const p = h.partition('t', 0);
    expect(p.leader).toBe(-1);
    expect(p.isr).toEqual([1]);
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({
      partition: 0,
      previousLeader: 1,
      leader: -1,
    });
  });

  it('elects the last ISR member again when it comes back, but not a replica outside the ISR', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    topicWith(h, 't', [[0, 1]]);
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced 0', '30s');
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced 1', '30s');
    // Broker 0 returns first: it is a replica but not in the ISR, so without unclean election it may not lead.
    h.broker(0).start();
    h.runUntil(() => h.isUnfenced(0), 'unfenced 0', '60s');
    expect(h.partition('t', 0).leader).toBe(-1);
    h.broker(1).start();
    h.runUntil(() => h.isUnfenced(1), 'unfenced 1', '60s');
    expect(h.partition('t', 0)).toMatchObject({ leader: 1, isr: [1] });
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({ leader: 1, reason: 'broker-unfenced' });
  });

  it('elects a replica outside the ISR when unclean leader election is enabled, making it the whole ISR', () => {
    const h = new Harness({ brokers: [0, 1, 2], config: { 'unclean.leader.election.enable': true } }).start();
    topicWith(h, 't', [[0, 1]]);
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced 0', '30s');
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced 1', '30s');
    expect(h.partition('t', 0).leader).toBe(-1);
    h.broker(0).start();
    h.runUntil(() => h.partition('t', 0).leader === 0, 'unclean election', '60s');
    expect(h.partition('t', 0).isr).toEqual([0]);
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({ leader: 0, unclean: true });
  });

  it('fences brokers that stop heartbeating while still running', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    h.broker(1).silent = true;
    h.runUntil(() => !h.isUnfenced(1), 'fenced', '15s');
    expect(h.isUnfenced(0)).toBe(true);
    h.broker(1).silent = false;
    h.runUntil(() => h.isUnfenced(1), 'unfenced again', '15s');
  });
});
