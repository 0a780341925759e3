// Primitive reads and writes of Kafka's wire types (https://kafka.apache.org/protocol#protocol_types): big-endian
// fixed-width integers, unsigned varints (compact lengths, tagged fields), zigzag varints and varlongs (records).
// A read past the end, or a length larger than what is left, throws WireDecodeError naming the field: bytes from
// a socket never make the codec allocate more than they hold.

import { ExitCode, KafkasimError } from '../../../models/sim/index.ts';

export class WireDecodeError extends KafkasimError {
  readonly code = 'WIRE_DECODE_FAILED';
  readonly exitCode = ExitCode.invalidInput;
  constructor(message: string) {
    super(message);
    this.name = 'WireDecodeError';
  }
}

const TWO_32 = 4294967296;

export class Reader {
  offset: number;
  readonly end: number;

  constructor(
    readonly buf: Buffer,
    offset = 0,
    end = buf.length,
  ) {
    this.offset = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  need(n: number, what: string): void {
    if (n < 0 || this.offset + n > this.end)
      throw new WireDecodeError(
        `${what}: needs ${n} bytes at offset ${this.offset}, only ${this.end - this.offset} left`,
      );
  }

  int8(what = 'int8'): number {
    this.need(1, what);
    return this.buf.readInt8(this.offset++);
  }
  uint8(what = 'uint8'): number {
    this.need(1, what);
    return this.buf[this.offset++]!;
  }
  int16(what = 'int16'): number {
    this.need(2, what);
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  uint16(what = 'uint16'): number {
    this.need(2, what);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  int32(what = 'int32'): number {
    this.need(4, what);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  uint32(what = 'uint32'): number {
    this.need(4, what);
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  /** int64 as a JS number (exact within ±2^53, which offsets, timestamps and producer ids stay in). */
  int64(what = 'int64'): number {
    this.need(8, what);
    const hi = this.buf.readInt32BE(this.offset);
    const lo = this.buf.readUInt32BE(this.offset + 4);
    this.offset += 8;
    return hi * TWO_32 + lo;
  }
  float64(what = 'float64'): number {
    this.need(8, what);
    const v = this.buf.readDoubleBE(this.offset);
    this.offset += 8;
    return v;
  }
  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    const b = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return b;
  }
  /** Unsigned LEB128 varint, at most 5 bytes (32 bits). */
  uvarint(what = 'varint'): number {
    let v = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const b = this.uint8(what);
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
    }
    throw new WireDecodeError(`${what}: varint longer than 5 bytes at offset ${this.offset}`);
  }
  /** Zigzag-encoded signed varint (record fields). */
  varint(what = 'varint'): number {
    const u = this.uvarint(what);
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }
  /** Zigzag-encoded signed varlong, at most 10 bytes (exact within ±2^53). */
  varlong(what = 'varlong'): number {
    let v = 0;
    for (let shift = 0; shift <= 63; shift += 7) {
      const b = this.uint8(what);
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
    }
    throw new WireDecodeError(`${what}: varlong longer than 10 bytes at offset ${this.offset}`);
  }
}

export class Writer {
  buf: Buffer;
  offset = 0;

  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  private ensure(n: number): void {
    if (this.offset + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.offset + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.offset);
    this.buf = next;
  }

  int8(v: number): void {
    this.ensure(1);
    this.buf.writeInt8(v, this.offset++);
  }
  uint8(v: number): void {
    this.ensure(1);
    this.buf[this.offset++] = v & 0xff;
  }
  int16(v: number): void {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.offset);
    this.offset += 2;
  }
  uint16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.offset);
    this.offset += 2;
  }
  int32(v: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.offset);
    this.offset += 4;
  }
  uint32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v >>> 0, this.offset);
    this.offset += 4;
  }
  int64(v: number): void {
    this.ensure(8);
    const hi = Math.floor(v / TWO_32);
    const lo = v - hi * TWO_32;
    this.buf.writeInt32BE(hi, this.offset);
    this.buf.writeUInt32BE(lo, this.offset + 4);
    this.offset += 8;
  }
  float64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.offset);
    this.offset += 8;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.offset);
    this.offset += b.length;
  }
  uvarint(v: number): void {
    this.ensure(10);
    while (v >= 0x80) {
      this.buf[this.offset++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.offset++] = v;
  }
  varint(v: number): void {
    this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  varlong(v: number): void {
    this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  /** Reserves `n` bytes to fill in later (a length or a CRC); returns their offset. */
  reserve(n: number): number {
    this.ensure(n);
    const at = this.offset;
    this.offset += n;
    return at;
  }
  /** The bytes written so far (a view, not a copy). */
  result(): Buffer {
    return this.buf.subarray(0, this.offset);
  }
}
