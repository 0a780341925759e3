import { describe, expect, it } from 'vitest';
import { type CreatableTopic, Errors } from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

function create(h: Harness, topic: Partial<CreatableTopic> & { name: string }, validateOnly?: boolean) {
  const r = h.call({
    type: 'CreateTopics',
    topics: [{ numPartitions: 1, replicationFactor: 1, ...topic }],
    ...(validateOnly ? { validateOnly } : {}),
  });
  return r.topics[0]!;
}

const error = (name: keyof typeof Errors, message: string) => ({
  errorCode: Errors[name].code,
  errorMessage: message,
});

describe('CreateTopics errors', () => {
  const h = new Harness({ brokers: [0, 1, 2] }).start();
  h.createTopic('existing', 1, 1);
  h.createTopic('a_b', 1, 1);

  it.each([
    ['', 'Topic name is invalid: the empty string is not allowed'],
    ['.', "Topic name is invalid: '.' is not allowed"],
    ['..', "Topic name is invalid: '..' is not allowed"],
    [
      'x'.repeat(250),
      `Topic name is invalid: the length of '${'x'.repeat(250)}' is longer than the max allowed length 249`,
    ],
    [
      'a b',
      "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
    ],
    ['a.b', "Topic 'a.b' collides with existing topic: a_b"],
  ])('rejects the name %j', (name, message) => {
    expect(create(h, { name })).toMatchObject(error('INVALID_TOPIC_EXCEPTION', message));
  });

  it('accepts a name of exactly 249 legal characters', () => {
    expect(create(h, { name: 'y'.repeat(249) }, true).errorCode).toBe(0);
  });

  it('rejects an existing topic', () => {
    expect(create(h, { name: 'existing' })).toMatchObject(
      error('TOPIC_ALREADY_EXISTS', "Topic 'existing' already exists."),
    );
  });

  it('rejects every copy of a name given twice', () => {
    const r = h.call({
      type: 'CreateTopics',
      topics: [
        { name: 'twice', numPartitions: 1, replicationFactor: 1 },
        { name: 'twice', numPartitions: 1, replicationFactor: 1 },
      ],
    });
    expect(r.topics).toHaveLength(2);
    for (const t of r.topics) expect(t).toMatchObject(error('INVALID_REQUEST', 'Duplicate topic name.'));
  });

  it.each([
    [0, 'Replication factor must be larger than 0, or -1 to use the default value.'],
    [-2, 'Replication factor must be larger than 0, or -1 to use the default value.'],
    [
      4,
      'Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
    ],
  ])('rejects replication factor %i', (replicationFactor, message) => {
    expect(create(h, { name: 'rf', replicationFactor })).toMatchObject(
      error('INVALID_REPLICATION_FACTOR', message),
    );
  });

  it.each([0, -3])('rejects %i partitions', (numPartitions) => {
    expect(create(h, { name: 'np', numPartitions })).toMatchObject(
      error('INVALID_PARTITIONS', 'Number of partitions was set to an invalid non-positive value.'),
    );
  });

  it.each([
    [
      { replicationFactor: 2, numPartitions: -1 },
      'INVALID_REQUEST',
      'A manual partition assignment was specified, but replication factor was not set to -1.',
    ],
    [
      { replicationFactor: -1, numPartitions: 2 },
      'INVALID_REQUEST',
      'A manual partition assignment was specified, but numPartitions was not set to -1.',
    ],
  ] as const)('rejects a manual assignment with %o', (counts, code, message) => {
    expect(create(h, { name: 'm', ...counts, assignments: [[0, 1]] })).toMatchObject(error(code, message));
  });

  it.each([
    [[[]], 'The manual partition assignment includes an empty replica list.'],
    [[[0, 9]], 'The manual partition assignment includes broker 9, but no such broker is registered.'],
    [[[1, 0, 1]], 'The manual partition assignment includes the broker 1 more than once.'],
    [
      [[0, 1], [2]],
      'The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).',
    ],
  ])('rejects the manual assignment %j', (assignments, message) => {
    expect(create(h, { name: 'm', numPartitions: -1, replicationFactor: -1, assignments })).toMatchObject(
      error('INVALID_REPLICA_ASSIGNMENT', message),
    );
  });

  it.each([
    [{ 'foo.bar': '1' }, 'Unknown topic config name: foo.bar'],
    [
      { 'retention.ms': 'soon' },
      'Invalid value soon for configuration retention.ms: Not a number of type LONG',
    ],
    [
      { 'min.insync.replicas': '0' },
      'Invalid value 0 for configuration min.insync.replicas: Value must be at least 1',
    ],
    [
      { 'cleanup.policy': 'delete,compactx' },
      'Invalid value compactx for configuration cleanup.policy: String must be one of: compact, delete',
    ],
    [
      { 'unclean.leader.election.enable': 'yes' },
      'Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false',
    ],
    [
      { 'segment.bytes': '3000000000' },
      'Invalid value 3000000000 for configuration segment.bytes: Not a number of type INT',
    ],
  ])('rejects the configs %o', (configs, message) => {
    expect(create(h, { name: 'c', configs })).toMatchObject(error('INVALID_CONFIG', message));
  });

  it('wrote nothing for all those failures', () => {
    expect(Object.keys(h.image.topics).sort()).toEqual(['a_b', 'existing']);
  });
});

describe('CreateTopics', () => {
  it('writes the topic, its configs and its partitions in one batch and answers when it commits', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    const endBefore = h.controller.metadataLog.endOffset;
    const pending = h.client.send({
      type: 'CreateTopics',
      topics: [
        { name: 'orders', numPartitions: 3, replicationFactor: 2, configs: { 'retention.ms': '1000' } },
      ],
    });
    h.runUntil(() => pending.done, 'answer');
    const result = pending.response.topics[0]!;
    expect(result).toMatchObject({ name: 'orders', errorCode: 0, numPartitions: 3, replicationFactor: 2 });
    expect(result.topicId).toBe(h.topicId('orders'));
    expect(result.configs['retention.ms']).toBe('1000');
    expect(result.configs['segment.bytes']).toBe('1073741824');
    const written = h.controller.metadataLog.readCommitted(endBefore).map((e) => e.record.type);
    expect(written).toEqual([
      'TopicRecord',
      'ConfigRecord',
      'PartitionRecord',
      'PartitionRecord',
      'PartitionRecord',
    ]);
    for (let p = 0; p < 3; p++) {
      const part = h.partition('orders', p);
      expect(part.replicas).toHaveLength(2);
      expect(part.isr).toEqual(part.replicas);
      expect(part.leader).toBe(part.replicas[0]);
      expect(part.leaderEpoch).toBe(0);
      expect(part.partitionEpoch).toBe(0);
    }
    expect(h.image.configs.topic.orders).toEqual({ 'retention.ms': '1000' });
  });

  it('validateOnly checks everything and writes nothing', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    const end = h.controller.metadataLog.endOffset;
    const r = create(h, { name: 'dry', numPartitions: 4, replicationFactor: 3 }, true);
    expect(r).toMatchObject({ errorCode: 0, topicId: null, numPartitions: 4, replicationFactor: 3 });
    expect(h.controller.metadataLog.endOffset).toBe(end);
    expect(h.image.topics.dry).toBeUndefined();
  });

  it('uses num.partitions and default.replication.factor for -1', () => {
    const h = new Harness({
      brokers: [0, 1, 2],
      config: { 'num.partitions': 5, 'default.replication.factor': 3 },
    }).start();
    expect(create(h, { name: 'd', numPartitions: -1, replicationFactor: -1 })).toMatchObject({
      numPartitions: 5,
      replicationFactor: 3,
    });
    expect(h.image.topics.d!.partitions).toHaveLength(5);
  });

  it('uses an explicit assignment verbatim, with the ISR limited to active brokers', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    const r = create(h, {
      name: 'x',
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [
        [2, 0],
        [1, 2],
        [0, 1],
      ],
    });
    expect(r).toMatchObject({ errorCode: 0, numPartitions: 3, replicationFactor: 2 });
    expect(h.image.topics.x!.partitions.map((p) => [p.replicas, p.leader])).toEqual([
      [[2, 0], 2],
      [[1, 2], 1],
      [[0, 1], 0],
    ]);
  });

  it('rejects a manual assignment naming a fenced broker', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    h.broker(2).crash();
    h.runUntil(() => !h.isUnfenced(2), 'fenced', '30s');
    expect(
      create(h, { name: 'f', numPartitions: -1, replicationFactor: -1, assignments: [[0, 2]] }),
    ).toMatchObject(
      error(
        'INVALID_REPLICA_ASSIGNMENT',
        'The manual partition assignment includes broker 2, but this broker is currently fenced.',
      ),
    );
  });

  it('places replicas on fenced brokers only as followers and leaves them out of the ISR', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    h.broker(2).crash();
    h.runUntil(() => !h.isUnfenced(2), 'fenced', '30s');
    create(h, { name: 'f', numPartitions: 6, replicationFactor: 3 });
    for (const p of h.image.topics.f!.partitions) {
      expect([...p.replicas].sort()).toEqual([0, 1, 2]);
      expect(p.leader).not.toBe(2);
      expect(p.isr).not.toContain(2);
      expect(p.isr).toEqual(p.replicas.filter((r) => r !== 2));
    }
  });

  it('says so when every broker is fenced', () => {
    const h = new Harness({ brokers: [0] }).start();
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    expect(create(h, { name: 'none' })).toMatchObject(
      error(
        'INVALID_REPLICATION_FACTOR',
        'Unable to replicate the partition 1 time(s): All brokers are currently fenced.',
      ),
    );
  });
});

describe('placement', () => {
  const assignment = (seed: number) => {
    const h = new Harness({ seed, brokers: [0, 1, 2] }).start();
    create(h, { name: 'p', numPartitions: 30, replicationFactor: 3 });
    return h.image.topics.p!.partitions.map((p) => [...p.replicas]);
  };

  it('spreads leaders and replicas evenly over the brokers', () => {
    const replicas = assignment(7);
    const leaders = new Map<number, number>();
    for (const r of replicas) {
      expect(new Set(r).size).toBe(3);
      leaders.set(r[0]!, (leaders.get(r[0]!) ?? 0) + 1);
    }
    expect([...leaders.entries()].sort()).toEqual([
      [0, 10],
      [1, 10],
      [2, 10],
    ]);
  });

  it('is deterministic per seed', () => {
    expect(assignment(7)).toEqual(assignment(7));
    const seeds = [1, 2, 3, 4, 5].map((s) => JSON.stringify(assignment(s)));
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });

  it('puts the replicas of a partition in different racks', () => {
    const h = new Harness({
      brokers: [0, 1, 2, 3, 4, 5].map((id) => ({ id, rack: `rack-${id % 3}` })),
    }).start();
    create(h, { name: 'r', numPartitions: 12, replicationFactor: 3 });
    const leaders = new Map<number, number>();
    for (const p of h.image.topics.r!.partitions) {
      expect(new Set(p.replicas.map((id) => id % 3)).size).toBe(3);
      leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
    }
    expect([...leaders.values()]).toEqual([2, 2, 2, 2, 2, 2]);
  });
});
