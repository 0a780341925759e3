import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPartitionChange, type PartitionChangeSpec } from '../../../models/controller/index.ts';
import type { PartitionRegistration } from '../../../models/metadata/index.ts';

const part = (p: Partial<PartitionRegistration> = {}): PartitionRegistration => ({
  partition: 0,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
  removingReplicas: [],
  addingReplicas: [],
  leader: 1,
  leaderEpoch: 5,
  partitionEpoch: 9,
  ...p,
});

const build = (partition: PartitionRegistration, spec: Partial<PartitionChangeSpec> = {}) =>
  buildPartitionChange({
    topicId: 'T',
    partitionId: 0,
    partition,
    isAcceptableLeader: () => true,
    ...spec,
  });

describe('buildPartitionChange', () => {
  it('writes nothing when nothing changes', () => {
    expect(build(part())).toBeUndefined();
    expect(build(part(), { targetIsr: [1, 2, 3] })).toBeUndefined();
  });

  it('keeps a valid current leader and only changes the ISR, bumping the partition epoch only', () => {
    const c = build(part(), { targetIsr: [1, 3] })!;
    expect(c.record).toEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1, 3] });
    expect(c.after).toMatchObject({ leader: 1, leaderEpoch: 5, partitionEpoch: 10, isr: [1, 3] });
    expect(c.leaderChanged).toBe(false);
  });

  it('elects the first replica in replica order that is in the ISR and acceptable', () => {
    const c = build(part({ isr: [3, 2, 1] }), { targetIsr: [3, 2], isAcceptableLeader: (id) => id !== 1 })!;
    expect(c.record.leader).toBe(2);
    expect(c.after).toMatchObject({ leader: 2, leaderEpoch: 6 });
  });

  it('never writes an empty ISR: the last member stays and the leader becomes -1', () => {
    const c = build(part({ isr: [1] }), { targetIsr: [], isAcceptableLeader: (id) => id !== 1 })!;
    expect(c.record).toEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, leader: -1 });
    expect(c.after.isr).toEqual([1]);
  });

  it('elects outside the ISR only for UNCLEAN, and then the leader is the whole ISR', () => {
    const p = part({ isr: [1] });
    const accept = (id: number) => id === 3;
    expect(build(p, { isAcceptableLeader: accept })!.after.leader).toBe(-1);
    const c = build(p, { isAcceptableLeader: accept, election: 'UNCLEAN' })!;
    expect(c.unclean).toBe(true);
    expect(c.record).toMatchObject({ leader: 3, isr: [3] });
  });

  it('PREFERRED moves leadership to the first replica when it is in the ISR and acceptable', () => {
    const p = part({ leader: 2 });
    expect(build(p, { election: 'PREFERRED' })!.record.leader).toBe(1);
    expect(build(p, { election: 'PREFERRED', isAcceptableLeader: (id) => id !== 1 })).toBeUndefined();
  });

  it('completes a reassignment once the ISR minus removing covers the target, with a leader-epoch bump', () => {
    const p = part({ replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1] });
    expect(build(p, { targetIsr: [1, 2, 3] })).toBeUndefined();
    const c = build(p, { targetIsr: [1, 2, 3, 4] })!;
    expect(c.completedReassignment).toBe(true);
    expect(c.record).toEqual({
      type: 'PartitionChangeRecord',
      topicId: 'T',
      partitionId: 0,
      leader: 2,
      isr: [2, 3, 4],
      replicas: [2, 3, 4],
      removingReplicas: [],
      addingReplicas: [],
    });
  });

  it('bumps the leader epoch when a replica is removed even if the leader stays', () => {
    const c = build(part(), { targetReplicas: [1, 2], targetIsr: [1, 2] })!;
    expect(c.record.leader).toBe(1);
    expect(c.after).toMatchObject({ leader: 1, leaderEpoch: 6 });
  });

  it('keeps partition invariants for any input (property)', () => {
    const ids = fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        ids,
        ids,
        fc.func(fc.boolean()),
        fc.constantFrom('ONLINE', 'UNCLEAN', 'PREFERRED'),
        (replicas, isrPick, accept, election) => {
          const isr = replicas.filter((r) => isrPick.includes(r));
          const current = part({ replicas, isr: isr.length > 0 ? isr : [replicas[0]!], leader: -1 });
          const target = replicas.filter((r, i) => i % 2 === 0 || isrPick.includes(r));
          const c = build(current, {
            targetIsr: target,
            isAcceptableLeader: (id) => accept(id),
            election: election as PartitionChangeSpec['election'],
          });
          const after = c?.after ?? current;
          expect(after.isr.length).toBeGreaterThan(0);
          expect(after.isr.every((r) => after.replicas.includes(r))).toBe(true);
          if (after.leader !== -1) {
            expect(after.isr).toContain(after.leader);
            expect(accept(after.leader)).toBe(true);
          }
          expect(after.partitionEpoch).toBe(current.partitionEpoch + (c ? 1 : 0));
        },
      ),
    );
  });
});
