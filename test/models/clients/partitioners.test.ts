import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  crc32,
  javaKeyPartition,
  librdkafkaConsistentPartition,
  librdkafkaConsistentRandomPartition,
  murmur2,
  toPositive,
} from '../../../models/clients/partitioners.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('murmur2', () => {
  // apache/kafka clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java, testMurmur2.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])('matches Kafka UtilsTest for %j', (key, expected) => {
    expect(murmur2(bytes(key))).toBe(expected);
  });

  // librdkafka tests/0048-partitioner.c, "murmur2" partitioner: the expected values there are
  // toPositive(murmur2(key)), since librdkafka's murmur2 partitioner is Java-compatible.
  it.each([
    ['', 0x106e08d9],
    ['23456', 0x058d780f],
    ['this is another string with more length to it perhaps', 0x4f7703da],
    ['hejsan', 0x5ec19395],
  ])('matches librdkafka 0048-partitioner for %j after toPositive', (key, expected) => {
    expect(toPositive(murmur2(bytes(key)))).toBe(expected);
  });

  it('returns a signed 32-bit integer for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (key) => {
        const h = murmur2(key);
        expect(Number.isInteger(h)).toBe(true);
        expect(h).toBe(h | 0);
      }),
      { numRuns: 200 },
    );
  });
});

describe('toPositive', () => {
  it('clears the sign bit like Utils.toPositive', () => {
    expect(toPositive(-1)).toBe(0x7fffffff);
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(-973932308)).toBe(1173551340);
    expect(toPositive(42)).toBe(42);
  });
});

describe('javaKeyPartition', () => {
  it('is toPositive(murmur2(key)) % numPartitions', () => {
    // toPositive(-790332482) = 1357151166 = 3 * 452383722
    expect(javaKeyPartition(bytes('foobar'), 3)).toBe(0);
    // toPositive(-973932308) = 1173551340; 1173551340 % 10 = 0, % 7 = 3
    expect(javaKeyPartition(bytes('21'), 10)).toBe(0);
    expect(javaKeyPartition(bytes('21'), 7)).toBe(3);
    // 479470107 % 12 = 3
    expect(javaKeyPartition(bytes('abc'), 12)).toBe(3);
    // librdkafka 0048-partitioner: 0x4f7703da % 17 = 1333199834 % 17 = 11
    expect(javaKeyPartition(bytes('this is another string with more length to it perhaps'), 17)).toBe(11);
  });

  it('rejects a non-positive or non-integer partition count', () => {
    expect(() => javaKeyPartition(bytes('k'), 0)).toThrow(/positive integer/);
    expect(() => javaKeyPartition(bytes('k'), 2.5)).toThrow(/positive integer/);
  });
});

describe('crc32', () => {
  it('gives the standard CRC-32 check value', () => {
    expect(crc32(bytes('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  // librdkafka tests/0048-partitioner.c, "consistent" partitioner constants (acquired with `crc32` on OSX).
  it.each([
    ['23456', 0xb1b451d7],
    ['this is another string with more length to it perhaps', 0xb0150df7],
    ['hejsan', 0xd077037e],
  ])('matches librdkafka for %j', (key, expected) => {
    expect(crc32(bytes(key))).toBe(expected);
  });
});

describe('librdkafka partitioners', () => {
  it('consistent is crc32(key) % n without sign masking', () => {
    // 0xb1b451d7 = 2981384663; % 17 = 7 (the high bit is set: masking it, as Java does, would give 15)
    expect(librdkafkaConsistentPartition(bytes('23456'), 17)).toBe(7);
    // 0xd077037e = 3497460606; % 7 = 3 (murmur2 gives 0x5ec19395 % 7 = 6)
    expect(librdkafkaConsistentPartition(bytes('hejsan'), 7)).toBe(3);
    expect(librdkafkaConsistentPartition(new Uint8Array(0), 7)).toBe(0);
  });

  it('consistent and Java murmur2 usually disagree for the same key', () => {
    expect(librdkafkaConsistentPartition(bytes('hejsan'), 7)).not.toBe(javaKeyPartition(bytes('hejsan'), 7));
  });

  it('consistent_random asks the caller only for null and empty keys', () => {
    const calls: number[] = [];
    const pick = (n: number) => {
      calls.push(n);
      return n - 1;
    };
    expect(librdkafkaConsistentRandomPartition(null, 5, pick)).toBe(4);
    expect(librdkafkaConsistentRandomPartition(new Uint8Array(0), 5, pick)).toBe(4);
    expect(librdkafkaConsistentRandomPartition(bytes('hejsan'), 7, pick)).toBe(3);
    expect(calls).toEqual([5, 5]);
  });

  it('always lands inside [0, n)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 1000 }),
        (key, n) => {
          const c = librdkafkaConsistentPartition(key, n);
          const j = javaKeyPartition(key, n);
          expect(c >= 0 && c < n && Number.isInteger(c)).toBe(true);
          expect(j >= 0 && j < n && Number.isInteger(j)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
