// What the coordinator writes to __consumer_offsets and reads back when it takes a partition over.
import { describe, expect, it } from 'vitest';
import { type GroupMetadataValue, offsetKey, replayOffsetsLog } from '../../../models/group/index.ts';
import { groupMetadataRecord, offsetCommitRecord } from '../../../models/group/offsets-records.ts';
import { PartitionLog } from '../../../models/storage/index.ts';

const value = (generation: number, members: string[]): GroupMetadataValue => ({
  protocolType: 'consumer',
  generation,
  protocol: 'range',
  leader: members[0] ?? null,
  members: members.map((memberId) => ({
    memberId,
    groupInstanceId: null,
    clientId: 'c',
    clientHost: '/127.0.0.1',
    rebalanceTimeoutMs: 300_000,
    sessionTimeoutMs: 45_000,
    protocols: [{ name: 'range', metadata: { topics: ['t'], ownedPartitions: [], generation: -1 } }],
    assignment: [{ topic: 't', partition: 0 }],
  })),
});

describe('__consumer_offsets records', () => {
  it('replays to the latest offset per partition and the latest metadata per group', () => {
    const log = new PartitionLog('__consumer_offsets', 7);
    const append = (records: ReturnType<typeof offsetCommitRecord>[]) =>
      log.appendAsLeader(
        {
          count: records.length,
          bytes: 100,
          producerId: -1,
          producerEpoch: -1,
          baseSequence: -1,
          origin: 'c',
          runs: [],
          records,
        },
        0,
        0,
      );
    append([offsetCommitRecord('a', 't', 0, 5), offsetCommitRecord('a', 't', 1, 7)]);
    append([groupMetadataRecord('a', value(1, ['m1', 'm2']))]);
    append([offsetCommitRecord('a', 't', 0, 9), offsetCommitRecord('b', 'x', 3, 1)]);
    append([groupMetadataRecord('a', value(2, ['m2']))]);
    const groups = replayOffsetsLog(log.allBatches());
    expect([...groups.keys()].sort()).toEqual(['a', 'b']);
    const a = groups.get('a')!;
    expect(a.offsets.get(offsetKey('t', 0))).toBe(9);
    expect(a.offsets.get(offsetKey('t', 1))).toBe(7);
    expect(a.metadata!.generation).toBe(2);
    expect(a.metadata!.members.map((m) => m.memberId)).toEqual(['m2']);
    expect(groups.get('b')!.metadata).toBeUndefined();
    expect(groups.get('b')!.offsets.get(offsetKey('x', 3))).toBe(1);
  });

  it('keys survive topic names with separators in them', () => {
    const r = offsetCommitRecord('g-1', 'my.topic-name_2', 12, 3);
    const log = new PartitionLog('__consumer_offsets', 0);
    log.appendAsLeader(
      {
        count: 1,
        bytes: 50,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        origin: 'c',
        runs: [],
        records: [r],
      },
      0,
      0,
    );
    expect(replayOffsetsLog(log.allBatches()).get('g-1')!.offsets.get(offsetKey('my.topic-name_2', 12))).toBe(
      3,
    );
  });
});
