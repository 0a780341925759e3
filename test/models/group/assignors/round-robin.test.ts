import { describe, expect, it } from 'vitest';
import { assignors, roundRobinAssignor } from '../../../../models/group/assignors/index.ts';
import { names } from './helpers.ts';

// Expectations follow apache/kafka RoundRobinAssignorTest.
const roundRobin = assignors.roundRobin;

describe('roundrobin assignor', () => {
  it('is named roundrobin and eager only', () => {
    expect(roundRobin.name).toBe('roundrobin');
    expect(roundRobin.rebalanceProtocols).toEqual(['EAGER']);
  });

  it('interleaves partitions across topics (testTwoConsumersTwoTopicsSixPartitions)', () => {
    const r = roundRobin.assign({
      partitionsPerTopic: { topic1: 3, topic2: 3 },
      members: [
        { memberId: 'consumer2', topics: ['topic1', 'topic2'] },
        { memberId: 'consumer1', topics: ['topic1', 'topic2'] },
      ],
    });
    expect(names(r)).toEqual({
      consumer1: ['topic1-0', 'topic1-2', 'topic2-1'],
      consumer2: ['topic1-1', 'topic2-0', 'topic2-2'],
    });
  });

  it('skips members not subscribed to the topic and carries the cursor (testMultipleConsumersMixedTopics)', () => {
    const r = roundRobin.assign({
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

  it('carries the cursor from one topic to the next instead of restarting', () => {
    // 3 members, topics of 2 partitions: a restart per topic would give c0 both p0s.
    const r = roundRobin.assign({
      partitionsPerTopic: { x: 2, y: 2 },
      members: ['c0', 'c1', 'c2'].map((memberId) => ({ memberId, topics: ['x', 'y'] })),
    });
    expect(names(r)).toEqual({ c0: ['x-0', 'y-1'], c1: ['x-1'], c2: ['y-0'] });
  });

  it('compares member ids as Java Strings (UTF-16) or as librdkafka bytes (UTF-8)', () => {
    // U+1F600 is a surrogate pair (0xD83D..) in UTF-16, so it sorts before U+FF61; in UTF-8 it sorts after.
    const members = [
      { memberId: '\uff61', topics: ['t'] },
      { memberId: '\u{1f600}', topics: ['t'] },
    ];
    expect(roundRobin.assign({ partitionsPerTopic: { t: 1 }, members })['\u{1f600}']).toEqual([
      { topic: 't', partition: 0 },
    ]);
    expect(
      roundRobinAssignor({ ordering: 'librdkafka' }).assign({ partitionsPerTopic: { t: 1 }, members })[
        '\uff61'
      ],
    ).toEqual([{ topic: 't', partition: 0 }]);
  });

  it('puts static members first, by instance id, in Java ordering', () => {
    const members = [
      { memberId: 'a', topics: ['t'] },
      { memberId: 'b', groupInstanceId: 'i2', topics: ['t'] },
      { memberId: 'c', groupInstanceId: 'i1', topics: ['t'] },
    ];
    expect(names(roundRobin.assign({ partitionsPerTopic: { t: 4 }, members }))).toEqual({
      a: ['t-2'],
      b: ['t-1'],
      c: ['t-0', 't-3'],
    });
    // librdkafka: a < b, a < c by member id; c < b by instance id → a, c, b
    expect(
      names(roundRobinAssignor({ ordering: 'librdkafka' }).assign({ partitionsPerTopic: { t: 4 }, members })),
    ).toEqual({ a: ['t-0', 't-3'], b: ['t-2'], c: ['t-1'] });
  });
});
