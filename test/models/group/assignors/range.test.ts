import { describe, expect, it } from 'vitest';
import { assignors, assignRange, rangeAssignor } from '../../../../models/group/assignors/index.ts';
import { names } from './helpers.ts';

// Expectations follow apache/kafka RangeAssignorTest (clients/src/test/.../consumer/RangeAssignorTest.java).
const range = assignors.range;

describe('range assignor', () => {
  it('is named range and eager only', () => {
    expect(range.name).toBe('range');
    expect(range.rebalanceProtocols).toEqual(['EAGER']);
  });

  it('gives one consumer every partition of its topic and nothing of others (testOnlyAssignsPartitionsFromSubscribedTopics)', () => {
    const r = range.assign({
      partitionsPerTopic: { topic: 3, other: 3 },
      members: [{ memberId: 'consumer', topics: ['topic'] }],
    });
    expect(names(r)).toEqual({ consumer: ['topic-0', 'topic-1', 'topic-2'] });
  });

  it('assigns nothing for a topic that does not exist (testOneConsumerNonexistentTopic)', () => {
    const r = range.assign({
      partitionsPerTopic: {},
      members: [{ memberId: 'consumer', topics: ['topic'] }],
    });
    expect(r).toEqual({ consumer: [] });
  });

  it('leaves the second consumer empty with one partition (testTwoConsumersOneTopicOnePartition)', () => {
    const r = range.assign({
      partitionsPerTopic: { topic: 1 },
      members: [
        { memberId: 'consumer2', topics: ['topic'] },
        { memberId: 'consumer1', topics: ['topic'] },
      ],
    });
    expect(names(r)).toEqual({ consumer1: ['topic-0'], consumer2: [] });
  });

  it('gives the first consumer the extra partition of every topic (testTwoConsumersTwoTopicsSixPartitions)', () => {
    const r = range.assign({
      partitionsPerTopic: { topic1: 3, topic2: 3 },
      members: [
        { memberId: 'consumer1', topics: ['topic1', 'topic2'] },
        { memberId: 'consumer2', topics: ['topic1', 'topic2'] },
      ],
    });
    expect(names(r)).toEqual({
      consumer1: ['topic1-0', 'topic1-1', 'topic2-0', 'topic2-1'],
      consumer2: ['topic1-2', 'topic2-2'],
    });
  });

  it('splits each topic among its own subscribers (testMultipleConsumersMixedTopics)', () => {
    const r = range.assign({
      partitionsPerTopic: { topic1: 3, topic2: 2 },
      members: [
        { memberId: 'consumer1', topics: ['topic1'] },
        { memberId: 'consumer2', topics: ['topic1', 'topic2'] },
        { memberId: 'consumer3', topics: ['topic1'] },
      ],
    });
    expect(names(r)).toEqual({
      consumer1: ['topic1-0'],
      consumer2: ['topic1-1', 'topic2-0', 'topic2-1'],
      consumer3: ['topic1-2'],
    });
  });

  it('gives each of 3 members the same partition number of both 3-partition topics', () => {
    const r = range.assign({
      partitionsPerTopic: { t0: 3, t1: 3 },
      members: ['c2', 'c0', 'c1'].map((memberId) => ({ memberId, topics: ['t0', 't1'] })),
    });
    expect(names(r)).toEqual({ c0: ['t0-0', 't1-0'], c1: ['t0-1', 't1-1'], c2: ['t0-2', 't1-2'] });
  });

  it('orders static members by group.instance.id, before dynamic ones (Java MemberInfo.compareTo)', () => {
    const members = [
      { memberId: 'a-dynamic', topics: ['t'] },
      { memberId: 'b', groupInstanceId: 'zz', topics: ['t'] },
      { memberId: 'c', groupInstanceId: 'aa', topics: ['t'] },
    ];
    const r = range.assign({ partitionsPerTopic: { t: 5 }, members });
    // order c(aa), b(zz), a-dynamic: 2, 2, 1
    expect(names(r)).toEqual({ 'a-dynamic': ['t-4'], b: ['t-2', 't-3'], c: ['t-0', 't-1'] });
  });

  it('with librdkafka ordering compares instance ids only when both members are static', () => {
    const members = [
      { memberId: 'a-dynamic', topics: ['t'] },
      { memberId: 'b', groupInstanceId: 'zz', topics: ['t'] },
      { memberId: 'c', groupInstanceId: 'aa', topics: ['t'] },
    ];
    const lib = rangeAssignor({ ordering: 'librdkafka' });
    expect(lib.name).toBe('range');
    // rd_kafka_group_member_cmp: a-dynamic < b and a-dynamic < c by member id, c(aa) < b(zz) by instance id
    expect(names(lib.assign({ partitionsPerTopic: { t: 5 }, members }))).toEqual({
      'a-dynamic': ['t-0', 't-1'],
      b: ['t-4'],
      c: ['t-2', 't-3'],
    });
  });

  it('assignRange without options orders members as Java does (static members first)', () => {
    const members = [
      { memberId: 'a-dynamic', topics: ['t'] },
      { memberId: 'b', groupInstanceId: 'zz', topics: ['t'] },
      { memberId: 'c', groupInstanceId: 'aa', topics: ['t'] },
    ];
    expect(names(assignRange({ partitionsPerTopic: { t: 5 }, members }))).toEqual({
      'a-dynamic': ['t-4'],
      b: ['t-2', 't-3'],
      c: ['t-0', 't-1'],
    });
  });

  it('keeps the same ranges for static members whose member ids change (static membership)', () => {
    const before = range.assign({
      partitionsPerTopic: { t: 4 },
      members: [
        { memberId: 'm1', groupInstanceId: 'i1', topics: ['t'] },
        { memberId: 'm2', groupInstanceId: 'i2', topics: ['t'] },
      ],
    });
    const after = range.assign({
      partitionsPerTopic: { t: 4 },
      members: [
        { memberId: 'z9', groupInstanceId: 'i1', topics: ['t'] },
        { memberId: 'a0', groupInstanceId: 'i2', topics: ['t'] },
      ],
    });
    expect(after.z9).toEqual(before.m1);
    expect(after.a0).toEqual(before.m2);
  });
});
