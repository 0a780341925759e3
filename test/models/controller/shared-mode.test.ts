import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import { Harness, type HarnessOptions } from './harness.ts';

function setup(options: HarnessOptions = {}) {
  const h = new Harness({ brokers: [0, 1, 2], storageMode: 'shared', ...options }).start();
  const move = (partition: number, replicas: number[], topic = 't') =>
    h.call({ type: 'AlterPartitionReassignments', partitions: [{ topic, partition, replicas }] })
      .partitions[0]!;
  const electFrom = (partition: number, topic = 't') =>
    h.call({ type: 'ElectLeaders', partitions: [{ topic, partition }] }).results[0]!;
  return { h, move, electFrom };
}

describe('shared storage mode: topics', () => {
  it('creates one replica per partition and forces min.insync.replicas to 1', () => {
    const { h } = setup({ config: { 'default.replication.factor': 3 } });
    const r = h.call({
      type: 'CreateTopics',
      topics: [
        { name: 't', numPartitions: 6, replicationFactor: -1, configs: { 'min.insync.replicas': '2' } },
      ],
    }).topics[0]!;
    expect(r).toMatchObject({ errorCode: 0, replicationFactor: 1, numPartitions: 6 });
    for (const p of h.image.topics.t!.partitions) {
      expect(p.replicas).toHaveLength(1);
      expect(p.isr).toEqual(p.replicas);
    }
    expect(new Set(h.image.topics.t!.partitions.map((p) => p.leader)).size).toBe(3);
    expect(h.image.configs.topic.t).toEqual({ 'min.insync.replicas': '1' });
  });

  it('rejects any other replication factor', () => {
    const { h } = setup();
    const message = (rf: number) =>
      `Replication factor must be 1 in shared storage mode: each partition has one replica and shared storage keeps the data durable (got ${rf}).`;
    expect(
      h.call({ type: 'CreateTopics', topics: [{ name: 'x', numPartitions: 1, replicationFactor: 3 }] })
        .topics[0],
    ).toMatchObject({ errorCode: Errors.INVALID_REPLICATION_FACTOR.code, errorMessage: message(3) });
    expect(
      h.call({
        type: 'CreateTopics',
        topics: [{ name: 'x', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1]] }],
      }).topics[0],
    ).toMatchObject({ errorCode: Errors.INVALID_REPLICATION_FACTOR.code, errorMessage: message(2) });
  });
});

describe('shared storage mode: moving a partition', () => {
  const start = () => {
    const s = setup();
    s.h.call({
      type: 'CreateTopics',
      topics: [{ name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0], [1]] }],
    });
    return s;
  };

  it('sets replicas and ISR to [dest] with no leader, then elects dest on the old leader’s ElectLeaders', () => {
    const { h, move, electFrom } = start();
    expect(move(0, [2])).toEqual({ topic: 't', partition: 0, errorCode: 0 });
    expect(h.partition('t', 0)).toMatchObject({ replicas: [2], isr: [2], leader: -1, leaderEpoch: 1 });
    expect(h.controller.pendingElections).toEqual([
      { topic: 't', topicId: h.topicId('t'), partition: 0, source: 0 },
    ]);
    expect(h.eventsOf('controller.reassign').at(-1)).toMatchObject({
      mode: 'shared',
      phase: 'await-election',
      from: [0],
      replicas: [2],
      leader: -1,
    });
    expect(electFrom(0)).toEqual({ topic: 't', partition: 0, errorCode: 0 });
    expect(h.partition('t', 0)).toMatchObject({ replicas: [2], isr: [2], leader: 2, leaderEpoch: 2 });
    expect(h.controller.pendingElections).toEqual([]);
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({
      previousLeader: -1,
      leader: 2,
      reason: 'ElectLeaders:PREFERRED',
    });
  });

  it('answers ElectLeaders for a partition that already has its leader with success and writes nothing', () => {
    const { h, electFrom } = start();
    const end = h.controller.metadataLog.endOffset;
    expect(electFrom(1)).toEqual({ topic: 't', partition: 1, errorCode: 0 });
    expect(h.controller.metadataLog.endOffset).toBe(end);
    expect(electFrom(3)).toMatchObject({
      errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
      errorMessage: 'No such partition as t-3',
    });
    expect(electFrom(0, 'zz')).toMatchObject({ errorMessage: 'No such topic as zz' });
  });

  it('elects at once when the broker that must close the partition is not active', () => {
    const { h, move } = start();
    const b0 = h.broker(0);
    b0.wantShutDown = true;
    h.runUntil(() => h.image.brokers[0]!.inControlledShutdown, 'controlled shutdown', '10s');
    // Broker 0 is shutting down: its partition went to another broker with leader -1, waiting for 0 to close it.
    const first = h.partition('t', 0);
    expect(first.leader).toBe(-1);
    const dest = first.replicas[0] === 1 ? 2 : 1;
    // Moving it again: the broker that must close it (0) is not active, so nobody would ask; elect now.
    move(0, [dest]);
    expect(h.partition('t', 0)).toMatchObject({ replicas: [dest], isr: [dest], leader: dest });
    expect(h.eventsOf('controller.reassign').at(-1)).toMatchObject({ phase: 'moved', leader: dest });
    expect(h.controller.pendingElections).toEqual([]);
  });

  it('rejects anything but one live replica', () => {
    const { move } = start();
    expect(move(0, [1, 2])).toMatchObject({
      errorCode: Errors.INVALID_REPLICA_ASSIGNMENT.code,
      errorMessage:
        'Shared storage mode supports exactly one replica per partition; partition t-0 was given replicas [1, 2].',
    });
    expect(move(0, [5])).toMatchObject({
      errorCode: Errors.INVALID_REPLICA_ASSIGNMENT.code,
      errorMessage: 'The manual partition assignment includes broker 5, but no such broker is registered.',
    });
  });

  it('treats a move to the current broker as a no-op', () => {
    const { h, move } = start();
    const end = h.controller.metadataLog.endOffset;
    expect(move(0, [0]).errorCode).toBe(0);
    expect(h.controller.metadataLog.endOffset).toBe(end);
    expect(h.partition('t', 0).leader).toBe(0);
  });

  it('elects on its own when no ElectLeaders arrives within the re-election timeout', () => {
    const { h, move } = start();
    move(0, [2]);
    const movedAt = h.eventsOf('controller.reassign').at(-1)!.t;
    const electedAt = h.runUntil(() => h.partition('t', 0).leader === 2, 'fallback election', '30s');
    // The timer fires 10 s after the move was decided; the election commits 1 ms later.
    expect(electedAt - movedAt).toBe(10_001);
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({ leader: 2, reason: 'reelect-timeout' });
  });

  it('elects the destination at once when the old leader is fenced before it asks', () => {
    const { h, move } = start();
    move(0, [2]);
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    expect(h.partition('t', 0)).toMatchObject({ replicas: [2], leader: 2 });
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({ leader: 2, reason: 'source-fenced' });
    expect(h.controller.pendingElections).toEqual([]);
  });
});

describe('shared storage mode: failover', () => {
  it('moves every partition of a fenced broker to active brokers, which lead at once', () => {
    const h = new Harness({ brokers: [0, 1, 2, 3], storageMode: 'shared' }).start();
    h.call({
      type: 'CreateTopics',
      topics: [
        { name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0], [0], [0], [0], [1], [2]] },
      ],
    });
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    const parts = h.image.topics.t!.partitions;
    for (const p of parts.slice(0, 4)) {
      expect(p.replicas).toHaveLength(1);
      expect(p.replicas[0]).not.toBe(0);
      expect(p.leader).toBe(p.replicas[0]);
      expect(p.isr).toEqual(p.replicas);
    }
    // Untouched partitions stay where they were.
    expect(parts[4]!.leader).toBe(1);
    expect(parts[5]!.leader).toBe(2);
    const failovers = h.eventsOf('controller.reassign').filter((e) => e.phase === 'failover');
    expect(failovers).toHaveLength(4);
  });

  it('prefers brokers in the fenced broker’s rack', () => {
    const h = new Harness({
      brokers: [
        { id: 0, rack: 'a' },
        { id: 1, rack: 'a' },
        { id: 2, rack: 'b' },
        { id: 3, rack: 'b' },
      ],
      storageMode: 'shared',
    }).start();
    h.call({
      type: 'CreateTopics',
      topics: [
        { name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0], [0], [0], [0], [0]] },
      ],
    });
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    expect(h.image.topics.t!.partitions.map((p) => p.leader)).toEqual([1, 1, 1, 1, 1]);
  });

  it('spreads a fenced broker’s partitions over the others, weighting by load', () => {
    const h = new Harness({ seed: 3, brokers: [0, 1, 2, 3], storageMode: 'shared' }).start();
    h.call({
      type: 'CreateTopics',
      topics: [
        {
          name: 't',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: Array.from({ length: 30 }, () => [0]),
        },
      ],
    });
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    const counts = new Map<number, number>();
    for (const p of h.image.topics.t!.partitions) counts.set(p.leader, (counts.get(p.leader) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([1, 2, 3]);
    // 1/(1+load) weights keep the spread tight: no broker gets more than half.
    for (const n of counts.values()) expect(n).toBeLessThanOrEqual(15);
  });

  it('leaves partitions leaderless when no broker is left, and gives them to the first broker back', () => {
    const h = new Harness({ brokers: [0, 1], storageMode: 'shared' }).start();
    h.call({
      type: 'CreateTopics',
      topics: [{ name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0], [1]] }],
    });
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced 1', '30s');
    expect(h.partition('t', 1)).toMatchObject({ replicas: [0], leader: 0 });
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced 0', '30s');
    expect(h.partition('t', 0)).toMatchObject({ replicas: [0], isr: [0], leader: -1 });
    expect(h.partition('t', 1)).toMatchObject({ replicas: [0], isr: [0], leader: -1 });
    h.broker(1).start();
    h.runUntil(() => h.isUnfenced(1), 'unfenced 1', '60s');
    expect(h.partition('t', 0)).toMatchObject({ replicas: [1], isr: [1], leader: 1 });
    expect(h.partition('t', 1)).toMatchObject({ replicas: [1], isr: [1], leader: 1 });
  });

  it('controlled shutdown moves led partitions with leader -1 and waits for the broker’s ElectLeaders', () => {
    const h = new Harness({ brokers: [0, 1, 2], storageMode: 'shared' }).start();
    h.call({
      type: 'CreateTopics',
      topics: [{ name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0], [0], [1]] }],
    });
    const b0 = h.broker(0);
    b0.wantShutDown = true;
    h.runUntil(() => h.image.brokers[0]!.inControlledShutdown, 'controlled shutdown', '10s');
    for (const p of [0, 1]) {
      const part = h.partition('t', p);
      expect(part.leader).toBe(-1);
      expect(part.replicas[0]).not.toBe(0);
    }
    // Still waiting for broker 0 to close its partitions: no permission to shut down yet.
    h.sim.runFor(4000);
    expect(b0.shouldShutDown).toBe(false);
    for (const p of [0, 1]) h.call({ type: 'ElectLeaders', partitions: [{ topic: 't', partition: p }] });
    h.runUntil(() => b0.shouldShutDown, 'shutdown granted', '10s');
    for (const p of [0, 1]) expect(h.partition('t', p).leader).toBe(h.partition('t', p).replicas[0]);
  });
});
