// Record batches, magic 2 (KIP-98; org.apache.kafka.common.record.DefaultRecordBatch): the header, the CRC-32C
// over attributes..end, and the records (varint-framed, optionally compressed). The CRC leaves out baseOffset,
// batchLength and partitionLeaderEpoch, so the broker stores a client's batch as it came and patches those three
// when it serves it (`withOffsets`), as Kafka's log does in place.
import { Reader, WireDecodeError, Writer } from './bytes.ts';
import { decompress } from './compression.ts';
import { crc32c } from './crc32c.ts';

export interface WireHeader {
  key: string;
  value: Buffer | null;
}

export interface WireRecord {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: WireHeader[];
}

export interface WireBatch {
  baseOffset: number;
  partitionLeaderEpoch: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  records: WireRecord[];
  /** The batch's bytes exactly as they came. */
  raw: Buffer;
}

/** Bytes before the records: baseOffset .. records count. */
export const BATCH_HEADER_BYTES = 61;
const CRC_START = 21;

export const compressionOf = (attributes: number): number => attributes & 0x07;
export const isTransactional = (attributes: number): boolean => (attributes & 0x10) !== 0;
export const isControl = (attributes: number): boolean => (attributes & 0x20) !== 0;

function readRecord(r: Reader, what: string): WireRecord {
  const length = r.varint(`${what} length`);
  r.need(length, what);
  const end = r.offset + length;
  const sub = new Reader(r.buf, r.offset, end);
  sub.int8(`${what} attributes`);
  const timestampDelta = sub.varlong(`${what} timestampDelta`);
  const offsetDelta = sub.varint(`${what} offsetDelta`);
  const keyLength = sub.varint(`${what} key length`);
  const key = keyLength < 0 ? null : sub.bytes(keyLength, `${what} key`);
  const valueLength = sub.varint(`${what} value length`);
  const value = valueLength < 0 ? null : sub.bytes(valueLength, `${what} value`);
  const headerCount = sub.varint(`${what} header count`);
  if (headerCount < 0 || headerCount > sub.remaining)
    throw new WireDecodeError(`${what}: ${headerCount} headers in ${sub.remaining} bytes`);
  const headers: WireHeader[] = [];
  for (let i = 0; i < headerCount; i++) {
    const kl = sub.varint(`${what} header key length`);
    if (kl < 0) throw new WireDecodeError(`${what}: a header key is null`);
    const k = sub.bytes(kl, `${what} header key`).toString('utf8');
    const vl = sub.varint(`${what} header value length`);
    headers.push({ key: k, value: vl < 0 ? null : sub.bytes(vl, `${what} header value`) });
  }
  if (sub.offset !== end)
    throw new WireDecodeError(`${what}: ${end - sub.offset} bytes left after the record`);
  r.offset = end;
  return { offsetDelta, timestampDelta, key, value, headers };
}

/** Reads one batch at the reader's position (the whole of it must be there). */
export function readBatch(r: Reader): WireBatch {
  const start = r.offset;
  const baseOffset = r.int64('batch baseOffset');
  const batchLength = r.int32('batch length');
  if (batchLength < BATCH_HEADER_BYTES - 12)
    throw new WireDecodeError(`record batch length ${batchLength} is shorter than a batch header`);
  r.need(batchLength, 'record batch');
  const end = r.offset + batchLength;
  const partitionLeaderEpoch = r.int32();
  const magic = r.int8();
  if (magic !== 2) throw new WireDecodeError(`record batch magic ${magic}: only magic 2 is supported`);
  const crc = r.uint32();
  const actual = crc32c(r.buf, start + CRC_START, end);
  if (crc !== actual)
    throw new WireDecodeError(`record batch CRC ${crc.toString(16)} does not match ${actual.toString(16)}`);
  const attributes = r.int16();
  const lastOffsetDelta = r.int32();
  const baseTimestamp = r.int64();
  const maxTimestamp = r.int64();
  const producerId = r.int64();
  const producerEpoch = r.int16();
  const baseSequence = r.int32();
  const count = r.int32('records count');
  if (count < 0 || count > end - r.offset + (compressionOf(attributes) ? MAX_RECORDS : 0))
    throw new WireDecodeError(`record batch claims ${count} records`);
  const body = decompress(compressionOf(attributes), r.buf.subarray(r.offset, end));
  const rr = new Reader(body);
  const records: WireRecord[] = [];
  for (let i = 0; i < count; i++) records.push(readRecord(rr, `record ${i}`));
  if (rr.remaining !== 0) throw new WireDecodeError(`record batch: ${rr.remaining} bytes after its records`);
  r.offset = end;
  return {
    baseOffset,
    partitionLeaderEpoch,
    attributes,
    lastOffsetDelta,
    baseTimestamp,
    maxTimestamp,
    producerId,
    producerEpoch,
    baseSequence,
    records,
    raw: r.buf.subarray(start, end),
  };
}

const MAX_RECORDS = 10_000_000;

/** Every batch of a records field (a Produce request's, or a fetched log slice). */
export function readBatches(records: Uint8Array): WireBatch[] {
  const buf = Buffer.isBuffer(records)
    ? records
    : Buffer.from(records.buffer, records.byteOffset, records.length);
  const r = new Reader(buf);
  const out: WireBatch[] = [];
  while (r.remaining > 0) out.push(readBatch(r));
  return out;
}

/** A stored batch's bytes with the offset and leader epoch the log gave it (the CRC does not cover them). */
export function withOffsets(raw: Uint8Array, baseOffset: number, partitionLeaderEpoch: number): Buffer {
  const b = Buffer.from(raw);
  const hi = Math.floor(baseOffset / 4294967296);
  b.writeInt32BE(hi, 0);
  b.writeUInt32BE(baseOffset - hi * 4294967296, 4);
  b.writeInt32BE(partitionLeaderEpoch, 12);
  return b;
}

export interface BatchInput {
  baseOffset: number;
  partitionLeaderEpoch: number;
  baseTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** Set for a LogAppendTime topic (attributes bit 3). */
  logAppendTime?: boolean;
  records: {
    key: Uint8Array | null;
    value: Uint8Array | null;
    timestampDelta?: number;
    headers?: WireHeader[];
  }[];
}

/** Writes an uncompressed magic-2 batch. */
export function writeBatch(b: BatchInput, w: Writer = new Writer(256)): Buffer {
  const start = w.offset;
  w.int64(b.baseOffset);
  const lengthAt = w.reserve(4);
  w.int32(b.partitionLeaderEpoch);
  w.int8(2);
  const crcAt = w.reserve(4);
  w.int16(b.logAppendTime ? 0x08 : 0);
  w.int32(Math.max(0, b.records.length - 1));
  w.int64(b.baseTimestamp);
  let maxTs = b.baseTimestamp;
  for (const rec of b.records) maxTs = Math.max(maxTs, b.baseTimestamp + (rec.timestampDelta ?? 0));
  w.int64(maxTs);
  w.int64(b.producerId);
  w.int16(b.producerEpoch);
  w.int32(b.baseSequence);
  w.int32(b.records.length);
  const body = new Writer(64);
  b.records.forEach((rec, i) => {
    body.offset = 0;
    body.int8(0);
    body.varlong(rec.timestampDelta ?? 0);
    body.varint(i);
    if (rec.key === null) body.varint(-1);
    else {
      body.varint(rec.key.length);
      body.bytes(rec.key);
    }
    if (rec.value === null) body.varint(-1);
    else {
      body.varint(rec.value.length);
      body.bytes(rec.value);
    }
    const headers = rec.headers ?? [];
    body.varint(headers.length);
    for (const h of headers) {
      const k = Buffer.from(h.key, 'utf8');
      body.varint(k.length);
      body.bytes(k);
      if (h.value === null) body.varint(-1);
      else {
        body.varint(h.value.length);
        body.bytes(h.value);
      }
    }
    w.varint(body.offset);
    w.bytes(body.result());
  });
  const end = w.offset;
  w.buf.writeInt32BE(end - start - 12, lengthAt);
  w.buf.writeUInt32BE(crc32c(w.buf, start + CRC_START, end), crcAt);
  return w.buf.subarray(start, end);
}
