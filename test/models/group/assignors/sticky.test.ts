import { describe, expect, it } from 'vitest';
import { assignors } from '../../../../models/group/assignors/index.ts';
import { names, tp, withOwned } from './helpers.ts';

// Expectations follow apache/kafka AbstractStickyAssignorTest / StickyAssignorTest where noted.
const sticky = assignors.sticky;

describe('sticky assignor', () => {
  it('is named sticky and eager only', () => {
    expect(sticky.name).toBe('sticky');
    expect(sticky.rebalanceProtocols).toEqual(['EAGER']);
  });

  it('revokes only the excess when a consumer joins, and keeps all when one leaves (testAddRemoveConsumerOneTopic)', () => {
    const first = sticky.assign({
      partitionsPerTopic: { topic: 3 },
      members: [{ memberId: 'consumer1', topics: ['topic'] }],
    });
    expect(names(first)).toEqual({ consumer1: ['topic-0', 'topic-1', 'topic-2'] });

    const second = sticky.assign({
      partitionsPerTopic: { topic: 3 },
      members: [
        { memberId: 'consumer1', topics: ['topic'], ownedPartitions: first.consumer1, generation: 1 },
        { memberId: 'consumer2', topics: ['topic'], ownedPartitions: [], generation: 1 },
      ],
    });
    expect(names(second)).toEqual({ consumer1: ['topic-0', 'topic-1'], consumer2: ['topic-2'] });

    const third = sticky.assign({
      partitionsPerTopic: { topic: 3 },
      members: [
        { memberId: 'consumer2', topics: ['topic'], ownedPartitions: second.consumer2, generation: 2 },
      ],
    });
    expect(names(third)).toEqual({ consumer2: ['topic-0', 'topic-1', 'topic-2'] });
  });

  it('hands out the free partitions topic by topic in name order, whatever order the members list them in', () => {
    // Equal subscriptions (Kafka's constrained path): one partition each of a and b, two members. Round-robin over
    // the topics in sorted order gives a-0 to the first member and b-0 to the second.
    for (const topics of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const out = sticky.assign({
        partitionsPerTopic: { a: 1, b: 1 },
        members: [
          { memberId: 'm1', topics },
          { memberId: 'm2', topics: [...topics] },
        ],
      });
      expect(names(out), topics.join()).toEqual({ m1: ['a-0'], m2: ['b-0'] });
    }
  });

  it('keeps every remaining owner after a member leaves, spreading only the leaver’s partitions', () => {
    const input = {
      partitionsPerTopic: { t0: 4, t1: 5 },
      members: ['c1', 'c2', 'c3'].map((memberId) => ({ memberId, topics: ['t0', 't1'] })),
    };
    const before = sticky.assign(input);
    expect(names(before)).toEqual({
      c1: ['t0-0', 't0-3', 't1-2'],
      c2: ['t0-1', 't1-0', 't1-3'],
      c3: ['t0-2', 't1-1', 't1-4'],
    });
    const next = withOwned(
      { ...input, members: input.members.filter((m) => m.memberId !== 'c2') },
      before,
      1,
    );
    const after = sticky.assign(next);
    for (const m of ['c1', 'c3']) expect(after[m]).toEqual(expect.arrayContaining(before[m]!));
    expect(after.c1!.length + after.c3!.length).toBe(9);
    expect(Math.abs(after.c1!.length - after.c3!.length)).toBeLessThanOrEqual(1);
  });

  it('invalidates a partition claimed by two members of the same generation (testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer)', () => {
    const r = sticky.assign({
      partitionsPerTopic: { topic: 3 },
      members: [
        {
          memberId: 'consumer1',
          topics: ['topic'],
          ownedPartitions: [tp('topic', 0), tp('topic', 1)],
          generation: 1,
        },
        {
          memberId: 'consumer2',
          topics: ['topic'],
          ownedPartitions: [tp('topic', 0), tp('topic', 2)],
          generation: 1,
        },
        { memberId: 'consumer3', topics: ['topic'], ownedPartitions: [], generation: 1 },
      ],
    });
    expect(names(r)).toEqual({ consumer1: ['topic-1'], consumer2: ['topic-2'], consumer3: ['topic-0'] });
  });

  it('gives a doubly claimed partition to the member of the higher generation', () => {
    const members = (g1: number, g2: number) => [
      { memberId: 'c1', topics: ['t'], ownedPartitions: [tp('t', 0), tp('t', 1)], generation: g1 },
      { memberId: 'c2', topics: ['t'], ownedPartitions: [tp('t', 1), tp('t', 2)], generation: g2 },
    ];
    expect(names(sticky.assign({ partitionsPerTopic: { t: 4 }, members: members(3, 2) }))).toEqual({
      c1: ['t-0', 't-1'],
      c2: ['t-2', 't-3'],
    });
    expect(names(sticky.assign({ partitionsPerTopic: { t: 4 }, members: members(2, 3) }))).toEqual({
      c1: ['t-0', 't-3'],
      c2: ['t-1', 't-2'],
    });
  });

  it('ignores owned partitions of topics no longer subscribed or no longer existing', () => {
    const r = sticky.assign({
      partitionsPerTopic: { a: 2, b: 2 },
      members: [
        { memberId: 'c1', topics: ['a', 'b'], ownedPartitions: [tp('b', 0), tp('b', 1)], generation: 1 },
        // c2 dropped topic b: its claim on a-1 counts; b-0 (unsubscribed), gone-0 and a-7 (missing) do not.
        {
          memberId: 'c2',
          topics: ['a'],
          ownedPartitions: [tp('a', 1), tp('b', 0), tp('gone', 0), tp('a', 7)],
          generation: 1,
        },
      ],
    });
    // c1 keeps b-0, b-1 (2), c2 keeps a-1 (1); the free a-0 goes to the subscriber with fewer: c2.
    expect(names(r)).toEqual({ c1: ['b-0', 'b-1'], c2: ['a-0', 'a-1'] });
  });

  it('balances members with unequal subscriptions and keeps owners (general path)', () => {
    // c1 owns all 6 of t; c2 (t and u) joins; u has 2 partitions only c2 wants.
    const r = sticky.assign({
      partitionsPerTopic: { t: 6, u: 2 },
      members: [
        {
          memberId: 'c1',
          topics: ['t'],
          ownedPartitions: [0, 1, 2, 3, 4, 5].map((p) => tp('t', p)),
          generation: 4,
        },
        { memberId: 'c2', topics: ['t', 'u'], generation: 4 },
      ],
    });
    // u goes to c2 (its only subscriber); then t moves from c1 (6) until counts differ by at most one:
    // c1 gives up its highest partitions t-5 and t-4.
    expect(names(r)).toEqual({ c1: ['t-0', 't-1', 't-2', 't-3'], c2: ['t-4', 't-5', 'u-0', 'u-1'] });
  });

  it('fills the general path fewest-first, topics with fewest subscribers first', () => {
    const r = sticky.assign({
      partitionsPerTopic: { t1: 3, t2: 3 },
      members: [
        { memberId: 'c1', topics: ['t1'] },
        { memberId: 'c2', topics: ['t1', 't2'] },
        { memberId: 'c3', topics: ['t1', 't2'] },
      ],
    });
    // t2 (2 subscribers) first: t2-0 c2, t2-1 c3, t2-2 c2 (tie, lower id). Then t1 with counts c1 0, c2 2,
    // c3 1: t1-0 c1, t1-1 c1 (tie with c3, lower id), t1-2 c3.
    expect(names(r)).toEqual({ c1: ['t1-0', 't1-1'], c2: ['t2-0', 't2-2'], c3: ['t1-2', 't2-1'] });
  });
});
