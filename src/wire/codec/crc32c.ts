// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of Kafka's magic-2 record batches
// (KIP-98; org.apache.kafka.common.utils.Crc32C). Table-driven, eight bytes a step (slicing-by-8).

const POLY = 0x82f63b78;
const TABLES: Uint32Array[] = [];
{
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t0[n] = c >>> 0;
  }
  TABLES.push(t0);
  for (let s = 1; s < 8; s++) {
    const prev = TABLES[s - 1]!;
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) t[n] = ((prev[n]! >>> 8) ^ t0[prev[n]! & 0xff]!) >>> 0;
    TABLES.push(t);
  }
}
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

/** CRC-32C of bytes[start, end). */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const a =
      (crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    crc =
      T7[a & 0xff]! ^
      T6[(a >>> 8) & 0xff]! ^
      T5[(a >>> 16) & 0xff]! ^
      T4[a >>> 24]! ^
      T3[bytes[i + 4]!]! ^
      T2[bytes[i + 5]!]! ^
      T1[bytes[i + 6]!]! ^
      T0[bytes[i + 7]!]!;
  }
  for (; i < end; i++) crc = T0[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
