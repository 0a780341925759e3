import { describe, expect, it } from 'vitest';
import {
  type Assignor,
  assignors,
  rangeAssignor,
  roundRobinAssignor,
} from '../../../../models/group/assignors/index.ts';

const all: [string, Assignor][] = [
  ...Object.entries(assignors),
  ['range/librdkafka', rangeAssignor({ ordering: 'librdkafka' })],
  ['roundrobin/librdkafka', roundRobinAssignor({ ordering: 'librdkafka' })],
];

describe.each(all)('%s input validation', (_, assignor) => {
  it('rejects a negative partition count', () => {
    expect(() =>
      assignor.assign({ partitionsPerTopic: { t: -1 }, members: [{ memberId: 'm', topics: ['t'] }] }),
    ).toThrow(/partition count of topic 't' must be a non-negative integer, got -1/);
  });

  it('rejects a non-integer partition count', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => assignor.assign({ partitionsPerTopic: { t: bad }, members: [] })).toThrow(
        /non-negative integer/,
      );
    }
  });

  it('rejects duplicate member ids', () => {
    expect(() =>
      assignor.assign({
        partitionsPerTopic: { t: 2 },
        members: [
          { memberId: 'm', topics: ['t'] },
          { memberId: 'm', topics: ['t'] },
        ],
      }),
    ).toThrow(/duplicate memberId 'm'/);
  });

  it('rejects a non-integer generation', () => {
    expect(() =>
      assignor.assign({
        partitionsPerTopic: { t: 2 },
        members: [{ memberId: 'm', topics: ['t'], generation: 0.5 }],
      }),
    ).toThrow(/generation of member 'm' must be an integer/);
  });

  it('returns {} for no members and [] for a member with nothing to take', () => {
    expect(assignor.assign({ partitionsPerTopic: { t: 3 }, members: [] })).toEqual({});
    const r = assignor.assign({
      partitionsPerTopic: { t: 0, u: 2 },
      members: [
        { memberId: 'x', topics: ['t', 'missing'] },
        { memberId: 'y', topics: ['u'] },
      ],
    });
    expect(r).toEqual({
      x: [],
      y: [
        { topic: 'u', partition: 0 },
        { topic: 'u', partition: 1 },
      ],
    });
  });

  it('treats a member id such as __proto__ as an ordinary key', () => {
    const r = assignor.assign({
      partitionsPerTopic: { t: 1 },
      members: [{ memberId: '__proto__', topics: ['t'] }],
    });
    expect(Object.keys(r)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(r, '__proto__')?.value).toEqual([{ topic: 't', partition: 0 }]);
  });
});
