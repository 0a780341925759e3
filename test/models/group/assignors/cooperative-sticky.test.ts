import { describe, expect, it } from 'vitest';
import { assignors } from '../../../../models/group/assignors/index.ts';
import { names, tp, withOwned } from './helpers.ts';

const cooperative = assignors.cooperativeSticky;

describe('cooperative-sticky assignor', () => {
  it('is named cooperative-sticky and supports COOPERATIVE then EAGER', () => {
    expect(cooperative.name).toBe('cooperative-sticky');
    expect(cooperative.rebalanceProtocols).toEqual(['COOPERATIVE', 'EAGER']);
  });

  it('withholds a moving partition in the first rebalance and hands it over in the second', () => {
    const input = {
      partitionsPerTopic: { topic: 3 },
      members: [
        {
          memberId: 'consumer1',
          topics: ['topic'],
          ownedPartitions: [0, 1, 2].map((p) => tp('topic', p)),
          generation: 1,
        },
        { memberId: 'consumer2', topics: ['topic'], ownedPartitions: [], generation: 1 },
      ],
    };
    // The eager sticky result would move topic-2 to consumer2.
    expect(names(assignors.sticky.assign(input))).toEqual({
      consumer1: ['topic-0', 'topic-1'],
      consumer2: ['topic-2'],
    });
    const first = cooperative.assign(input);
    expect(names(first)).toEqual({ consumer1: ['topic-0', 'topic-1'], consumer2: [] });

    // consumer1 revoked topic-2 and rejoined; now nobody holds it.
    const second = cooperative.assign(withOwned(input, first, 2));
    expect(names(second)).toEqual({ consumer1: ['topic-0', 'topic-1'], consumer2: ['topic-2'] });
  });

  it('gives no one a partition claimed by two members of the same generation', () => {
    const r = cooperative.assign({
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
    expect(names(r)).toEqual({ consumer1: ['topic-1'], consumer2: ['topic-2'], consumer3: [] });
  });

  it('lets the higher-generation claimant keep a partition a stale member also claims', () => {
    const r = cooperative.assign({
      partitionsPerTopic: { t: 4 },
      members: [
        { memberId: 'c1', topics: ['t'], ownedPartitions: [tp('t', 0), tp('t', 1)], generation: 3 },
        { memberId: 'c2', topics: ['t'], ownedPartitions: [tp('t', 1), tp('t', 2)], generation: 2 },
      ],
    });
    expect(names(r)).toEqual({ c1: ['t-0', 't-1'], c2: ['t-2', 't-3'] });
  });

  it('withholds a partition from a new owner while a member that unsubscribed still holds it', () => {
    const input = {
      partitionsPerTopic: { a: 1, b: 1 },
      members: [
        { memberId: 'c1', topics: ['a'], ownedPartitions: [tp('a', 0), tp('b', 0)], generation: 5 },
        { memberId: 'c2', topics: ['b'], ownedPartitions: [], generation: 5 },
      ],
    };
    // The eager sticky result gives b-0 to c2 at once; cooperatively c1 must revoke it first.
    expect(names(assignors.sticky.assign(input))).toEqual({ c1: ['a-0'], c2: ['b-0'] });
    expect(names(cooperative.assign(input))).toEqual({ c1: ['a-0'], c2: [] });
  });
});
