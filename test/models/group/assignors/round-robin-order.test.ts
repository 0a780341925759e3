// Round robin lays out the subscribed topics in sorted order whatever order members subscribed in, and sorts
// them as each client does: Java's TreeSet by UTF-16 code units, librdkafka's strcmp by UTF-8 bytes. The two
// orders differ for a character above U+FFFF (a surrogate pair, 0xD83D...) against one in U+E000..U+FFFF.
import { describe, expect, it } from 'vitest';
import { assignRoundRobin } from '../../../../models/group/assignors/round-robin.ts';
import { names } from './helpers.ts';

describe('roundrobin topic order', () => {
  it('sorts the topics, not the order members named them in', () => {
    const input = {
      partitionsPerTopic: { t1: 1, t2: 2 },
      members: [
        { memberId: 'c1', topics: ['t2'] },
        { memberId: 'c2', topics: ['t2', 't1'] },
        { memberId: 'c3', topics: ['t1', 't2'] },
      ],
    };
    // t1-0 first: c1 does not read t1, so c2 takes it; then t2-0 to c3 and t2-1 to c1. (Laid out in the order
    // the members named them, t2 first, c1 would get t2-0, c2 t2-1 and c3 t1-0.)
    const expected = { c1: ['t2-1'], c2: ['t1-0'], c3: ['t2-0'] };
    expect(names(assignRoundRobin(input))).toEqual(expected);
    expect(names(assignRoundRobin(input, { ordering: 'librdkafka' }))).toEqual(expected);
  });

  const emoji = 'x\u{1F600}'; // UTF-16: x, 0xD83D 0xDE00; UTF-8: x, F0 9F 98 80
  const fullwidth = 'x\uFF21'; // UTF-16: x, 0xFF21; UTF-8: x, EF BC A1
  const input = {
    partitionsPerTopic: { [fullwidth]: 1, [emoji]: 1 },
    members: [
      { memberId: 'a', topics: [fullwidth, emoji] },
      { memberId: 'b', topics: [emoji, fullwidth] },
    ],
  };

  it('Java: UTF-16 order puts the surrogate pair first', () => {
    expect(names(assignRoundRobin(input, { ordering: 'java' }))).toEqual({
      a: [`${emoji}-0`],
      b: [`${fullwidth}-0`],
    });
  });

  it('librdkafka: byte order puts U+FF21 first', () => {
    expect(names(assignRoundRobin(input, { ordering: 'librdkafka' }))).toEqual({
      a: [`${fullwidth}-0`],
      b: [`${emoji}-0`],
    });
  });
});
