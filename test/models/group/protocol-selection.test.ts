// Which coordinator partition a group maps to, and which protocol a group selects by votes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  candidateProtocols,
  javaHashMapOrder,
  javaStringHashCode,
  partitionForGroup,
  selectProtocol,
  supportsProtocols,
} from '../../../models/group/index.ts';

describe('partitionFor (Utils.abs(groupId.hashCode()) % partitions)', () => {
  it('matches java.lang.String.hashCode', () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('Aa')).toBe(javaStringHashCode('BB'));
    // The classic overflow: this string hashes to Integer.MIN_VALUE.
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
  });

  it('maps Integer.MIN_VALUE to partition 0 and others to abs(hash) % n', () => {
    expect(partitionForGroup('polygenelubricants', 50)).toBe(0);
    expect(partitionForGroup('hello', 50)).toBe(99162322 % 50);
    expect(partitionForGroup('roundrobin', 50)).toBe(128548644 % 50);
  });
});

describe('protocol selection by votes', () => {
  const java = { protocols: ['range', 'cooperative-sticky'] };
  const rdkafka = { protocols: ['range', 'roundrobin'] };

  it('Java default and librdkafka default members agree on the only common protocol, range', () => {
    expect([...candidateProtocols([java, rdkafka])]).toEqual(['range']);
    expect(selectProtocol([java, rdkafka, rdkafka])).toBe('range');
  });

  it('each member votes for its first supported candidate; the most votes win', () => {
    const rrFirst = { protocols: ['roundrobin', 'range'] };
    expect(selectProtocol([rrFirst, rrFirst, rdkafka])).toBe('roundrobin');
    expect(selectProtocol([rrFirst, rdkafka, rdkafka])).toBe('range');
  });

  it('breaks a tie in java.util.HashMap iteration order, whatever the member order', () => {
    // Buckets (hash ^ hash >>> 16) & 15: sticky 8, range 9, roundrobin 10.
    expect(javaHashMapOrder(['roundrobin', 'range', 'sticky'])).toEqual(['sticky', 'range', 'roundrobin']);
    const a = { protocols: ['sticky', 'range'] };
    const b = { protocols: ['range', 'sticky'] };
    expect(selectProtocol([a, b])).toBe('sticky');
    expect(selectProtocol([b, a])).toBe('sticky');
  });

  it('has no protocol when members share none, and refuses such a joiner (INCONSISTENT_GROUP_PROTOCOL)', () => {
    const coop = { protocols: ['cooperative-sticky'] };
    expect(selectProtocol([coop, rdkafka])).toBeNull();
    expect(supportsProtocols([rdkafka], ['cooperative-sticky'])).toBe(false);
    expect(supportsProtocols([rdkafka, java], ['roundrobin'])).toBe(false);
    expect(supportsProtocols([rdkafka, java], ['roundrobin', 'range'])).toBe(true);
    expect(supportsProtocols([], ['anything'])).toBe(true);
    expect(supportsProtocols([], [])).toBe(false);
  });

  it('property: the selected protocol is supported by every member and got the most first-choice votes', () => {
    const names = ['range', 'roundrobin', 'sticky', 'cooperative-sticky', 'mine'];
    const member = fc.shuffledSubarray(names, { minLength: 1 }).map((protocols) => ({ protocols }));
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 12 }), (members) => {
        const chosen = selectProtocol(members);
        const candidates = candidateProtocols(members);
        if (candidates.size === 0) return chosen === null;
        if (chosen === null || !members.every((m) => m.protocols.includes(chosen))) return false;
        const votes = new Map<string, number>();
        for (const m of members) {
          const v = m.protocols.find((p) => candidates.has(p))!;
          votes.set(v, (votes.get(v) ?? 0) + 1);
        }
        return votes.get(chosen) === Math.max(...votes.values());
      }),
    );
  });
});
