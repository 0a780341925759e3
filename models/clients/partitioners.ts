// Key-to-partition functions of the two client families the simulator models.
//
// Java (`KafkaProducer.partition` / `BuiltInPartitioner`): a non-null key goes to
// `toPositive(murmur2(key)) % numPartitions`, over *all* partitions of the topic
// (BuiltInPartitioner.partitionForKey). librdkafka's default `consistent_random` partitioner goes to
// `crc32(key) % partition_cnt` for a non-empty key (src/rdkafka_msg.c, `rd_kafka_msg_partitioner_consistent`),
// so the same key usually lands on a different partition than with a Java producer.
// Null-key stickiness (KIP-794 in Java, sticky.partitioning.linger.ms in librdkafka) is the producer's job (it
// needs batch state and a random stream); the choice of the next sticky partition is here.

const MURMUR2_SEED = 0x9747b28c;
const MURMUR2_M = 0x5bd1e995;
const MURMUR2_R = 24;

/**
 * Kafka's `Utils.murmur2`: MurmurHash2 (32-bit) with Kafka's seed, returning a signed 32-bit integer
 * like Java's `int`. Math.imul and `| 0` reproduce Java's wrapping int arithmetic.
 */
export function murmur2(bytes: Uint8Array): number {
  const length = bytes.length;
  let h = MURMUR2_SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = bytes[i4]! | (bytes[i4 + 1]! << 8) | (bytes[i4 + 2]! << 16) | (bytes[i4 + 3]! << 24);
    k = Math.imul(k, MURMUR2_M);
    k ^= k >>> MURMUR2_R;
    k = Math.imul(k, MURMUR2_M);
    h = Math.imul(h, MURMUR2_M) ^ k;
  }
  // Java's switch falls through from case 3 to case 1; the ifs below are the same cascade.
  const tail = length & ~3;
  const remaining = length & 3;
  if (remaining === 3) h ^= bytes[tail + 2]! << 16;
  if (remaining >= 2) h ^= bytes[tail + 1]! << 8;
  if (remaining >= 1) {
    h ^= bytes[tail]!;
    h = Math.imul(h, MURMUR2_M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, MURMUR2_M);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not Math.abs, so Integer.MIN_VALUE maps to 0). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

function checkPartitionCount(numPartitions: number): void {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0) {
    throw new Error(`numPartitions must be a positive integer, got ${numPartitions}`);
  }
}

/** The Java producer's partition for a non-null key (librdkafka's `murmur2_random` gives the same). */
export function javaKeyPartition(key: Uint8Array, numPartitions: number): number {
  checkPartitionCount(numPartitions);
  return toPositive(murmur2(key)) % numPartitions;
}

const CRC32_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** IEEE CRC-32 (reflected polynomial 0xEDB88320), as zlib's crc32 and librdkafka's `rd_crc32`; unsigned. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC32_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * librdkafka's `consistent` partitioner, which `consistent_random` (the default) uses for non-empty keys.
 * The CRC is unsigned in C (`rd_crc32_t` is uint32_t), so there is no sign masking, unlike Java.
 * An empty key hashes to 0 here, as with plain `consistent`; for `consistent_random` semantics use
 * {@link librdkafkaConsistentRandomPartition}, which leaves the random choice to the caller.
 */
export function librdkafkaConsistentPartition(key: Uint8Array, numPartitions: number): number {
  checkPartitionCount(numPartitions);
  return crc32(key) % numPartitions;
}

/**
 * librdkafka's default `consistent_random`: a null or empty key (`keylen == 0`) gets a random partition,
 * any other key `crc32(key) % numPartitions`. `randomPartition` is only called for null/empty keys; the
 * caller supplies it from a seeded stream (and applies librdkafka's null-key stickiness if it models it).
 */
export function librdkafkaConsistentRandomPartition(
  key: Uint8Array | null | undefined,
  numPartitions: number,
  randomPartition: (numPartitions: number) => number,
): number {
  checkPartitionCount(numPartitions);
  if (key == null || key.length === 0) return randomPartition(numPartitions);
  return crc32(key) % numPartitions;
}

/**
 * The next sticky partition for keyless records (KIP-794's switch): uniformly, by `draw` in [0, 1), one of the
 * partitions with a known leader (`available`, ascending) other than `current`, or of all `count` partitions
 * when none has a known leader. The same choice as picking from a copy of the list without `current`, without
 * the copy (the producer makes it at every batch switch).
 */
export function nextStickyPartition(
  available: readonly number[],
  count: number,
  current: number | undefined,
  draw: number,
): number {
  if (available.length === 0) {
    const except = current !== undefined && count > 1 && current < count ? current : -1;
    const k = Math.floor(draw * (except >= 0 ? count - 1 : count));
    return except >= 0 && k >= except ? k + 1 : k;
  }
  const j = current !== undefined && available.length > 1 ? sortedIndexOf(available, current) : -1;
  const k = Math.floor(draw * (j >= 0 ? available.length - 1 : available.length));
  return available[j >= 0 && k >= j ? k + 1 : k]!;
}

/** Index of `value` in an ascending list, -1 when absent. */
function sortedIndexOf(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = list[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
