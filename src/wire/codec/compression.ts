// The compression codecs of a record batch's attributes bits 0-2 (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). The
// broker only decompresses (to validate and count records; what it stores and serves is the client's own bytes),
// and writes batches it builds uncompressed. gzip is Node's zlib; snappy (Kafka's xerial framing, as the Java
// client and librdkafka write it, or a bare block), lz4 (the LZ4 frame format, KIP-57) and zstd are pure-JS
// packages: snappyjs, lz4js, fzstd. No mainstream client compresses by default (kafkajs, librdkafka and the Java
// client all default to none), so these serve clients configured with compression.type / compression.codec.
import { gunzipSync } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { decompressBound as lz4Bound, decompress as lz4Decompress } from 'lz4js';
import { uncompress as snappyUncompress } from 'snappyjs';
import { WireDecodeError } from './bytes.ts';

export const COMPRESSION_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type CompressionName = (typeof COMPRESSION_NAMES)[number];

/** Decompressed record data larger than this is refused (a decompression bomb, not a batch). */
export const MAX_DECOMPRESSED_BYTES = 128 * 1024 * 1024;

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);

function snappy(data: Buffer): Buffer {
  if (data.length < 16 || !data.subarray(0, 8).equals(XERIAL_MAGIC))
    return Buffer.from(snappyUncompress(data, MAX_DECOMPRESSED_BYTES));
  const parts: Buffer[] = [];
  let total = 0;
  let at = 16;
  while (at < data.length) {
    if (at + 4 > data.length) throw new WireDecodeError('snappy: truncated xerial block length');
    const n = data.readInt32BE(at);
    at += 4;
    if (n < 0 || at + n > data.length) throw new WireDecodeError('snappy: xerial block runs past the data');
    const part = Buffer.from(snappyUncompress(data.subarray(at, at + n), MAX_DECOMPRESSED_BYTES - total));
    total += part.length;
    parts.push(part);
    at += n;
  }
  return Buffer.concat(parts, total);
}

/** The records section of a batch, decompressed. */
export function decompress(codec: number, data: Buffer): Buffer {
  try {
    switch (codec) {
      case 0:
        return data;
      case 1:
        return gunzipSync(data, { maxOutputLength: MAX_DECOMPRESSED_BYTES });
      case 2:
        return snappy(data);
      case 3: {
        const bound = lz4Bound(data);
        if (!(bound >= 0 && bound <= MAX_DECOMPRESSED_BYTES))
          throw new WireDecodeError(`lz4: a frame of up to ${bound} bytes is too large`);
        return Buffer.from(lz4Decompress(data, bound));
      }
      case 4: {
        const out = zstdDecompress(data);
        if (out.length > MAX_DECOMPRESSED_BYTES)
          throw new WireDecodeError('zstd: decompressed data too large');
        return Buffer.from(out.buffer, out.byteOffset, out.length);
      }
      default:
        throw new WireDecodeError(`unknown compression codec ${codec}`);
    }
  } catch (e) {
    if (e instanceof WireDecodeError) throw e;
    throw new WireDecodeError(`${COMPRESSION_NAMES[codec] ?? codec}: ${(e as Error).message}`);
  }
}
