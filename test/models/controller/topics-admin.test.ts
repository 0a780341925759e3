import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

const error = (name: keyof typeof Errors, message?: string) => ({
  errorCode: Errors[name].code,
  errorMessage: message ?? Errors[name].message,
});

describe('DeleteTopics', () => {
  it('removes existing topics and their configs, and reports unknown and duplicate names', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    h.createTopic('a', 2, 2, { 'retention.ms': '5' });
    h.createTopic('b', 1, 1);
    const r = h.call({ type: 'DeleteTopics', topics: ['a', 'nope', 'b', 'b'] });
    expect(r.topics).toEqual([
      { name: 'a', errorCode: 0 },
      { name: 'nope', ...error('UNKNOWN_TOPIC_OR_PARTITION') },
      { name: 'b', ...error('INVALID_REQUEST', 'Duplicate topic name.') },
      { name: 'b', ...error('INVALID_REQUEST', 'Duplicate topic name.') },
    ]);
    expect(Object.keys(h.image.topics)).toEqual(['b']);
    expect(h.image.configs.topic.a).toBeUndefined();
    expect(h.eventsOf('controller.delete-topics')[0]).toMatchObject({ topic: 'a', partitions: 2 });
  });

  it('lets a deleted name be created again with a new id', () => {
    const h = new Harness({ brokers: [0] }).start();
    const first = h.createTopic('again', 1, 1).topicId;
    h.call({ type: 'DeleteTopics', topics: ['again'] });
    const second = h.createTopic('again', 1, 1).topicId;
    expect(second).not.toBe(first);
  });
});

describe('CreatePartitions', () => {
  const setup = () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    h.createTopic('t', 3, 2);
    return h;
  };
  const grow = (h: Harness, count: number, assignments?: number[][], name = 't') =>
    h.call({
      type: 'CreatePartitions',
      topics: [{ name, count, ...(assignments ? { assignments } : {}) }],
    }).topics[0]!;

  it('rejects counts that are not an increase, with Kafka messages', () => {
    const h = setup();
    expect(grow(h, 3)).toMatchObject(error('INVALID_PARTITIONS', 'Topic already has 3 partition(s).'));
    expect(grow(h, 2)).toMatchObject(
      error('INVALID_PARTITIONS', 'The topic t currently has 3 partition(s); 2 would not be an increase.'),
    );
    expect(grow(h, 5, [], 'missing')).toMatchObject(error('UNKNOWN_TOPIC_OR_PARTITION'));
  });

  it('validates explicit assignments', () => {
    const h = setup();
    expect(grow(h, 5, [[0, 1]])).toMatchObject(
      error(
        'INVALID_REPLICA_ASSIGNMENT',
        'Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.',
      ),
    );
    expect(grow(h, 4, [[0]])).toMatchObject(
      error(
        'INVALID_REPLICA_ASSIGNMENT',
        'The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).',
      ),
    );
    expect(grow(h, 4, [[0, 7]])).toMatchObject(
      error(
        'INVALID_REPLICA_ASSIGNMENT',
        'The manual partition assignment includes broker 7, but no such broker is registered.',
      ),
    );
    expect(h.image.topics.t!.partitions).toHaveLength(3);
  });

  it('adds placed partitions with the topic replication factor, or the given assignment', () => {
    const h = setup();
    expect(grow(h, 5)).toEqual({ name: 't', errorCode: 0 });
    const parts = h.image.topics.t!.partitions;
    expect(parts).toHaveLength(5);
    for (const p of parts.slice(3)) {
      expect(p.replicas).toHaveLength(2);
      expect(p.leader).toBe(p.replicas[0]);
    }
    expect(grow(h, 6, [[2, 1]])).toEqual({ name: 't', errorCode: 0 });
    expect(h.partition('t', 5)).toMatchObject({ replicas: [2, 1], isr: [2, 1], leader: 2 });
  });

  it('passes the placer message through without a prefix', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    h.call({
      type: 'CreateTopics',
      topics: [{ name: 'w', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1]] }],
    });
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced', '30s');
    // Broker 1 is still registered (fenced), so two brokers are usable: placement works and 1 stays out of the ISR.
    expect(grow(h, 2, undefined, 'w').errorCode).toBe(0);
    expect(h.partition('w', 1).isr).toEqual([0]);
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    // CreateTopics would say "Unable to replicate the partition 2 time(s): ..."; CreatePartitions does not.
    expect(grow(h, 3, undefined, 'w')).toMatchObject(
      error('INVALID_REPLICATION_FACTOR', 'All brokers are currently fenced.'),
    );
  });

  it('validateOnly writes nothing', () => {
    const h = setup();
    const r = h.call({ type: 'CreatePartitions', topics: [{ name: 't', count: 9 }], validateOnly: true });
    expect(r.topics[0]!.errorCode).toBe(0);
    expect(h.image.topics.t!.partitions).toHaveLength(3);
  });
});
