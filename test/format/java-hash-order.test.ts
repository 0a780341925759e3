import { describe, expect, it } from 'vitest';
import {
  javaHashOrder,
  javaIntegerHash,
  javaStringHash,
  topicPartitionHash,
} from '../../src/format/index.ts';

// Every expected order below was printed by a JVM (OpenJDK 17) iterating a HashMap/HashSet built the same way:
// Collectors.toMap / Collectors.toSet over the keys in the order given.

const partitionsOf = (topic: string, n: number) =>
  javaHashOrder(
    Array.from({ length: n }, (_, p) => p),
    (p) => topicPartitionHash(topic, p),
  ).join(',');

describe('java hash order', () => {
  it('computes String.hashCode and TopicPartition.hashCode with 32-bit overflow', () => {
    expect(javaStringHash('continuous-self-balancing-topic')).toBe(-1176802696);
    expect(topicPartitionHash('continuous-self-balancing-topic', 7)).toBe(-1176801518);
    expect(javaStringHash('')).toBe(0);
  });

  it('iterates TopicPartition keys in HashMap order, including after a resize', () => {
    expect(partitionsOf('continuous-self-balancing-topic', 8)).toBe('0,1,6,7,2,3,4,5');
    expect(partitionsOf('continuous-self-balancing-topic', 13)).toBe('0,1,6,7,8,9,2,3,4,5,10,11,12');
    expect(partitionsOf('continuous-self-balancing-topic', 16)).toBe('0,1,6,7,8,9,2,3,4,5,14,15,10,11,12,13');
    expect(partitionsOf('t', 8)).toBe('5,4,3,2,1,0,7,6');
    expect(partitionsOf('orders', 13)).toBe('7,8,9,10,11,12,0,1,2,3,4,5,6');
    const mixed = javaHashOrder(
      [
        ['b', 0],
        ['a', 0],
        ['a', 1],
        ['b', 1],
      ] as const,
      ([t, p]) => topicPartitionHash(t, p),
    );
    expect(mixed.map(([t, p]) => `${t}-${p}`)).toEqual(['a-1', 'a-0', 'b-1', 'b-0']);
  });

  it('iterates HashSet<String> and HashSet<Integer> as Java does', () => {
    expect(
      javaHashOrder(
        ['zeta', 'alpha', 'orders', 'payments', 'continuous-self-balancing-topic'],
        javaStringHash,
      ),
    ).toEqual(['zeta', 'continuous-self-balancing-topic', 'alpha', 'payments', 'orders']);
    expect(javaHashOrder([5, 3, 1, 100, 17, 2, 1000], javaIntegerHash)).toEqual([1, 17, 2, 3, 100, 5, 1000]);
  });
});
