import { describe, expect, it } from 'vitest';
import {
  maybeCompleteReassignment,
  reassignmentReplicas,
  revertReassignment,
} from '../../../models/controller/index.ts';

describe('reassignment arithmetic (PartitionReassignmentReplicas)', () => {
  it('computes adding, removing and the interim replica list', () => {
    expect(reassignmentReplicas([0, 1, 2], [3, 1, 4])).toEqual({
      replicas: [3, 1, 4, 0, 2],
      adding: [3, 4],
      removing: [0, 2],
    });
    expect(reassignmentReplicas([0, 1], [1, 0])).toEqual({ replicas: [1, 0], adding: [], removing: [] });
  });

  it('completes only when the ISR without the removing replicas covers the target', () => {
    const r = reassignmentReplicas([0, 1, 2], [1, 2, 3]);
    expect(maybeCompleteReassignment(r, [0, 1, 2])).toBeUndefined();
    expect(maybeCompleteReassignment(r, [0, 1, 2, 3])).toEqual({ replicas: [1, 2, 3], isr: [1, 2, 3] });
    expect(maybeCompleteReassignment(r, [0])).toBeUndefined();
  });

  it('reverts to the replicas without the added ones; an ISR of only added replicas needs an unclean election', () => {
    const base = {
      partition: 0,
      leader: 3,
      leaderEpoch: 1,
      partitionEpoch: 4,
      replicas: [3, 0],
      addingReplicas: [3],
      removingReplicas: [0],
    };
    expect(revertReassignment({ ...base, isr: [3, 0] })).toEqual({ replicas: [0], isr: [0], unclean: false });
    expect(revertReassignment({ ...base, isr: [3] })).toEqual({ replicas: [0], isr: [0], unclean: true });
  });
});
