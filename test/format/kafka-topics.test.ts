import { describe, expect, it } from 'vitest';
import {
  FormatInputError,
  formatCreatedTopic,
  formatTopicCommandError,
  formatTopicDescribe,
  formatTopicList,
  type TopicDescribeView,
} from '../../src/format/index.ts';

const TOPIC = 'continuous-self-balancing-topic';

// AutoMQ's self-balancing example, step 2 (A1: 8 partitions on brokers 1 and 2, RF 1), with the real tool's tabs.
const a1: TopicDescribeView = {
  name: TOPIC,
  topicId: 'DNZe6gBQTrCOEAruQ_y2tg',
  configs: [
    ['min.insync.replicas', '1'],
    ['segment.bytes', '1073741824'],
  ],
  partitions: Array.from({ length: 8 }, (_, p) => {
    const b = p % 2 === 0 ? 2 : 1;
    return { partition: p, leader: b, replicas: [b], isr: [b] };
  }),
};

describe('formatTopicDescribe', () => {
  it('prints the AutoMQ self-balancing example exactly, tab-separated', () => {
    const lines = formatTopicDescribe(a1).split('\n');
    expect(lines[0]).toBe(
      `Topic: ${TOPIC}\tTopicId: DNZe6gBQTrCOEAruQ_y2tg\tPartitionCount: 8\tReplicationFactor: 1\t` +
        'Configs: min.insync.replicas=1,segment.bytes=1073741824',
    );
    expect(lines[1]).toBe(`\tTopic: ${TOPIC}\tPartition: 0\tLeader: 2\tReplicas: 2\tIsr: 2`);
    expect(lines[2]).toBe(`\tTopic: ${TOPIC}\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1`);
    expect(lines).toHaveLength(10);
    expect(lines[9]).toBe('');
  });

  it('sorts partitions, prints none for no leader and omits a zero topic id', () => {
    const out = formatTopicDescribe({
      name: 't',
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      configs: {},
      partitions: [
        { partition: 1, leader: -1, replicas: [3, 1], isr: [] },
        { partition: 0, leader: null, replicas: [1, 2], isr: [1] },
      ],
    });
    expect(out).toBe(
      'Topic: t\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: \n' +
        '\tTopic: t\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: 1\n' +
        '\tTopic: t\tPartition: 1\tLeader: none\tReplicas: 3,1\tIsr: \n',
    );
  });

  it('shows Adding/Removing Replicas only for partitions being reassigned, and the target replication factor', () => {
    const out = formatTopicDescribe({
      name: 't',
      configs: { 'cleanup.policy': 'compact', 'retention.ms': '1000' },
      partitions: [
        {
          partition: 0,
          leader: 1,
          replicas: [1, 2, 3, 4],
          isr: [1, 2],
          addingReplicas: [3, 4],
          removingReplicas: [1, 2],
        },
        { partition: 1, leader: 2, replicas: [2, 1], isr: [2, 1], addingReplicas: [], removingReplicas: [] },
      ],
    });
    expect(out).toBe(
      'Topic: t\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: cleanup.policy=compact,retention.ms=1000\n' +
        '\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2,3,4\tIsr: 1,2\tAdding Replicas: 3,4\tRemoving Replicas: 1,2\n' +
        '\tTopic: t\tPartition: 1\tLeader: 2\tReplicas: 2,1\tIsr: 2,1\n',
    );
  });

  it('adds Elr/LastKnownElr (N/A when unknown) only when asked, and MarkedForDeletion on every line', () => {
    const out = formatTopicDescribe(
      {
        name: 'gone',
        topicId: 'x1',
        markedForDeletion: true,
        replicationFactor: 3,
        partitions: [
          { partition: 0, leader: 1, replicas: [1, 2, 3], isr: [1], elr: [2], lastKnownElr: [] },
          { partition: 1, leader: 2, replicas: [2, 3, 1], isr: [2] },
        ],
      },
      { elr: true },
    );
    expect(out).toBe(
      'Topic: gone\tTopicId: x1\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: \tMarkedForDeletion: true\n' +
        '\tTopic: gone\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1\tElr: 2\tLastKnownElr: \tMarkedForDeletion: true\n' +
        '\tTopic: gone\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2\tElr: N/A\tLastKnownElr: N/A\tMarkedForDeletion: true\n',
    );
  });

  it('rejects a topic without partitions', () => {
    expect(() => formatTopicDescribe({ name: 't', partitions: [] })).toThrow(FormatInputError);
  });
});

describe('other kafka-topics lines', () => {
  it('prints Created topic, with the collision warning for names with . or _', () => {
    expect(formatCreatedTopic(TOPIC)).toBe(`Created topic ${TOPIC}.\n`);
    expect(formatCreatedTopic('a.b')).toBe(
      "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. " +
        'To avoid issues it is best to use either, but not both.\nCreated topic a.b.\n',
    );
  });

  it('lists topics in Java String order, one per line', () => {
    expect(formatTopicList(['orders', '__consumer_offsets', 'Zeta', 'alpha'])).toBe(
      'Zeta\n__consumer_offsets\nalpha\norders\n',
    );
    expect(formatTopicList([])).toBe('\n');
  });

  it('prints command errors on one line', () => {
    expect(formatTopicCommandError("Topic 'x' does not exist as expected")).toBe(
      "Error while executing topic command : Topic 'x' does not exist as expected\n",
    );
  });
});
