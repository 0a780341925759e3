import { bench, describe } from 'vitest';
import { type AssignInput, type AssignorMember, assignors } from '../../models/group/assignors/index.ts';

// 1,000 members x 10,000 partitions (10 topics x 1,000), the target is < 100 ms per assign.
const TOPICS = Array.from({ length: 10 }, (_, i) => `topic-${i}`);
const partitionsPerTopic = Object.fromEntries(TOPICS.map((t) => [t, 1000]));
const memberId = (i: number) => `consumer-${String(i).padStart(4, '0')}-uuid`;

const allSubscribed: AssignInput = {
  partitionsPerTopic,
  members: Array.from({ length: 1000 }, (_, i) => ({ memberId: memberId(i), topics: TOPICS })),
};

/** The next rebalance after one more member joined: everyone else owns its previous assignment. */
function joinAfter(input: AssignInput, topicsOfNew: string[]): AssignInput {
  const previous = assignors.sticky.assign(input);
  const members: AssignorMember[] = input.members.map((m) => ({
    ...m,
    ownedPartitions: previous[m.memberId],
    generation: 1,
  }));
  members.push({ memberId: memberId(1000), topics: topicsOfNew, ownedPartitions: [], generation: 1 });
  return { partitionsPerTopic, members };
}

// Unequal subscriptions force sticky's general path: member i skips topic i % 10.
const unequal: AssignInput = {
  partitionsPerTopic,
  members: Array.from({ length: 1000 }, (_, i) => ({
    memberId: memberId(i),
    topics: TOPICS.filter((_, t) => t !== i % 10),
  })),
};

const joinedEqual = joinAfter(allSubscribed, TOPICS);
const joinedUnequal = joinAfter(unequal, TOPICS);

describe('1,000 members x 10,000 partitions, all subscribed', () => {
  bench('range', () => {
    assignors.range.assign(allSubscribed);
  });
  bench('roundrobin', () => {
    assignors.roundRobin.assign(allSubscribed);
  });
  bench('sticky', () => {
    assignors.sticky.assign(allSubscribed);
  });
  bench('cooperative-sticky', () => {
    assignors.cooperativeSticky.assign(allSubscribed);
  });
});

describe('rebalance after one member joins (owned partitions set)', () => {
  bench('sticky', () => {
    assignors.sticky.assign(joinedEqual);
  });
  bench('cooperative-sticky', () => {
    assignors.cooperativeSticky.assign(joinedEqual);
  });
});

describe('unequal subscriptions (sticky general path)', () => {
  bench('sticky, fresh', () => {
    assignors.sticky.assign(unequal);
  });
  bench('sticky, one member joins', () => {
    assignors.sticky.assign(joinedUnequal);
  });
  bench('cooperative-sticky, one member joins', () => {
    assignors.cooperativeSticky.assign(joinedUnequal);
  });
});
