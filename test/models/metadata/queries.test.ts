import { describe, expect, it } from 'vitest';
import {
  activeBrokerIds,
  allPartitions,
  broker,
  brokerConfig,
  emptyImage,
  isActiveBroker,
  liveBrokerIds,
  type MetadataImage,
  partition,
  partitionCountsByBroker,
  partitionsLedBy,
  partitionsWithReplicaOn,
  reassigningPartitions,
  registeredBrokerIds,
  replay,
  topicById,
  topicByName,
  topicConfig,
  topicNames,
  unavailablePartitions,
  underReplicatedPartitions,
} from '../../../models/metadata/index.ts';
import { entries, partitionRecord, register, topic } from './fixtures.ts';

const A = 'AAAAAAAAQACAAAAAAAAAAQ';
const B = 'AAAAAAAAQACAAAAAAAAAAg';

/**
 * Brokers 10 (unfenced), 2 (unfenced, in controlled shutdown), 5 (fenced); topic 'b' leaderless on 2,
 * topic 'a' with three partitions, one reassigning and one under-replicated.
 */
function image(): MetadataImage {
  return replay(
    emptyImage(),
    entries(
      0,
      register(10),
      register(2),
      register(5),
      { type: 'BrokerRegistrationChangeRecord', brokerId: 10, brokerEpoch: 0, fenced: -1 },
      {
        type: 'BrokerRegistrationChangeRecord',
        brokerId: 2,
        brokerEpoch: 1,
        fenced: -1,
        inControlledShutdown: 1,
      },
      topic('b', B),
      partitionRecord(B, 0, [2], { leader: -1, isr: [2] }),
      topic('a', A),
      partitionRecord(A, 0, [10, 2]),
      partitionRecord(A, 1, [2, 10, 5], { isr: [2, 10], addingReplicas: [5] }),
      partitionRecord(A, 2, [5, 10], { leader: 5, isr: [5] }),
      { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 'a', name: 'retention.ms', value: '1' },
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'x', value: 'default' },
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'y', value: 'default' },
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '10', name: 'x', value: 'own' },
    ),
  );
}

const refs = (ps: { topic: string; partition: number }[]) => ps.map((p) => `${p.topic}-${p.partition}`);

describe('metadata queries', () => {
  it('look topics up by name and id, and list names sorted', () => {
    const img = image();
    expect(topicByName(img, 'a')!.topicId).toBe(A);
    expect(topicById(img, B)!.name).toBe('b');
    expect(topicByName(img, 'toString')).toBeUndefined();
    expect(topicById(img, 'nope')).toBeUndefined();
    expect(topicNames(img)).toEqual(['a', 'b']);
    expect(partition(img, 'a', 2)!.leader).toBe(5);
    expect(partition(img, 'a', 3)).toBeUndefined();
    expect(partition(img, 'zzz', 0)).toBeUndefined();
  });

  it('list brokers: registered, live (unfenced) and active (also not shutting down), sorted by id', () => {
    const img = image();
    expect(registeredBrokerIds(img)).toEqual([2, 5, 10]);
    expect(liveBrokerIds(img)).toEqual([2, 10]);
    expect(activeBrokerIds(img)).toEqual([10]);
    expect(isActiveBroker(img, 10)).toBe(true);
    expect(isActiveBroker(img, 2)).toBe(false);
    expect(isActiveBroker(img, 5)).toBe(false);
    expect(isActiveBroker(img, 99)).toBe(false);
    expect(broker(img, 5)!.fenced).toBe(true);
    expect(broker(img, 99)).toBeUndefined();
  });

  it('find partitions by leader, by replica, reassigning, under-replicated and unavailable', () => {
    const img = image();
    expect(refs(allPartitions(img))).toEqual(['a-0', 'a-1', 'a-2', 'b-0']);
    expect(allPartitions(img)[0]).toMatchObject({ topic: 'a', topicId: A, partition: 0 });
    expect(refs(partitionsLedBy(img, 10))).toEqual(['a-0']);
    expect(refs(partitionsLedBy(img, 2))).toEqual(['a-1']);
    expect(refs(partitionsWithReplicaOn(img, 5))).toEqual(['a-1', 'a-2']);
    expect(refs(reassigningPartitions(img))).toEqual(['a-1']);
    expect(refs(underReplicatedPartitions(img))).toEqual(['a-1', 'a-2']);
    // b-0 has no leader; a-2 is led by fenced broker 5.
    expect(refs(unavailablePartitions(img))).toEqual(['a-2', 'b-0']);
  });

  it('count replicas and leaders per broker, zero counts and ascending ids included', () => {
    const img = replay(image(), entries(15, register(7), partitionRecord(B, 1, [99], { isr: [99] })));
    expect([...partitionCountsByBroker(img).entries()]).toEqual([
      [2, { replicas: 3, leaders: 1 }],
      [5, { replicas: 2, leaders: 1 }],
      [7, { replicas: 0, leaders: 0 }],
      [10, { replicas: 3, leaders: 1 }],
      [99, { replicas: 1, leaders: 1 }],
    ]);
  });

  it('read dynamic configs: topic overrides, broker overrides over the cluster default', () => {
    const img = image();
    expect(topicConfig(img, 'a')).toEqual({ 'retention.ms': '1' });
    expect(topicConfig(img, 'b')).toEqual({});
    expect(brokerConfig(img, 10)).toEqual({ x: 'own', y: 'default' });
    expect(brokerConfig(img, 2)).toEqual({ x: 'default', y: 'default' });
    expect(brokerConfig(emptyImage(), 2)).toEqual({});
  });
});
