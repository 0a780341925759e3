import fc from 'fast-check';
import type {
  AssignInput,
  AssignorMember,
  TopicPartition,
} from '../../../../models/group/assignors/index.ts';

export const tp = (topic: string, partition: number): TopicPartition => ({ topic, partition });

/** 'topic-partition' strings per member, for compact expectations. */
export function names(result: Record<string, TopicPartition[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(result).map(([m, l]) => [m, l.map((x) => `${x.topic}-${x.partition}`)]),
  );
}

export const key = (x: TopicPartition) => `${x.topic}\u0000${x.partition}`;

/** Every (topic, partition) of topics that exist and that at least one member subscribes to. */
export function subscribedPartitions(input: AssignInput): string[] {
  const subscribed = new Set(input.members.flatMap((m) => m.topics));
  const out: string[] = [];
  for (const [topic, count] of Object.entries(input.partitionsPerTopic)) {
    if (!subscribed.has(topic)) continue;
    for (let p = 0; p < count; p++) out.push(key(tp(topic, p)));
  }
  return out;
}

/**
 * The claims a sticky assignor must honour, computed the slow obvious way: a member's claim counts if the
 * partition exists and the member still subscribes to its topic; among the members claiming a partition,
 * the one with the strictly highest generation (absent = -1) keeps it; a tie at the top leaves it to nobody.
 */
export function validOwned(input: AssignInput): Map<string, Set<string>> {
  const claimants = new Map<string, { member: string; generation: number }[]>();
  for (const m of input.members) {
    const mine = new Set<string>();
    for (const x of m.ownedPartitions ?? []) {
      const count = input.partitionsPerTopic[x.topic];
      if (count === undefined || x.partition < 0 || x.partition >= count || !m.topics.includes(x.topic))
        continue;
      const k = key(x);
      if (mine.has(k)) continue;
      mine.add(k);
      const list = claimants.get(k) ?? [];
      list.push({ member: m.memberId, generation: m.generation ?? -1 });
      claimants.set(k, list);
    }
  }
  const result = new Map<string, Set<string>>(input.members.map((m) => [m.memberId, new Set<string>()]));
  for (const [k, list] of claimants) {
    const top = Math.max(...list.map((c) => c.generation));
    const winners = list.filter((c) => c.generation === top);
    if (winners.length === 1) result.get(winners[0]!.member)!.add(k);
  }
  return result;
}

const TOPIC_NAMES = ['a', 'b', 'c', 'd'];

// Mixed-case, mixed-length ids so that ordering matters ('B' < 'a' < 'a0' in Java and librdkafka alike).
// (fc.stringMatching would do, but is about 50 times slower to generate.)
const memberIdArb = fc
  .tuple(fc.constantFrom('a', 'B', 'c', 'consumer-', 'Z'), fc.integer({ min: 0, max: 99 }))
  .map(([prefix, n]) => `${prefix}${n.toString(36)}`);

export interface GenOptions {
  sameSubscription?: boolean;
  withOwned?: boolean;
  maxMembers?: number;
  maxPartitions?: number;
}

/** Random group inputs: a few topics, up to maxMembers members, optional static ids and owned partitions. */
export function arbInput(options: GenOptions = {}): fc.Arbitrary<AssignInput> {
  const { sameSubscription = false, withOwned = false, maxMembers = 8, maxPartitions = 12 } = options;
  return fc
    .record({
      counts: fc.array(fc.integer({ min: 0, max: maxPartitions }), {
        minLength: 1,
        maxLength: TOPIC_NAMES.length,
      }),
      ids: fc.uniqueArray(memberIdArb, { minLength: 1, maxLength: maxMembers }),
      common: fc.subarray([...TOPIC_NAMES, 'ghost']),
    })
    .chain(({ counts, ids, common }) => {
      const partitionsPerTopic: Record<string, number> = {};
      counts.forEach((c, i) => {
        partitionsPerTopic[TOPIC_NAMES[i]!] = c;
      });
      const member = (memberId: string): fc.Arbitrary<AssignorMember> =>
        fc
          .record({
            instance: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
            topics: sameSubscription ? fc.constant(common) : fc.subarray([...TOPIC_NAMES, 'ghost']),
            owned: withOwned
              ? fc.array(
                  fc.record({
                    topic: fc.constantFrom(...TOPIC_NAMES),
                    partition: fc.integer({ min: 0, max: 14 }),
                  }),
                  {
                    maxLength: 10,
                  },
                )
              : fc.constant(undefined),
            generation: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
          })
          .map(({ instance, topics, owned, generation }) => {
            const m: AssignorMember = { memberId, topics };
            if (instance !== undefined) m.groupInstanceId = `${instance}-${memberId}`;
            if (owned !== undefined) m.ownedPartitions = owned;
            if (withOwned && generation !== undefined) m.generation = generation;
            return m;
          });
      return fc.tuple(...ids.map(member)).map((members) => ({ partitionsPerTopic, members }));
    });
}

/** The same input with members in another order. */
export function shuffled(input: AssignInput, order: number[]): AssignInput {
  const members = input.members.map((m, i) => ({ m, k: order[i % order.length]! * 1000 + i }));
  members.sort((x, y) => x.k - y.k);
  return { partitionsPerTopic: input.partitionsPerTopic, members: members.map((x) => x.m) };
}

/** Feeds an assignment back as the members' ownedPartitions in one generation, as the next rebalance would. */
export function withOwned(
  input: AssignInput,
  assignment: Record<string, TopicPartition[]>,
  generation: number,
): AssignInput {
  return {
    partitionsPerTopic: input.partitionsPerTopic,
    members: input.members.map((m) => ({ ...m, ownedPartitions: assignment[m.memberId] ?? [], generation })),
  };
}

export function counts(result: Record<string, TopicPartition[]>): number[] {
  return Object.values(result).map((l) => l.length);
}
