import { describe, expect, it } from 'vitest';
import { type AssignorMember, assignors } from '../../../../models/group/assignors/index.ts';
import { names, tp } from './helpers.ts';

// Exact cases of the sticky assignor's two paths, each worked out by hand from the rule it names (the random
// properties of properties.test.ts reach most of these corners only rarely). Equal subscriptions follow Kafka's
// AbstractStickyAssignor.ConstrainedAssignmentBuilder; unequal ones follow the steps written at the top of
// models/group/assignors/sticky.ts (keep valid claims; fill topic by topic, fewest subscribers first, each free
// partition to the subscriber with fewest partitions; then level each topic from its fullest holder to its emptiest
// subscriber, partitions nobody kept first; ties go to the lowest member id).

const sticky = assignors.sticky;

/** A member of generation 1 owning `owned` ('t3' is t-3). */
function member(memberId: string, topics: string[], owned: string[] = []): AssignorMember {
  return {
    memberId,
    topics,
    ownedPartitions: owned.map((s) => tp(s.slice(0, 1), Number(s.slice(1)))),
    generation: 1,
  };
}

/** The result as 't3' strings per member. */
function assign(partitionsPerTopic: Record<string, number>, members: AssignorMember[]) {
  const out = names(sticky.assign({ partitionsPerTopic, members }));
  return Object.fromEntries(Object.entries(out).map(([m, l]) => [m, l.map((s) => s.replace('-', ''))]));
}

describe('sticky, equal subscriptions (ConstrainedAssignmentBuilder.assignOwnedPartitions)', () => {
  it('a member over its quota keeps its lowest partition numbers across topics, not its first topic', () => {
    // Kafka sorts a member's owned partitions by partition number, then topic, and keeps the first maxQuota of
    // them: c1 keeps a-0 and b-0, and c2 (joining) gets a-1 and b-1. Keeping whole topics (a-0, a-1) would not be
    // Kafka's answer, nor would moving the kept partitions around to level topics.
    expect(
      assign({ a: 2, b: 2 }, [member('c1', ['a', 'b'], ['a0', 'a1', 'b0', 'b1']), member('c2', ['a', 'b'])]),
    ).toEqual({ c1: ['a0', 'b0'], c2: ['a1', 'b1'] });
    // Same partition number: the topic decides (a before b).
    expect(
      assign({ a: 1, b: 1 }, [member('c1', ['a', 'b'], ['b0', 'a0']), member('c2', ['a', 'b'])]),
    ).toEqual({
      c1: ['a0'],
      c2: ['b0'],
    });
  });

  it('only as many members keep maxQuota as total % members; the others keep minQuota', () => {
    // 7 partitions, 3 members: minQuota 2, maxQuota 3, one member may hold 3. c1 (first in member-id order) keeps
    // its 3; c2 owns 3 too but keeps only 2 (a-5 is revoked); c3 owned 1 and is filled to 2 with a-5.
    expect(
      assign({ a: 7 }, [
        member('c1', ['a'], ['a0', 'a1', 'a2']),
        member('c2', ['a'], ['a3', 'a4', 'a5']),
        member('c3', ['a'], ['a6']),
      ]),
    ).toEqual({ c1: ['a0', 'a1', 'a2'], c2: ['a3', 'a4'], c3: ['a5', 'a6'] });
  });

  it('subscriptions of the same size but other topics are not equal: nobody gets a topic it does not subscribe to', () => {
    // c1 {a, b}, c2 {a, c}: the general path. b has one subscriber and goes first (to c1), then a to c2, the
    // subscriber of a with fewer partitions.
    expect(assign({ a: 1, b: 1 }, [member('c1', ['a', 'b']), member('c2', ['a', 'c'])])).toEqual({
      c1: ['b0'],
      c2: ['a0'],
    });
  });
});

describe('sticky, unequal subscriptions (the general path)', () => {
  it('fills topics with fewest subscribers first (Kafka’s TopicComparator)', () => {
    // b (subscriber c2 alone) first: b-0 to c2. Then a: a-0 to c1 (0 against 1), a-1 to c1 (1 against 1, lower
    // id). Filling a first would give a-1 to c2 and leave c2 with two.
    expect(assign({ a: 2, b: 1 }, [member('c1', ['a']), member('c2', ['a', 'b'])])).toEqual({
      c1: ['a0', 'a1'],
      c2: ['b0'],
    });
  });

  it('gives each free partition to the subscriber with fewest partitions at that moment', () => {
    // c1 kept u-0 and u-1 (2). t-0 to c2 (0), t-1 to c2 (1 < 2), t-2 to c1 (2 against 2, lower id).
    expect(assign({ t: 3, u: 2 }, [member('c1', ['t', 'u'], ['u0', 'u1']), member('c2', ['t'])])).toEqual({
      c1: ['t2', 'u0', 'u1'],
      c2: ['t0', 't1'],
    });
    // The fill already leaves every topic level, so nothing moves afterwards: v (c3 alone) first, then t-0 to c1,
    // then u: u-0 to c2, u-1 to c4, u-2 to c1 (all three at 1, lower id).
    expect(
      assign({ t: 1, u: 3, v: 4 }, [
        member('c1', ['t', 'u']),
        member('c2', ['u']),
        member('c3', ['t', 'v']),
        member('c4', ['u']),
      ]),
    ).toEqual({ c1: ['t0', 'u2'], c2: ['u0'], c3: ['v0', 'v1', 'v2', 'v3'], c4: ['u1'] });
  });

  it('levels a topic from the holder with most partitions; of equal holders the lowest member id gives', () => {
    // t's holders c1 and c2 have 2 each, c3 (also on the empty topic u, so subscriptions differ) none: c1 gives
    // its last kept partition, t-1; then 1, 2, 1 is level.
    expect(
      assign({ t: 4, u: 0 }, [
        member('c1', ['t'], ['t0', 't1']),
        member('c2', ['t'], ['t2', 't3']),
        member('c3', ['t', 'u']),
      ]),
    ).toEqual({ c1: ['t0'], c2: ['t2', 't3'], c3: ['t1'] });
    // c2 (4) gives t-4 to c4; c1 and c2 then hold 3 each and c1, the lower id, gives t-2; 2, 3, 2 is level.
    expect(
      assign({ t: 5, u: 2, v: 0 }, [
        member('c1', ['t', 'u', 'v'], ['t2']),
        member('c2', ['t', 'v'], ['t0', 't1', 't3', 't4']),
        member('c3', ['v']),
        member('c4', ['t']),
      ]),
    ).toEqual({ c1: ['u0', 'u1'], c2: ['t0', 't1', 't3'], c3: [], c4: ['t2', 't4'] });
    // A holder with fewer partitions never gives before one with more, whatever the ids: c4 (kept u-0, u-1, filled
    // v) holds 4 and gives u-1 to c1 and u-0 to c2 while c2 holds 1; then c1 (t-0, u-1) gives t-0 to c3.
    expect(
      assign({ t: 1, u: 3, v: 2 }, [
        member('c1', ['t', 'u']),
        member('c2', ['u']),
        member('c3', ['t']),
        member('c4', ['u', 'v'], ['u0', 'u1']),
      ]),
    ).toEqual({ c1: ['u1'], c2: ['u0', 'u2'], c3: ['t0'], c4: ['v0', 'v1'] });
  });

  it('levels to the subscriber with fewest partitions; of equal ones the lowest member id receives', () => {
    // c1 holds all 4; c2 and c3 have none: t-3 to c2, then t-2 to c3 (now the one with fewest). c1 keeps 2.
    expect(
      assign({ t: 4, u: 0 }, [
        member('c1', ['t'], ['t0', 't1', 't2', 't3']),
        member('c2', ['t', 'u']),
        member('c3', ['t', 'u']),
      ]),
    ).toEqual({ c1: ['t0', 't1'], c2: ['t3'], c3: ['t2'] });
    // c1 (4 after u) gives t-1 to c3 (0, before c2's 1), then t-0 to c2 (1, against c3's 1, lower id).
    expect(
      assign({ t: 3, u: 2, v: 0 }, [
        member('c1', ['t', 'u'], ['t0', 't1']),
        member('c2', ['t']),
        member('c3', ['t', 'v']),
        member('c4', ['v']),
      ]),
    ).toEqual({ c1: ['u0', 'u1'], c2: ['t0', 't2'], c3: ['t1'], c4: [] });
  });

  it('moves a partition nobody kept before one a member kept', () => {
    // t-1 went to c2 in the fill, c1 kept t-0; both hold 2 and c3 none. The fresh t-1 moves to c3, and c1 keeps
    // t-0 (moving the lower id's kept partition would balance as well, at the cost of a revocation).
    expect(
      assign({ t: 2, u: 2, v: 1 }, [
        member('c1', ['t', 'u', 'v'], ['t0']),
        member('c2', ['t', 'v']),
        member('c3', ['t']),
        member('c4', ['u', 'v']),
      ]),
    ).toEqual({ c1: ['t0', 'u1'], c2: ['v0'], c3: ['t1'], c4: ['u0'] });
  });

  it('levels again after a move in one topic unbalances another (until no move is left)', () => {
    // The fill gives u to c2 (4) and c3 (2 + kept t-0 = 3). Only moving c3's kept t-0 to c1 (which has nothing)
    // levels t, and that leaves c2 4 against c3 2 in u: a second round moves u-5 to c3.
    const members = [
      member('c1', ['t', 'v']),
      member('c2', ['t', 'u', 'v']),
      member('c3', ['t', 'u'], ['t0']),
    ];
    expect(assign({ t: 1, u: 6, v: 0 }, members)).toEqual({
      c1: ['t0'],
      c2: ['u0', 'u1', 'u3'],
      c3: ['u2', 'u4', 'u5'],
    });
  });

  it('a holder that has given all its movable partitions of a topic gives no more of it', () => {
    // c1 gives u-0 to c3 (u is c3's only topic) and has no other u partition: it must not be asked again.
    expect(
      assign({ t: 4, u: 1, v: 3 }, [
        member('c1', ['t', 'u'], ['u0']),
        member('c2', ['t', 'v']),
        member('c3', ['u']),
      ]),
    ).toEqual({ c1: ['t0', 't1', 't2'], c2: ['t3', 'v0', 'v1', 'v2'], c3: ['u0'] });
    // c1 gives u-1 then u-0 to c2; c2 then holds fresh u partitions and counts as a holder of u, c1 none.
    expect(
      assign({ t: 1, u: 2, v: 1 }, [
        member('c1', ['t', 'u', 'v'], ['u0', 'v0', 'u1']),
        member('c2', ['u', 'v']),
      ]),
    ).toEqual({
      c1: ['t0', 'v0'],
      c2: ['u0', 'u1'],
    });
  });

  it('a partition moved once can move again, holders re-ordered after every move', () => {
    // c3 (5) gives t-1 to c4 and t-0 to c1 (fill gave c1 t-2, t-3); in the second round v-0 (kept by c4) goes to c2
    // and the t-0 c1 received moves on to c4.
    expect(
      assign({ t: 4, u: 3, v: 1 }, [
        member('c1', ['t']),
        member('c2', ['v']),
        member('c3', ['t', 'u'], ['t0', 't1']),
        member('c4', ['t', 'v'], ['v0']),
      ]),
    ).toEqual({ c1: ['t2', 't3'], c2: ['v0'], c3: ['u0', 'u1', 'u2'], c4: ['t0', 't1'] });
    // v: c1 (7 with t) gives its kept v-1 to c2 and v-0 to c3; u had levelled c2 and c4 at 2 before.
    expect(
      assign({ t: 5, u: 3, v: 5 }, [
        member('c1', ['t', 'v'], ['v0', 'v1']),
        member('c2', ['u', 'v']),
        member('c3', ['v']),
        member('c4', ['u']),
      ]),
    ).toEqual({
      c1: ['t0', 't1', 't2', 't3', 't4'],
      c2: ['u0', 'v1', 'v4'],
      c3: ['v0', 'v2', 'v3'],
      c4: ['u1', 'u2'],
    });
    // c2 kept all three: it gives v-1 to c1 (c1 and c3 both at 0: the lower id), then v-0 to c3 (still 0). t-0
    // stays: c2's 1 against c4's 0.
    expect(
      assign({ t: 1, v: 2 }, [
        member('c1', ['t', 'v']),
        member('c2', ['t', 'v'], ['v0', 'v1', 't0']),
        member('c3', ['t', 'v']),
        member('c4', ['t']),
      ]),
    ).toEqual({ c1: ['v1'], c2: ['t0'], c3: ['v0'], c4: [] });
  });
});
