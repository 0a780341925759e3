// The iteration order of a java.util.HashMap / HashSet, because several Kafka tools print rows straight out of
// one (kafka-consumer-groups rows per member, kafka-reassign-partitions "Clearing ... throttles" lists), and
// reproducing the tool's output means reproducing that order.
//
// Facts (OpenJDK java.util.HashMap): default capacity 16, load factor 0.75, the table doubles when size
// exceeds capacity * 0.75; a key's bucket is `(h ^ (h >>> 16)) & (capacity - 1)`; iteration walks buckets
// in index order and each bucket in insertion order (resize keeps that relative order). Not modelled: buckets
// that turn into trees (8+ colliding keys in a table of 64+), which only changes order inside such a bucket.

/** Java's `String.hashCode()` (UTF-16 code units, 32-bit overflow). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `TopicPartition.hashCode()`: `31 * (31 + partition) + topic.hashCode()`. */
export function topicPartitionHash(topic: string, partition: number): number {
  return (Math.imul(31, (31 + partition) | 0) + javaStringHash(topic)) | 0;
}

/** Java's `Integer.hashCode()` is the value itself. */
export function javaIntegerHash(n: number): number {
  return n | 0;
}

function capacityFor(size: number): number {
  let capacity = 16;
  while (size > capacity * 0.75) capacity *= 2;
  return capacity;
}

/**
 * The order in which a HashMap built by inserting `keys` in the given order (distinct keys) iterates them.
 */
export function javaHashOrder<T>(keys: readonly T[], hashCode: (key: T) => number): T[] {
  const mask = capacityFor(keys.length) - 1;
  return keys
    .map((key, insertion) => {
      const h = hashCode(key);
      return { key, insertion, bucket: (h ^ (h >>> 16)) & mask };
    })
    .sort((a, b) => a.bucket - b.bucket || a.insertion - b.insertion)
    .map((e) => e.key);
}
