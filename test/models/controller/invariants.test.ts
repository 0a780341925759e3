import { describe, expect, it } from 'vitest';
import { checkPartitionStates } from '../../../models/controller/index.ts';
import { emptyImage, type PartitionRecord, replay } from '../../../models/metadata/index.ts';

const imageWith = (p: Partial<PartitionRecord>) =>
  replay(emptyImage(), [
    { offset: 0, record: { type: 'TopicRecord', name: 't', topicId: 'T' } },
    {
      offset: 1,
      record: {
        type: 'PartitionRecord',
        topicId: 'T',
        partitionId: 0,
        replicas: [1, 2],
        isr: [1, 2],
        removingReplicas: [],
        addingReplicas: [],
        leader: 1,
        leaderEpoch: 0,
        partitionEpoch: 0,
        ...p,
      },
    },
  ]);

describe('checkPartitionStates', () => {
  it('accepts well-formed partitions, including a leaderless one', () => {
    expect(checkPartitionStates(imageWith({}), 'kafka')).toBeUndefined();
    expect(checkPartitionStates(imageWith({ leader: -1, isr: [2] }), 'kafka')).toBeUndefined();
  });

  it.each([
    [{ isr: [] }, 'kafka', 'empty ISR'],
    [{ isr: [1, 3] }, 'kafka', 'ISR member that is not a replica'],
    [{ leader: 2, isr: [1] }, 'kafka', 'leader not in the ISR'],
    [{ replicas: [1, 1], isr: [1] }, 'kafka', 'a replica appears twice'],
    [{ addingReplicas: [5] }, 'kafka', 'adding replica not in replicas'],
    [{}, 'shared', 'shared mode needs exactly one replica'],
  ] as const)('reports %o (%s)', (p, mode, problem) => {
    expect(checkPartitionStates(imageWith(p), mode)).toContain(problem);
  });
});
