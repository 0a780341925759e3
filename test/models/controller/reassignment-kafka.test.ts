import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

function setup() {
  const h = new Harness({ brokers: [0, 1, 2, 3] }).start();
  h.call({
    type: 'CreateTopics',
    topics: [
      {
        name: 't',
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [
          [0, 1, 2],
          [1, 2, 3],
        ],
      },
    ],
  });
  const reassign = (partition: number, replicas: number[] | null, topic = 't') =>
    h.call({ type: 'AlterPartitionReassignments', partitions: [{ topic, partition, replicas }] })
      .partitions[0]!;
  /** The partition's leader reports a new ISR, as a broker does once followers catch up. */
  const alterIsr = (partition: number, newIsr: number[]) => {
    const p = h.partition('t', partition);
    return h.call({
      type: 'AlterPartition',
      brokerId: p.leader,
      brokerEpoch: h.broker(p.leader).brokerEpoch,
      topicId: h.topicId('t'),
      partition,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr,
    });
  };
  return { h, reassign, alterIsr };
}

const error = (name: keyof typeof Errors, message?: string) => ({
  errorCode: Errors[name].code,
  errorMessage: message ?? Errors[name].message,
});

describe('kafka-mode reassignment', () => {
  it('adds the new replica, waits for it in the ISR, then drops the removed one and moves the leader', () => {
    const { h, reassign, alterIsr } = setup();
    expect(reassign(0, [1, 2, 3])).toEqual({ topic: 't', partition: 0, errorCode: 0 });
    expect(h.partition('t', 0)).toMatchObject({
      replicas: [1, 2, 3, 0],
      addingReplicas: [3],
      removingReplicas: [0],
      isr: [0, 1, 2],
      leader: 0,
      leaderEpoch: 0,
    });
    const listed = h.call({ type: 'ListPartitionReassignments' });
    expect(listed).toEqual({
      errorCode: 0,
      reassignments: [
        { topic: 't', partition: 0, replicas: [1, 2, 3, 0], addingReplicas: [3], removingReplicas: [0] },
      ],
    });
    expect(h.eventsOf('controller.reassign').at(-1)).toMatchObject({
      phase: 'start',
      mode: 'kafka',
      target: [1, 2, 3],
    });
    const some = h.call({
      type: 'ListPartitionReassignments',
      partitions: [
        { topic: 't', partition: 1 },
        { topic: 't', partition: 0 },
        { topic: 'nope', partition: 0 },
      ],
    });
    expect(some.reassignments.map((r) => [r.topic, r.partition])).toEqual([['t', 0]]);

    // The leader (0) adds 3 to the ISR: the target is now in sync, so the reassignment completes, 0 leaves, and
    // leadership moves into the target with a leader-epoch bump. The requester learns it is no longer leader.
    const r = alterIsr(0, [0, 1, 2, 3]);
    expect(r).toMatchObject({ ...error('NEW_LEADER_ELECTED'), leader: 1, leaderEpoch: 1 });
    expect(h.partition('t', 0)).toMatchObject({
      replicas: [1, 2, 3],
      isr: [1, 2, 3],
      addingReplicas: [],
      removingReplicas: [],
      leader: 1,
      leaderEpoch: 1,
    });
    expect(h.call({ type: 'ListPartitionReassignments' }).reassignments).toEqual([]);
    expect(h.eventsOf('controller.reassign').at(-1)).toMatchObject({
      phase: 'complete',
      replicas: [1, 2, 3],
    });
  });

  it('keeps going while the ISR lacks a target replica', () => {
    const { h, reassign, alterIsr } = setup();
    reassign(1, [3, 0, 1]);
    expect(h.partition('t', 1)).toMatchObject({
      replicas: [3, 0, 1, 2],
      addingReplicas: [0],
      removingReplicas: [2],
    });
    // 2 drops out of the ISR, but 0 has not joined yet.
    expect(alterIsr(1, [1, 3]).errorCode).toBe(0);
    expect(h.partition('t', 1).addingReplicas).toEqual([0]);
    // Once 0 joins, the reassignment completes and the leader (1) is in the target, so it stays, with an epoch bump.
    const r = alterIsr(1, [1, 3, 0]);
    expect(r).toMatchObject({ errorCode: 0, leader: 1, leaderEpoch: 1, isr: [1, 3, 0] });
    expect(h.partition('t', 1)).toMatchObject({ replicas: [3, 0, 1], isr: [1, 3, 0], removingReplicas: [] });
  });

  it('completes at once when the target is already in sync, bumping the leader epoch for the removed replica', () => {
    const { h, reassign } = setup();
    reassign(0, [0, 1]);
    expect(h.partition('t', 0)).toMatchObject({
      replicas: [0, 1],
      isr: [0, 1],
      addingReplicas: [],
      removingReplicas: [],
      leader: 0,
      leaderEpoch: 1,
    });
  });

  it('treats a target equal to the current replicas as a no-op', () => {
    const { h, reassign } = setup();
    const end = h.controller.metadataLog.endOffset;
    expect(reassign(0, [0, 1, 2]).errorCode).toBe(0);
    expect(h.controller.metadataLog.endOffset).toBe(end);
    expect(h.eventsOf('controller.reassign').at(-1)).toMatchObject({ phase: 'noop' });
  });

  it('cancels a reassignment in progress, going back to the original replicas', () => {
    const { h, reassign } = setup();
    reassign(0, [1, 2, 3]);
    expect(reassign(0, null)).toEqual({ topic: 't', partition: 0, errorCode: 0 });
    // Kafka's revert drops the adding replicas from the in-progress list (target + removing), so the original
    // brokers come back but in that list's order.
    expect(h.partition('t', 0)).toMatchObject({
      replicas: [1, 2, 0],
      isr: [0, 1, 2],
      addingReplicas: [],
      removingReplicas: [],
      leader: 0,
    });
  });

  it('validates targets with Kafka errors and messages', () => {
    const { h, reassign } = setup();
    expect(reassign(0, [1], 'nope')).toMatchObject(
      error('UNKNOWN_TOPIC_OR_PARTITION', 'Unable to find a topic named nope.'),
    );
    expect(reassign(7, [1])).toMatchObject(
      error('UNKNOWN_TOPIC_OR_PARTITION', 'Unable to find partition t:7.'),
    );
    expect(reassign(0, [])).toMatchObject(
      error('INVALID_REPLICA_ASSIGNMENT', 'The manual partition assignment includes an empty replica list.'),
    );
    expect(reassign(0, [1, 1])).toMatchObject(
      error(
        'INVALID_REPLICA_ASSIGNMENT',
        'The manual partition assignment includes the broker 1 more than once.',
      ),
    );
    expect(reassign(0, [1, 8])).toMatchObject(
      error(
        'INVALID_REPLICA_ASSIGNMENT',
        'The manual partition assignment includes broker 8, but no such broker is registered.',
      ),
    );
    expect(reassign(0, null)).toMatchObject(error('NO_REASSIGNMENT_IN_PROGRESS'));
    expect(h.partition('t', 0).replicas).toEqual([0, 1, 2]);
  });

  it('answers every partition of a request, failing only the bad ones', () => {
    const { h } = setup();
    const r = h.call({
      type: 'AlterPartitionReassignments',
      partitions: [
        { topic: 't', partition: 0, replicas: [3, 1, 2] },
        { topic: 't', partition: 9, replicas: [1] },
      ],
    });
    expect(r.errorCode).toBe(0);
    expect(r.partitions.map((p) => p.errorCode)).toEqual([0, Errors.UNKNOWN_TOPIC_OR_PARTITION.code]);
    expect(h.partition('t', 0).addingReplicas).toEqual([3]);
  });
});
