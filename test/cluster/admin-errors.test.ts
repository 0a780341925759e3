// Admin error paths through the whole stack (admin client -> network -> controller -> response): each returns
// Kafka's code and message, and createTopic raises the KafkaError a Java admin client would.

import { describe, expect, it } from 'vitest';
import { Errors, KafkaError } from '../../models/protocol/index.ts';
import { createCluster, type NewTopic } from '../../src/cluster/index.ts';

describe('admin errors, end to end', () => {
  const c = createCluster({ seed: 1, brokers: 3 });
  c.admin.createTopic({ name: 'exists', partitions: 2, replicationFactor: 2 });

  const cases: [NewTopic, keyof typeof Errors, string][] = [
    [{ name: 'exists', partitions: 1 }, 'TOPIC_ALREADY_EXISTS', "Topic 'exists' already exists."],
    [
      { name: 'zero', partitions: 0 },
      'INVALID_PARTITIONS',
      'Number of partitions was set to an invalid non-positive value.',
    ],
    [
      { name: 'rf0', partitions: 1, replicationFactor: 0 },
      'INVALID_REPLICATION_FACTOR',
      'Replication factor must be larger than 0, or -1 to use the default value.',
    ],
    [
      { name: 'rf4', partitions: 1, replicationFactor: 4 },
      'INVALID_REPLICATION_FACTOR',
      'Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
    ],
    [
      { name: 'nobroker', assignments: [[9]] },
      'INVALID_REPLICA_ASSIGNMENT',
      'The manual partition assignment includes broker 9, but no such broker is registered.',
    ],
    [
      { name: 'cfg', partitions: 1, configs: { 'no.such.config': '1' } },
      'INVALID_CONFIG',
      'Unknown topic config name: no.such.config',
    ],
  ];
  it.each(cases)('createTopic %j -> %s', (topic, name, message) => {
    const [r] = c.admin.createTopics([topic]);
    expect(r).toMatchObject({ errorCode: Errors[name].code, errorMessage: message });
    let thrown: unknown;
    try {
      c.admin.createTopic(topic);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(KafkaError);
    expect((thrown as KafkaError).code).toBe(Errors[name].code);
    expect((thrown as KafkaError).message).toBe(message);
  });

  it('createPartitions: not an increase, unknown topic', () => {
    expect(c.admin.createPartitions('exists', 1)).toMatchObject({
      errorCode: Errors.INVALID_PARTITIONS.code,
      errorMessage: 'The topic exists currently has 2 partition(s); 1 would not be an increase.',
    });
    expect(c.admin.createPartitions('exists', 2)).toMatchObject({
      errorCode: Errors.INVALID_PARTITIONS.code,
      errorMessage: 'Topic already has 2 partition(s).',
    });
    expect(c.admin.createPartitions('missing', 4).errorCode).toBe(Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
  });

  it('deleteTopics and reassignments on unknown things', () => {
    expect(c.admin.deleteTopics(['missing'])[0]!.errorCode).toBe(Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
    const r = c.admin.alterPartitionReassignments([
      { topic: 'missing', partition: 0, replicas: [0] },
      { topic: 'exists', partition: 0, replicas: [0, 0] },
      { topic: 'exists', partition: 1, replicas: null },
    ]);
    expect(r.partitions.map((p) => p.errorCode)).toEqual([
      Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
      Errors.INVALID_REPLICA_ASSIGNMENT.code,
      Errors.NO_REASSIGNMENT_IN_PROGRESS.code,
    ]);
  });
});
