// The assignors' building blocks, each on its own: the two string orders members and topics are sorted by (Java's
// UTF-16 code units, librdkafka's UTF-8 bytes), the member orders built on them (static members first in Java),
// the indexed heap the sticky assignor balances with, input checks with their messages, claims naming partitions
// that do not exist, and the shape of the result object.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildSpace,
  partitionId,
  toAssignment,
} from '../../../../models/group/assignors/assignment-space.ts';
import { assignors } from '../../../../models/group/assignors/index.ts';
import { IndexedHeap } from '../../../../models/group/assignors/indexed-heap.ts';
import {
  compareUtf8,
  compareUtf16,
  memberComparator,
  sortMembers,
} from '../../../../models/group/assignors/member-order.ts';
import type { AssignInput } from '../../../../models/group/assignors/types.ts';

describe('compareUtf16 and compareUtf8', () => {
  it('order equal, shorter and longer strings', () => {
    for (const cmp of [compareUtf16, compareUtf8]) {
      expect(cmp('a', 'b')).toBe(-1);
      expect(cmp('b', 'a')).toBe(1);
      expect(cmp('ab', 'ab')).toBe(0);
      expect(cmp('', '')).toBe(0);
      expect(cmp('ab', 'abc')).toBe(-1);
      expect(cmp('abc', 'ab')).toBe(1);
      expect(cmp('', 'a')).toBe(-1);
      expect(cmp('b', 'ab')).toBe(1);
    }
  });

  it('differ only for a character above U+FFFF against one in U+E000..U+FFFF', () => {
    const emoji = '\u{1F600}'; // UTF-16 0xD83D 0xDE00, code point 0x1F600
    const fullwidth = '\uFF21';
    expect(compareUtf16(emoji, fullwidth)).toBe(-1);
    expect(compareUtf8(emoji, fullwidth)).toBe(1);
    expect(compareUtf8(fullwidth, emoji)).toBe(-1);
    // After a surrogate pair (or U+FFFF, one unit) both strings go on at the next character.
    expect(compareUtf8(`a${emoji}b`, `a${emoji}c`)).toBe(-1);
    expect(compareUtf8(`${emoji}c`, `${emoji}b`)).toBe(1);
    expect(compareUtf8('\uFFFFa', '\uFFFFb')).toBe(-1);
    expect(compareUtf8('\uFFFFb', '\uFFFFa')).toBe(1);
    expect(compareUtf8(`${emoji}a`, `${emoji}a`)).toBe(0);
    expect(compareUtf8(emoji, `${emoji}a`)).toBe(-1);
  });

  it('compareUtf8 is the order of the UTF-8 bytes, for any strings', () => {
    const bytes = (s: string) => [...Buffer.from(s, 'utf8')];
    const byteOrder = (a: string, b: string) => {
      const x = bytes(a);
      const y = bytes(b);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    };
    const str = fc.string({
      unit: fc.constantFrom('a', 'b', '\uFFFF', '\uFF21', '\u{1F600}', '\u{10000}', 'é'),
      maxLength: 4,
    });
    fc.assert(
      fc.property(str, str, (a, b) => compareUtf8(a, b) === byteOrder(a, b)),
      { numRuns: 300 },
    );
  });
});

describe('sortMembers', () => {
  const m = (memberId: string, groupInstanceId?: string) => ({ memberId, groupInstanceId });

  it('java: static members first by instance id, then dynamic members by member id', () => {
    const sorted = sortMembers([m('d'), m('a', 'z'), m('c'), m('b', 'y'), m('e', 'y')], 'java');
    expect(sorted.map((x) => x.memberId)).toEqual(['b', 'e', 'a', 'c', 'd']);
  });

  it('java: a static member comes before a dynamic one whichever is compared first, whatever their member ids', () => {
    const java = memberComparator('java');
    expect(java(m('z', 'i'), m('a'))).toBe(-1);
    expect(java(m('a'), m('z', 'i'))).toBe(1);
    // Two dynamic members, or two static ones with one instance id: by member id.
    expect(java(m('a'), m('b'))).toBe(-1);
    expect(java(m('b', 'i'), m('a', 'i'))).toBe(1);
  });

  it('librdkafka: instance ids only between two static members, else member ids, in UTF-8 order', () => {
    const sorted = sortMembers([m('b', 'x'), m('a', 'y'), m('\u{1F600}'), m('\uFF21')], 'librdkafka');
    expect(sorted.map((x) => x.memberId)).toEqual(['b', 'a', '\uFF21', '\u{1F600}']);
    expect(sortMembers([m('\u{1F600}'), m('\uFF21')], 'java').map((x) => x.memberId)).toEqual([
      '\u{1F600}',
      '\uFF21',
    ]);
  });
});

describe('IndexedHeap', () => {
  it('peeks the first item by its key, follows key changes, removes any item', () => {
    const key = [5, 3, 8, 1, 9, 2];
    const heap = new IndexedHeap(6, (a, b) => key[a]! < key[b]! || (key[a] === key[b] && a < b));
    expect(() => heap.peek()).toThrow('peek on an empty heap');
    for (let i = 0; i < 6; i++) heap.push(i);
    expect(heap.size).toBe(6);
    expect(heap.peek()).toBe(3);
    expect(heap.has(3)).toBe(true);
    heap.remove(3);
    expect(heap.has(3)).toBe(false);
    expect(heap.size).toBe(5);
    expect(heap.peek()).toBe(5);
    heap.remove(3); // not in it: nothing happens
    expect(heap.size).toBe(5);
    key[4] = 0;
    heap.update(4);
    expect(heap.peek()).toBe(4);
    key[4] = 100;
    heap.update(4);
    expect(heap.peek()).toBe(5);
    heap.update(3); // not in it: ignored
    expect(heap.has(3)).toBe(false);
    expect(heap.has(0)).toBe(true);
  });

  it('always peeks the item with the smallest key, whatever the pushes, removals and key changes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), item: fc.nat({ max: 11 }) }),
      fc.record({ kind: fc.constant('remove' as const), item: fc.nat({ max: 11 }) }),
      fc.record({
        kind: fc.constant('key' as const),
        item: fc.nat({ max: 11 }),
        value: fc.integer({ min: -20, max: 20 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 12, maxLength: 12 }),
        fc.array(op, { maxLength: 60 }),
        (keys, ops) => {
          const before = (a: number, b: number) => keys[a]! < keys[b]! || (keys[a] === keys[b] && a < b);
          const heap = new IndexedHeap(12, before);
          const inside = new Set<number>();
          for (const o of ops) {
            if (o.kind === 'push') {
              if (inside.has(o.item)) continue;
              heap.push(o.item);
              inside.add(o.item);
            } else if (o.kind === 'remove') {
              heap.remove(o.item);
              inside.delete(o.item);
            } else {
              keys[o.item] = o.value;
              heap.update(o.item);
            }
            expect(heap.size).toBe(inside.size);
            for (let i = 0; i < 12; i++) expect(heap.has(i)).toBe(inside.has(i));
            if (inside.size > 0) {
              const best = [...inside].reduce((a, b) => (before(b, a) ? b : a));
              expect(heap.peek()).toBe(best);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('input checks', () => {
  const bad: [string, unknown, string][] = [
    ['no input', null, 'assign input must be an object'],
    ['a string input', 'x', 'assign input must be an object'],
    [
      'null partitionsPerTopic',
      { partitionsPerTopic: null, members: [] },
      'partitionsPerTopic must be an object',
    ],
    [
      'a number for partitionsPerTopic',
      { partitionsPerTopic: 3, members: [] },
      'partitionsPerTopic must be an object',
    ],
    ['members not an array', { partitionsPerTopic: {}, members: {} }, 'members must be an array'],
    ['a null member', { partitionsPerTopic: {}, members: [null] }, 'every member needs a string memberId'],
    ['a string member', { partitionsPerTopic: {}, members: ['m'] }, 'every member needs a string memberId'],
    [
      'a numeric memberId',
      { partitionsPerTopic: {}, members: [{ memberId: 1, topics: [] }] },
      'every member needs a string memberId',
    ],
    [
      'topics not an array',
      { partitionsPerTopic: {}, members: [{ memberId: 'm', topics: 't' }] },
      "topics of member 'm' must be an array of strings",
    ],
    [
      'a numeric topic',
      { partitionsPerTopic: {}, members: [{ memberId: 'm', topics: ['t', 2] }] },
      "topics of member 'm' must be an array of strings",
    ],
    [
      'a numeric groupInstanceId',
      { partitionsPerTopic: {}, members: [{ memberId: 'm', topics: [], groupInstanceId: 5 }] },
      "groupInstanceId of member 'm' must be a string",
    ],
    [
      'more partitions than a Java int',
      { partitionsPerTopic: { t: 2 ** 31 }, members: [] },
      "partition count of topic 't'",
    ],
  ];
  for (const [what, input, message] of bad) {
    it(`rejects ${what} with a clear message`, () => {
      for (const a of Object.values(assignors)) expect(() => a.assign(input as AssignInput)).toThrow(message);
    });
  }

  it('accepts a null groupInstanceId and the largest Java int of partitions', () => {
    const space = buildSpace({
      partitionsPerTopic: { t: 2 ** 31 - 1 },
      members: [{ memberId: 'm', topics: ['t'], groupInstanceId: null as unknown as undefined }],
    });
    expect(space.totalPartitions).toBe(2 ** 31 - 1);
    expect(space.members[0]!.groupInstanceId).toBeUndefined();
  });
});

describe('claims and results', () => {
  it('a claim that is not a partition of the assignment names none', () => {
    const space = buildSpace({ partitionsPerTopic: { t: 2 }, members: [] });
    for (const tp of [
      null,
      'x',
      { topic: 'u', partition: 0 },
      { topic: 't', partition: 2 },
      { topic: 't', partition: -1 },
      { topic: 't', partition: 0.5 },
    ])
      expect(partitionId(space, tp as never), JSON.stringify(tp)).toBe(-1);
    expect(partitionId(space, { topic: 't', partition: 1 })).toBe(1);
    // The sticky assignors ignore such claims.
    for (const a of [assignors.sticky, assignors.cooperativeSticky]) {
      const r = a.assign({
        partitionsPerTopic: { t: 2 },
        members: [
          {
            memberId: 'm',
            topics: ['t'],
            ownedPartitions: [null as never, { topic: 't', partition: 1 }],
            generation: 1,
          },
        ],
      });
      expect(r.m).toEqual([
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ]);
    }
  });

  it('the result is a plain object the caller may change: every member a writable, deletable key', () => {
    const space = buildSpace({
      partitionsPerTopic: { t: 3 },
      members: [
        { memberId: 'a', topics: ['t'] },
        { memberId: 'b', topics: ['t'] },
      ],
    });
    const r = toAssignment(space, [[2, 0], []]);
    expect(r).toEqual({
      a: [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 2 },
      ],
      b: [],
    });
    r.b = [{ topic: 't', partition: 1 }];
    expect(r.b).toHaveLength(1);
    delete (r as Record<string, unknown>).a;
    expect(Object.keys(r)).toEqual(['b']);
    // A member without a list gets an empty one.
    expect(toAssignment(space, [[1]])).toEqual({ a: [{ topic: 't', partition: 1 }], b: [] });
  });
});
