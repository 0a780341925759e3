import { setAutoFreeze } from 'immer';
import { describe, expect, it } from 'vitest';
import {
  emptyImage,
  type MetadataImage,
  type MetadataRecord,
  MetadataReplayError,
  replay,
} from '../../../models/metadata/index.ts';
import { entries, isDeepFrozen, partitionRecord, register, topic } from './fixtures.ts';

const T1 = 'AAAAAAAAQACAAAAAAAAAAQ';
const T2 = 'AAAAAAAAQACAAAAAAAAAAg';

/** Brokers 1..3 registered (epochs 0..2) and unfenced, topic 'orders' with two partitions. */
function cluster(): MetadataImage {
  return replay(
    emptyImage(),
    entries(
      0,
      register(1),
      register(2),
      register(3),
      { type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: 0, fenced: -1 },
      { type: 'BrokerRegistrationChangeRecord', brokerId: 2, brokerEpoch: 1, fenced: -1 },
      { type: 'BrokerRegistrationChangeRecord', brokerId: 3, brokerEpoch: 2, fenced: -1 },
      topic('orders', T1),
      partitionRecord(T1, 0, [1, 2, 3]),
      partitionRecord(T1, 1, [2, 3, 1]),
    ),
  );
}

function apply(image: MetadataImage, ...records: MetadataRecord[]): MetadataImage {
  return replay(image, entries(image.offset + 1, ...records));
}

describe('replay: offsets', () => {
  it('starts from an empty, frozen image at offset -1', () => {
    const image = emptyImage();
    expect(image).toEqual({
      offset: -1,
      brokers: {},
      topics: {},
      topicNamesById: {},
      configs: { topic: {}, broker: {} },
      features: {},
    });
    expect(isDeepFrozen(image)).toBe(true);
  });

  it('sets offset to the last entry, allowing gaps left by Raft control records', () => {
    const image = replay(emptyImage(), [
      { offset: 3, record: { type: 'NoOpRecord' } },
      { offset: 7, record: { type: 'NoOpRecord' } },
    ]);
    expect(image.offset).toBe(7);
  });

  it('returns the same image for no entries', () => {
    const image = cluster();
    expect(replay(image, [])).toBe(image);
  });

  it('rejects offsets that do not increase or are not above the image offset', () => {
    const image = cluster();
    expect(() => replay(image, [{ offset: 8, record: { type: 'NoOpRecord' } }])).toThrow(
      /offset 8 \(NoOpRecord\) must be an integer above 8/,
    );
    expect(() =>
      replay(emptyImage(), [
        { offset: 0, record: { type: 'NoOpRecord' } },
        { offset: 0, record: { type: 'NoOpRecord' } },
      ]),
    ).toThrow(/offset 0 .* above 0/);
    expect(() => replay(emptyImage(), [{ offset: 1.5, record: { type: 'NoOpRecord' } }])).toThrow(
      /must be an integer/,
    );
  });

  it('produces a deeply frozen image and leaves the input untouched', () => {
    const before = cluster();
    const snapshot = structuredClone(before);
    const after = apply(before, { type: 'PartitionChangeRecord', topicId: T1, partitionId: 0, isr: [1, 2] });
    expect(before).toEqual(snapshot);
    expect(isDeepFrozen(after)).toBe(true);
    // Untouched parts are shared, not copied.
    expect(after.brokers).toBe(before.brokers);
    expect(after.topics.orders!.partitions[1]).toBe(before.topics.orders!.partitions[1]);
  });

  it("stays frozen even when another module turns off immer's global auto-freeze", () => {
    setAutoFreeze(false);
    try {
      expect(isDeepFrozen(apply(cluster(), partitionRecord(T1, 2, [1, 2])))).toBe(true);
    } finally {
      setAutoFreeze(true);
    }
  });

  it("does not freeze the caller's record arrays", () => {
    const replicas = [1, 2];
    apply(cluster(), partitionRecord(T1, 2, replicas));
    expect(Object.isFrozen(replicas)).toBe(false);
  });
});

describe('replay: brokers', () => {
  it('RegisterBrokerRecord sets brokerEpoch to the record offset', () => {
    const image = replay(emptyImage(), [
      { offset: 41, record: { ...register(5, true), rack: 'rack-a' } as MetadataRecord },
    ]);
    expect(image.brokers[5]).toEqual({
      brokerId: 5,
      incarnationId: 'inc-5',
      brokerEpoch: 41,
      rack: 'rack-a',
      host: 'broker-5',
      port: 9092,
      fenced: true,
      inControlledShutdown: false,
    });
  });

  it('an absent rack becomes null', () => {
    const { rack: _, ...noRack } = register(5) as MetadataRecord & { rack: null };
    expect(apply(emptyImage(), noRack).brokers[5]!.rack).toBeNull();
  });

  it('re-registration replaces the registration with a new epoch, fenced again', () => {
    const image = apply(cluster(), { ...register(2), incarnationId: 'inc-2b' } as MetadataRecord);
    expect(image.brokers[2]).toMatchObject({ incarnationId: 'inc-2b', brokerEpoch: 9, fenced: true });
  });

  it('BrokerRegistrationChangeRecord fences (1), unfences (-1) and leaves unchanged (0)', () => {
    let image = cluster();
    expect(image.brokers[2]!.fenced).toBe(false);
    image = apply(image, { type: 'BrokerRegistrationChangeRecord', brokerId: 2, brokerEpoch: 1, fenced: 1 });
    expect(image.brokers[2]!.fenced).toBe(true);
    image = apply(image, { type: 'BrokerRegistrationChangeRecord', brokerId: 2, brokerEpoch: 1, fenced: 0 });
    expect(image.brokers[2]!.fenced).toBe(true);
    image = apply(image, { type: 'BrokerRegistrationChangeRecord', brokerId: 2, brokerEpoch: 1, fenced: -1 });
    expect(image.brokers[2]!.fenced).toBe(false);
  });

  it('BrokerRegistrationChangeRecord sets inControlledShutdown only when 1', () => {
    let image = apply(cluster(), {
      type: 'BrokerRegistrationChangeRecord',
      brokerId: 3,
      brokerEpoch: 2,
      fenced: 0,
      inControlledShutdown: 1,
    });
    expect(image.brokers[3]).toMatchObject({ fenced: false, inControlledShutdown: true });
    image = apply(image, {
      type: 'BrokerRegistrationChangeRecord',
      brokerId: 3,
      brokerEpoch: 2,
      fenced: 1,
      inControlledShutdown: 0,
    });
    expect(image.brokers[3]).toMatchObject({ fenced: true, inControlledShutdown: true });
  });

  it('UnregisterBrokerRecord removes the broker but not its replicas', () => {
    const image = apply(cluster(), { type: 'UnregisterBrokerRecord', brokerId: 3, brokerEpoch: 2 });
    expect(image.brokers[3]).toBeUndefined();
    expect(Object.keys(image.brokers)).toEqual(['1', '2']);
    expect(image.topics.orders!.partitions[0]!.replicas).toEqual([1, 2, 3]);
  });

  it('throws, naming offset and record, for an unknown broker or a stale broker epoch', () => {
    const image = cluster();
    const cases: [MetadataRecord, RegExp][] = [
      [{ type: 'UnregisterBrokerRecord', brokerId: 9, brokerEpoch: 0 }, /no broker 9 is registered/],
      [{ type: 'UnregisterBrokerRecord', brokerId: 2, brokerEpoch: 0 }, /registered with epoch 1/],
      [
        { type: 'BrokerRegistrationChangeRecord', brokerId: 9, brokerEpoch: 0, fenced: 1 },
        /no broker 9 is registered/,
      ],
      [
        { type: 'BrokerRegistrationChangeRecord', brokerId: 2, brokerEpoch: 7, fenced: 1 },
        /registered with epoch 1/,
      ],
    ];
    for (const [record, reason] of cases) {
      let error: unknown;
      try {
        apply(image, record);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MetadataReplayError);
      const replayError = error as MetadataReplayError;
      expect(replayError.offset).toBe(9);
      expect(replayError.record).toEqual(record);
      expect(replayError.message).toMatch(reason);
      expect(replayError.message).toContain(`${record.type} at offset 9`);
      expect(replayError.message).toContain(JSON.stringify(record));
    }
  });

  it('a failed replay leaves the input image usable and unchanged', () => {
    const image = cluster();
    const snapshot = structuredClone(image);
    expect(() =>
      replay(image, [
        {
          offset: 9,
          record: { type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: 0, fenced: 1 },
        },
        { offset: 10, record: { type: 'UnregisterBrokerRecord', brokerId: 9, brokerEpoch: 0 } },
      ]),
    ).toThrow(MetadataReplayError);
    expect(image).toEqual(snapshot);
  });
});

describe('replay: topics and partitions', () => {
  it('TopicRecord and PartitionRecord build the topic with partitions by id', () => {
    const image = cluster();
    expect(image.topicNamesById).toEqual({ [T1]: 'orders' });
    expect(image.topics.orders).toEqual({
      name: 'orders',
      topicId: T1,
      partitions: [
        {
          partition: 0,
          replicas: [1, 2, 3],
          isr: [1, 2, 3],
          removingReplicas: [],
          addingReplicas: [],
          leader: 1,
          leaderEpoch: 0,
          partitionEpoch: 0,
        },
        {
          partition: 1,
          replicas: [2, 3, 1],
          isr: [2, 3, 1],
          removingReplicas: [],
          addingReplicas: [],
          leader: 2,
          leaderEpoch: 0,
          partitionEpoch: 0,
        },
      ],
    });
  });

  it('accepts topic names that are Object.prototype keys', () => {
    const name: string = 'constructor';
    const image = apply(cluster(), topic(name, T2), partitionRecord(T2, 0, [1]));
    expect(image.topics[name]!.partitions).toHaveLength(1);
    expect(Object.getPrototypeOf(image.topics)).toBe(Object.prototype);
    expect(() => apply(image, topic('__proto__', 'CCCCCCCCQACAAAAAAAAAAQ'))).toThrow(/cannot hold that name/);
  });

  it('PartitionRecord for an existing partition replaces it (as a snapshot restates it)', () => {
    const image = apply(cluster(), partitionRecord(T1, 1, [3], { leaderEpoch: 4, partitionEpoch: 9 }));
    expect(image.topics.orders!.partitions[1]).toMatchObject({ replicas: [3], leader: 3, leaderEpoch: 4 });
  });

  it('throws on a duplicate topic name or id, an unknown topic id, or a partition hole', () => {
    const image = cluster();
    expect(() => apply(image, topic('orders', T2))).toThrow(/topic 'orders' already exists/);
    expect(() => apply(image, topic('other', T1))).toThrow(/already names 'orders'/);
    expect(() => apply(image, partitionRecord(T2, 0, [1]))).toThrow(
      /PartitionRecord at offset 9: no topic has id/,
    );
    expect(() => apply(image, partitionRecord(T1, 3, [1]))).toThrow(
      /has 2 partition\(s\); cannot add partition 3/,
    );
    expect(() => apply(image, { type: 'PartitionChangeRecord', topicId: T2, partitionId: 0 })).toThrow(
      /no topic has id/,
    );
    expect(() => apply(image, { type: 'PartitionChangeRecord', topicId: T1, partitionId: 2 })).toThrow(
      /has no partition 2/,
    );
    expect(() => apply(image, { type: 'RemoveTopicRecord', topicId: T2 })).toThrow(
      /RemoveTopicRecord at offset 9: no topic has id/,
    );
  });

  it('PartitionChangeRecord without leader bumps partitionEpoch only', () => {
    const image = apply(cluster(), {
      type: 'PartitionChangeRecord',
      topicId: T1,
      partitionId: 0,
      isr: [1, 2],
    });
    expect(image.topics.orders!.partitions[0]).toMatchObject({
      isr: [1, 2],
      replicas: [1, 2, 3],
      leader: 1,
      leaderEpoch: 0,
      partitionEpoch: 1,
    });
  });

  it('leader -2 means no change: partitionEpoch moves, leaderEpoch does not', () => {
    const image = apply(cluster(), {
      type: 'PartitionChangeRecord',
      topicId: T1,
      partitionId: 0,
      leader: -2,
    });
    expect(image.topics.orders!.partitions[0]).toMatchObject({
      leader: 1,
      leaderEpoch: 0,
      partitionEpoch: 1,
    });
  });

  it('a new leader bumps both epochs; -1 leaves the partition leaderless and bumps both too', () => {
    let image = apply(cluster(), {
      type: 'PartitionChangeRecord',
      topicId: T1,
      partitionId: 0,
      leader: 2,
      isr: [2, 3],
    });
    expect(image.topics.orders!.partitions[0]).toMatchObject({
      leader: 2,
      isr: [2, 3],
      leaderEpoch: 1,
      partitionEpoch: 1,
    });
    image = apply(image, { type: 'PartitionChangeRecord', topicId: T1, partitionId: 0, leader: -1 });
    expect(image.topics.orders!.partitions[0]).toMatchObject({
      leader: -1,
      leaderEpoch: 2,
      partitionEpoch: 2,
    });
  });

  it('setting the same leader explicitly still bumps leaderEpoch (reassignment removal)', () => {
    // Reassign [1,2,3] -> [1,2]: replicas = target + removing, then the removal completes.
    let image = apply(cluster(), {
      type: 'PartitionChangeRecord',
      topicId: T1,
      partitionId: 0,
      removingReplicas: [3],
    });
    expect(image.topics.orders!.partitions[0]).toMatchObject({ removingReplicas: [3], partitionEpoch: 1 });
    image = apply(image, {
      type: 'PartitionChangeRecord',
      topicId: T1,
      partitionId: 0,
      leader: 1,
      replicas: [1, 2],
      isr: [1, 2],
      removingReplicas: [],
    });
    expect(image.topics.orders!.partitions[0]).toMatchObject({
      replicas: [1, 2],
      isr: [1, 2],
      removingReplicas: [],
      addingReplicas: [],
      leader: 1,
      leaderEpoch: 1,
      partitionEpoch: 2,
    });
  });

  it('PartitionChangeRecord sets addingReplicas and replicas for a reassignment that adds', () => {
    const image = apply(cluster(), {
      type: 'PartitionChangeRecord',
      topicId: T1,
      partitionId: 1,
      replicas: [2, 3, 1, 4],
      addingReplicas: [4],
    });
    expect(image.topics.orders!.partitions[1]).toMatchObject({
      replicas: [2, 3, 1, 4],
      addingReplicas: [4],
      isr: [2, 3, 1],
      leaderEpoch: 0,
      partitionEpoch: 1,
    });
  });

  it('RemoveTopicRecord removes the topic, its id mapping and its configs, and only those', () => {
    let image = apply(
      cluster(),
      topic('payments', T2),
      partitionRecord(T2, 0, [1]),
      {
        type: 'ConfigRecord',
        resourceType: 'TOPIC',
        resourceName: 'orders',
        name: 'retention.ms',
        value: '1',
      },
      {
        type: 'ConfigRecord',
        resourceType: 'TOPIC',
        resourceName: 'payments',
        name: 'retention.ms',
        value: '2',
      },
    );
    image = apply(image, { type: 'RemoveTopicRecord', topicId: T1 });
    expect(Object.keys(image.topics)).toEqual(['payments']);
    expect(image.topicNamesById).toEqual({ [T2]: 'payments' });
    expect(image.configs.topic).toEqual({ payments: { 'retention.ms': '2' } });
    // The name can be reused by a new topic with a new id.
    image = apply(image, topic('orders', 'BBBBBBBBQACAAAAAAAAAAQ'));
    expect(image.topics.orders!.partitions).toEqual([]);
  });
});

describe('replay: configs, features, no-ops', () => {
  it('ConfigRecord sets and overwrites topic keys; null deletes and drops empty resources', () => {
    let image = apply(
      cluster(),
      {
        type: 'ConfigRecord',
        resourceType: 'TOPIC',
        resourceName: 'orders',
        name: 'retention.ms',
        value: '1000',
      },
      {
        type: 'ConfigRecord',
        resourceType: 'TOPIC',
        resourceName: 'orders',
        name: 'cleanup.policy',
        value: 'compact',
      },
      {
        type: 'ConfigRecord',
        resourceType: 'TOPIC',
        resourceName: 'orders',
        name: 'retention.ms',
        value: '2000',
      },
    );
    expect(image.configs.topic.orders).toEqual({ 'retention.ms': '2000', 'cleanup.policy': 'compact' });
    image = apply(image, {
      type: 'ConfigRecord',
      resourceType: 'TOPIC',
      resourceName: 'orders',
      name: 'retention.ms',
      value: null,
    });
    expect(image.configs.topic.orders).toEqual({ 'cleanup.policy': 'compact' });
    image = apply(image, {
      type: 'ConfigRecord',
      resourceType: 'TOPIC',
      resourceName: 'orders',
      name: 'cleanup.policy',
      value: null,
    });
    expect(image.configs.topic).toEqual({});
    // Deleting a key that is not set is a no-op apart from the offset.
    const again = apply(image, {
      type: 'ConfigRecord',
      resourceType: 'TOPIC',
      resourceName: 'orders',
      name: 'cleanup.policy',
      value: null,
    });
    expect(again.configs).toEqual(image.configs);
    expect(again.offset).toBe(image.offset + 1);
  });

  it('ConfigRecord for brokers keys by id, with "" for the cluster default; topics must exist', () => {
    const image = apply(
      cluster(),
      {
        type: 'ConfigRecord',
        resourceType: 'BROKER',
        resourceName: '',
        name: 'log.retention.ms',
        value: '5',
      },
      {
        type: 'ConfigRecord',
        resourceType: 'BROKER',
        resourceName: '7',
        name: 'log.retention.ms',
        value: '6',
      },
    );
    expect(image.configs.broker).toEqual({
      '': { 'log.retention.ms': '5' },
      '7': { 'log.retention.ms': '6' },
    });
    expect(() =>
      apply(image, {
        type: 'ConfigRecord',
        resourceType: 'TOPIC',
        resourceName: 'nope',
        name: 'k',
        value: 'v',
      }),
    ).toThrow(/ConfigRecord at offset 11: no topic 'nope'/);
    expect(() =>
      apply(image, {
        type: 'ConfigRecord',
        resourceType: 'BROKER',
        resourceName: 'b1',
        name: 'k',
        value: 'v',
      }),
    ).toThrow(/neither '' nor a broker id/);
  });

  it('FeatureLevelRecord sets a level and 0 removes the feature', () => {
    let image = apply(emptyImage(), {
      type: 'FeatureLevelRecord',
      name: 'metadata.version',
      featureLevel: 21,
    });
    expect(image.features).toEqual({ 'metadata.version': 21 });
    image = apply(image, { type: 'FeatureLevelRecord', name: 'metadata.version', featureLevel: 22 });
    expect(image.features).toEqual({ 'metadata.version': 22 });
    image = apply(image, { type: 'FeatureLevelRecord', name: 'metadata.version', featureLevel: 0 });
    expect(image.features).toEqual({});
  });

  it('NoOpRecord only advances the offset', () => {
    const before = cluster();
    const after = apply(before, { type: 'NoOpRecord' });
    expect(after.offset).toBe(9);
    expect({ ...after, offset: before.offset }).toEqual(before);
  });
});
