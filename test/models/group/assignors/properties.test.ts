import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AssignInput,
  type Assignor,
  assignors,
  rangeAssignor,
  roundRobinAssignor,
  type TopicPartition,
} from '../../../../models/group/assignors/index.ts';
import { arbInput, counts, key, shuffled, subscribedPartitions, validOwned, withOwned } from './helpers.ts';

// npm run mutation runs these once per mutant and asks for fewer runs (KAFKASIM_PROPERTY_RUNS, scripts/mutation.sh).
const RUNS = { numRuns: Number(process.env.KAFKASIM_PROPERTY_RUNS ?? 300) };

const eager: [string, Assignor][] = [
  ['range', assignors.range],
  ['range/librdkafka', rangeAssignor({ ordering: 'librdkafka' })],
  ['roundrobin', assignors.roundRobin],
  ['roundrobin/librdkafka', roundRobinAssignor({ ordering: 'librdkafka' })],
  ['sticky', assignors.sticky],
];
const all: [string, Assignor][] = [...eager, ['cooperative-sticky', assignors.cooperativeSticky]];

const cmp = (a: TopicPartition, b: TopicPartition) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;

// Checkers collect problems and the test asserts there are none: one expect per run keeps 300 runs fast.

/** Shape problems: unknown or missing members, unsorted lists, partitions not subscribed/existing/unique. */
function shapeProblems(
  input: AssignInput,
  result: Record<string, TopicPartition[]>,
  assigned: Set<string>,
): string[] {
  const problems: string[] = [];
  const ids = input.members.map((m) => m.memberId).sort();
  if (JSON.stringify(Object.keys(result).sort()) !== JSON.stringify(ids)) problems.push('member keys differ');
  for (const m of input.members) {
    const list = result[m.memberId] ?? [];
    for (let i = 1; i < list.length; i++) {
      if (cmp(list[i - 1]!, list[i]!) >= 0) problems.push(`${m.memberId}: list not sorted`);
    }
    for (const x of list) {
      const count = input.partitionsPerTopic[x.topic];
      if (!m.topics.includes(x.topic)) problems.push(`${m.memberId} got unsubscribed ${key(x)}`);
      if (count === undefined || x.partition < 0 || x.partition >= count) problems.push(`no such ${key(x)}`);
      if (assigned.has(key(x))) problems.push(`${key(x)} assigned twice`);
      assigned.add(key(x));
    }
  }
  return problems;
}

/** Kafka's isBalanced test: no member may hold a partition another member 2+ below it could take. */
function improvingMoves(input: AssignInput, result: Record<string, TopicPartition[]>): string[] {
  const problems: string[] = [];
  for (const a of input.members) {
    const la = result[a.memberId]!;
    const topicsOfA = new Set(la.map((x) => x.topic));
    for (const b of input.members) {
      const lb = result[b.memberId]!;
      if (la.length > lb.length + 1 && b.topics.some((t) => topicsOfA.has(t))) {
        problems.push(`${a.memberId} (${la.length}) could give to ${b.memberId} (${lb.length})`);
      }
    }
  }
  return problems;
}

const spread = (xs: number[]) => (xs.length === 0 ? 0 : Math.max(...xs) - Math.min(...xs));

describe.each(all)('%s: every assignor', (name, assignor) => {
  it('assigns each subscribed partition at most once, only to subscribers, every member listed, sorted', () => {
    fc.assert(
      fc.property(arbInput({ withOwned: true }), (input) => {
        const assigned = new Set<string>();
        expect(shapeProblems(input, assignor.assign(input), assigned)).toEqual([]);
        if (name !== 'cooperative-sticky')
          expect([...assigned].sort()).toEqual(subscribedPartitions(input).sort());
      }),
      RUNS,
    );
  });

  it('is deterministic and independent of member order', () => {
    fc.assert(
      fc.property(arbInput({ withOwned: true }), fc.array(fc.nat(), { minLength: 1 }), (input, order) => {
        const a = assignor.assign(input);
        expect(assignor.assign(structuredClone(input))).toEqual(a);
        const b = assignor.assign(shuffled(input, order));
        expect(b).toEqual(a);
        expect(Object.keys(b)).toEqual(Object.keys(a));
      }),
      RUNS,
    );
  });
});

describe('range balance', () => {
  it.each([
    ['java', assignors.range],
    ['librdkafka', rangeAssignor({ ordering: 'librdkafka' })],
  ])('%s: per topic, subscribers get counts within one', (_, range) => {
    fc.assert(
      fc.property(arbInput(), (input) => {
        const result = range.assign(input);
        for (const topic of Object.keys(input.partitionsPerTopic)) {
          const subscribers = input.members.filter((m) => m.topics.includes(topic));
          const perMember = subscribers.map(
            (m) => result[m.memberId]!.filter((x) => x.topic === topic).length,
          );
          expect(spread(perMember)).toBeLessThanOrEqual(1);
        }
      }),
      RUNS,
    );
  });
});

describe('overall balance with equal subscriptions', () => {
  it.each([
    ['roundrobin', assignors.roundRobin],
    ['roundrobin/librdkafka', roundRobinAssignor({ ordering: 'librdkafka' })],
    ['sticky', assignors.sticky],
  ])('%s: member counts within one (sticky: whatever members claim to own)', (_, assignor) => {
    fc.assert(
      fc.property(arbInput({ sameSubscription: true, withOwned: true }), (input) => {
        expect(spread(counts(assignor.assign(input)))).toBeLessThanOrEqual(1);
      }),
      RUNS,
    );
  });
});

describe('sticky', () => {
  it('leaves no balancing move: a member 2+ above another holds no topic the other subscribes to', () => {
    fc.assert(
      fc.property(arbInput({ withOwned: true }), (input) => {
        expect(improvingMoves(input, assignors.sticky.assign(input))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('equal subscriptions: each member keeps at least min(valid owned, floor(P/N)) of its valid owned partitions', () => {
    // Valid owned = claims on existing, still-subscribed partitions that the member wins by generation
    // (see validOwned). floor(P/N) is Kafka's minQuota.
    fc.assert(
      fc.property(arbInput({ sameSubscription: true, withOwned: true }), (input) => {
        const result = assignors.sticky.assign(input);
        const total = subscribedPartitions(input).length;
        const minQuota = Math.floor(total / input.members.length);
        const owned = validOwned(input);
        const short = input.members.filter((m) => {
          const mine = owned.get(m.memberId)!;
          const kept = result[m.memberId]!.filter((x) => mine.has(key(x))).length;
          return kept < Math.min(mine.size, minQuota);
        });
        expect(short.map((m) => m.memberId)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('equal subscriptions: after members leave a balanced group, every remaining member keeps all it had', () => {
    fc.assert(
      fc.property(
        arbInput({ sameSubscription: true, maxMembers: 10, maxPartitions: 20 }),
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        (input, leaves) => {
          const before = assignors.sticky.assign(input);
          const stay = input.members.filter((_, i) => !leaves[i]);
          fc.pre(stay.length > 0);
          const next = withOwned({ ...input, members: stay }, before, 1);
          const after = assignors.sticky.assign(next);
          const lost = stay.filter((m) => {
            const now = new Set(after[m.memberId]!.map(key));
            return before[m.memberId]!.some((x) => !now.has(key(x)));
          });
          expect(lost.map((m) => m.memberId)).toEqual([]);
        },
      ),
      RUNS,
    );
  });

  it('is stable: fed its own result as ownedPartitions, it returns the same result', () => {
    fc.assert(
      fc.property(arbInput({ withOwned: true }), fc.integer({ min: 0, max: 5 }), (input, generation) => {
        const first = assignors.sticky.assign(input);
        expect(assignors.sticky.assign(withOwned(input, first, generation))).toEqual(first);
      }),
      RUNS,
    );
  });
});

describe('cooperative-sticky', () => {
  /** Generation of each member that lists the partition in ownedPartitions, whatever its subscription. */
  function claimants(input: AssignInput): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>();
    for (const m of input.members) {
      for (const x of m.ownedPartitions ?? []) {
        const byMember = out.get(key(x)) ?? new Map<string, number>();
        byMember.set(m.memberId, m.generation ?? -1);
        out.set(key(x), byMember);
      }
    }
    return out;
  }

  it('never gives a partition to a member while another member still holds it at the same or a newer generation', () => {
    fc.assert(
      fc.property(arbInput({ withOwned: true }), (input) => {
        const coop = assignors.cooperativeSticky.assign(input);
        const eager = assignors.sticky.assign(input);
        const claims = claimants(input);
        const problems: string[] = [];
        for (const m of input.members) {
          const mine = new Set(coop[m.memberId]!.map(key));
          const eagerMine = new Set(eager[m.memberId]!.map(key));
          for (const x of eager[m.memberId]!) {
            const byMember = claims.get(key(x)) ?? new Map<string, number>();
            const own = byMember.get(m.memberId);
            const others = [...byMember].filter(([id]) => id !== m.memberId).map(([, g]) => g);
            // Kept exactly when nobody else holds it, or m holds it and every other holder is older.
            const mayKeep = others.length === 0 || (own !== undefined && others.every((g) => g < own));
            if (mine.has(key(x)) !== mayKeep)
              problems.push(`${m.memberId} ${key(x)} kept=${mine.has(key(x))}`);
          }
          // Cooperative only withholds; it never gives what eager sticky would not.
          for (const k of mine) if (!eagerMine.has(k)) problems.push(`${m.memberId} got ${k} beyond sticky`);
        }
        expect(problems).toEqual([]);
      }),
      RUNS,
    );
  });

  it('equal subscriptions: the second rebalance completes the eager sticky assignment', () => {
    fc.assert(
      fc.property(arbInput({ sameSubscription: true, withOwned: true }), (input) => {
        const first = assignors.cooperativeSticky.assign(input);
        // Members revoke what they lost and rejoin in the next generation, owning the first result.
        const next = withOwned(input, first, 10);
        const second = assignors.cooperativeSticky.assign(next);
        expect(second).toEqual(assignors.sticky.assign(next));
        const assigned = Object.values(second).flat().map(key).sort();
        expect(assigned).toEqual(subscribedPartitions(input).sort());
        // Nobody lost anything in the second round.
        const lost = input.members.filter((m) => {
          const now = new Set(second[m.memberId]!.map(key));
          return first[m.memberId]!.some((x) => !now.has(key(x)));
        });
        expect(lost.map((m) => m.memberId)).toEqual([]);
      }),
      RUNS,
    );
  });
});
