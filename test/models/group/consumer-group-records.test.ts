// A consumer group's records: what is written after each change (only what differs, tombstones for what is gone),
// and the group rebuilt from a replay of them equals the group that wrote them.
import { describe, expect, it } from 'vitest';
import {
  consumerGroupOf,
  recordsToWrite,
  replayConsumerGroupRecord,
} from '../../../models/group/consumer-group-records.ts';
import { ConsumerGroup } from '../../../models/group/index.ts';
import type { RecordData } from '../../../models/storage/index.ts';
import { harness } from './consumer-group-harness.ts';

describe('consumer group records', () => {
  it('a replay of what was written rebuilds the group: epochs, members, targets, current assignments', () => {
    const h = harness({ t: 4, u: 2 });
    const written = new Map<string, Map<string, string>>();
    const log: RecordData[] = [];
    const write = () => {
      const records = recordsToWrite(written, h.group, false);
      log.push(...records);
      return records;
    };
    h.heartbeat({ memberEpoch: 0, subscribedTopicNames: ['t', 'u'], serverAssignor: 'range' });
    const first = write();
    // Group, partition metadata, target epoch, and one member's metadata, current and target assignment.
    expect(first.map((r) => JSON.parse(r.key!)[0]).sort()).toEqual([
      'ConsumerGroupCurrentMemberAssignment',
      'ConsumerGroupMemberMetadata',
      'ConsumerGroupMetadata',
      'ConsumerGroupPartitionMetadata',
      'ConsumerGroupTargetAssignmentMember',
      'ConsumerGroupTargetAssignmentMetadata',
    ]);
    // A heartbeat that changes nothing writes nothing.
    h.heartbeat({ memberId: 'm1', memberEpoch: 1 });
    expect(write()).toEqual([]);
    h.heartbeat({ memberEpoch: 0, subscribedTopicNames: ['t'] });
    h.heartbeat({ memberId: 'm1', memberEpoch: 1, topicPartitions: [] });
    h.heartbeat({ memberId: 'm2', memberEpoch: 2 });
    h.heartbeat({ memberEpoch: 0 });
    h.heartbeat({ memberId: 'm3', memberEpoch: -1 });
    const last = write();
    // m3 joined and left between two writes: nothing of it; m3 was never written, so no tombstone either.
    expect(last.some((r) => r.key!.includes('"m3"'))).toBe(false);

    const replayed = new Map<string, string>();
    for (const r of log) replayConsumerGroupRecord(replayed, r.key!, r.value);
    const loaded = consumerGroupOf(replayed)!;
    const copy = new ConsumerGroup('g', h.group.host);
    copy.restore(loaded);
    expect(copy.groupEpoch).toBe(h.group.groupEpoch);
    expect(copy.assignmentEpoch).toBe(h.group.assignmentEpoch);
    expect(copy.assignor).toBe('range');
    expect(copy.subscriptionMetadata).toEqual(h.group.subscriptionMetadata);
    expect([...copy.members.values()]).toEqual([...h.group.members.values()]);
    expect([...copy.targetAssignment]).toEqual([...h.group.targetAssignment]);
    expect(copy.state).toBe(h.group.state);
    for (const p of [0, 1, 2, 3])
      expect(copy.currentPartitionEpoch('id-t', p)).toBe(h.group.currentPartitionEpoch('id-t', p));
  });

  it('a member that leaves is tombstoned; a deleted or converted group leaves nothing behind', () => {
    const h = harness({ t: 2 });
    const written = new Map<string, Map<string, string>>();
    const log: RecordData[] = [];
    h.heartbeat({ memberEpoch: 0 });
    h.heartbeat({ memberEpoch: 0 });
    log.push(...recordsToWrite(written, h.group, false));
    h.heartbeat({ memberId: 'm2', memberEpoch: -1 });
    const leave = recordsToWrite(written, h.group, false);
    log.push(...leave);
    expect(
      leave
        .filter((r) => r.value === null)
        .map((r) => JSON.parse(r.key!)[0])
        .sort(),
    ).toEqual([
      'ConsumerGroupCurrentMemberAssignment',
      'ConsumerGroupMemberMetadata',
      'ConsumerGroupTargetAssignmentMember',
    ]);
    const replayed = new Map<string, string>();
    for (const r of log) replayConsumerGroupRecord(replayed, r.key!, r.value);
    expect([...consumerGroupOf(replayed)!.members.keys()]).toEqual(['m1']);
    const gone = recordsToWrite(written, h.group, true);
    expect(gone.every((r) => r.value === null)).toBe(true);
    // The group's own record is deleted last.
    expect(JSON.parse(gone.at(-1)!.key!)[0]).toMatch(
      /^ConsumerGroup(Metadata|PartitionMetadata|TargetAssignmentMetadata)$/,
    );
    for (const r of gone) replayConsumerGroupRecord(replayed, r.key!, r.value);
    expect(replayed.size).toBe(0);
    expect(consumerGroupOf(replayed)).toBeUndefined();
  });
});
