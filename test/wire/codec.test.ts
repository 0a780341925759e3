// The generated codec against Apache Kafka's definitions and against kafkajs's own hand-written encoders and
// decoders (a real client's idea of the bytes): every API at every version round-trips (fast-check), kafkajs's
// requests decode to what it meant, our responses decode in kafkajs, record batches (none, gzip, snappy, lz4,
// zstd) cross both ways, and bad bytes fail with a WireDecodeError, never anything else.
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { compress as lz4Compress } from 'lz4js';
import { compress as snappyCompress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { Reader, WireDecodeError, Writer } from '../../src/wire/codec/bytes.ts';
import { crc32c } from '../../src/wire/codec/crc32c.ts';
import { decodeRequest, encodeRequest, encodeResponse } from '../../src/wire/codec/frame.ts';
import { decodeMessage, defaultOf, encodeMessage, type Message } from '../../src/wire/codec/message-codec.ts';
import { readBatches, withOffsets, writeBatch } from '../../src/wire/codec/record-batch.ts';
import { type FieldSchema, inRange, type MessageSchema } from '../../src/wire/codec/schema.ts';
import { API_SCHEMAS } from '../../src/wire/generated/index.ts';

const require = createRequire(import.meta.url);
const kjs = (path: string) => require(`kafkajs/src/protocol/${path}`);

function arbitraryOf(f: FieldSchema, version: number): fc.Arbitrary<unknown> {
  let element: fc.Arbitrary<unknown>;
  switch (f.type) {
    case 'bool':
      element = fc.boolean();
      break;
    case 'int8':
      element = fc.integer({ min: -128, max: 127 });
      break;
    case 'int16':
      element = fc.integer({ min: -32768, max: 32767 });
      break;
    case 'uint16':
      element = fc.integer({ min: 0, max: 65535 });
      break;
    case 'int32':
      element = fc.integer({ min: -2147483648, max: 2147483647 });
      break;
    case 'uint32':
      element = fc.integer({ min: 0, max: 4294967295 });
      break;
    case 'int64':
      element = fc.maxSafeInteger();
      break;
    case 'float64':
      element = fc.double({ noNaN: true });
      break;
    case 'string':
      element = fc.string({ maxLength: 12, unit: 'grapheme' });
      break;
    case 'uuid':
      element = fc
        .uint8Array({ minLength: 16, maxLength: 16 })
        .map((b) => Buffer.from(b).toString('base64url'));
      break;
    case 'bytes':
    case 'records':
      element = fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b));
      break;
    case 'struct':
      element = structArbitrary(f.fields!, version);
      break;
  }
  let a = f.array ? fc.array(element, { maxLength: 3 }) : element;
  if (inRange(version, f.nullable) || (f.type === 'records' && !f.array)) a = fc.option(a, { nil: null });
  return a;
}

function structArbitrary(fields: readonly FieldSchema[], version: number): fc.Arbitrary<Message> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields)
    shape[f.name] =
      inRange(version, f.versions) || inRange(version, f.taggedVersions)
        ? arbitraryOf(f, version)
        : fc.constant(defaultOf(f));
  return fc.record(shape);
}

function roundTrip(schema: MessageSchema, version: number, value: Message): Message {
  const w = new Writer(16);
  encodeMessage(schema, version, value, w);
  const r = new Reader(w.result());
  const back = decodeMessage(schema, version, r);
  expect(r.remaining).toBe(0);
  return back;
}

describe('generated schemas', () => {
  const apis = Object.entries(API_SCHEMAS);

  it('cover every API the listener serves', () => {
    expect(apis.map(([, a]) => a.name).sort()).toEqual(
      [
        'AlterPartitionReassignments',
        'ApiVersions',
        'ConsumerGroupDescribe',
        'ConsumerGroupHeartbeat',
        'CreatePartitions',
        'CreateTopics',
        'DeleteTopics',
        'DescribeCluster',
        'DescribeConfigs',
        'DescribeGroups',
        'Fetch',
        'FindCoordinator',
        'Heartbeat',
        'IncrementalAlterConfigs',
        'InitProducerId',
        'JoinGroup',
        'LeaveGroup',
        'ListGroups',
        'ListOffsets',
        'ListPartitionReassignments',
        'Metadata',
        'OffsetCommit',
        'OffsetFetch',
        'OffsetForLeaderEpoch',
        'Produce',
        'SyncGroup',
      ].sort(),
    );
  });

  for (const [key, api] of apis) {
    it(`${api.name} (key ${key}): every version of request and response round-trips`, () => {
      for (const schema of [api.request, api.response]) {
        for (let v = schema.validVersions[0]; v <= schema.validVersions[1]; v++) {
          fc.assert(
            fc.property(structArbitrary(schema.fields, v), (value) => {
              expect(roundTrip(schema, v, value)).toEqual(value);
            }),
            { numRuns: 15, seed: 16 },
          );
        }
      }
    });
  }
});

describe('against kafkajs (a real client)', () => {
  const request = kjs('request.js');
  const Decoder = kjs('decoder.js');

  async function kafkajsFrame(path: string, args: object, correlationId = 7): Promise<Buffer> {
    const req = kjs(path)(args);
    const enc = await request({ correlationId, clientId: 'kjs', request: req });
    return enc.buffer as Buffer;
  }

  it('Metadata v0..v6 requests decode to the topics kafkajs asked for', async () => {
    for (let v = 0; v <= 6; v++) {
      const frame = await kafkajsFrame(`requests/metadata/v${v}/request.js`, {
        topics: ['orders', 'payments'],
        allowAutoTopicCreation: false,
      });
      const decoded = decodeRequest(frame.subarray(4));
      expect(decoded).toMatchObject({ apiKey: 3, apiVersion: v, correlationId: 7, clientId: 'kjs' });
      expect((decoded.body!.topics as { name: string }[]).map((t) => t.name)).toEqual(['orders', 'payments']);
    }
  });

  it('Produce v3..v7 with gzip: topic, partition and every record (key, value, headers) come through', async () => {
    const Compression = kjs('message/compression/index.js').Types;
    for (const [v, compression] of [
      [3, Compression.None],
      [5, Compression.GZIP],
      [7, Compression.GZIP],
    ] as const) {
      const frame = await kafkajsFrame(`requests/produce/v${v}/request.js`, {
        acks: -1,
        timeout: 30000,
        compression,
        topicData: [
          {
            topic: 'orders',
            partitions: [
              {
                partition: 2,
                firstSequence: 0,
                messages: [
                  { key: 'k1', value: 'v1', headers: { h: 'x' }, timestamp: 1000 },
                  { key: null, value: 'v2', timestamp: 1005 },
                ],
              },
            ],
          },
        ],
      });
      const decoded = decodeRequest(frame.subarray(4));
      expect(decoded.body).toMatchObject({ acks: -1, timeoutMs: 30000 });
      const topic = (decoded.body!.topicData as Message[])[0]!;
      expect(topic.name).toBe('orders');
      const part = (topic.partitionData as Message[])[0]!;
      expect(part.index).toBe(2);
      const [batch] = readBatches(part.records as Uint8Array);
      expect(batch!.attributes & 7).toBe(compression);
      expect(batch!.baseTimestamp).toBe(1000);
      expect(
        batch!.records.map((r) => ({
          key: r.key?.toString() ?? null,
          value: r.value?.toString(),
          ts: batch!.baseTimestamp + r.timestampDelta,
          headers: r.headers.map((h) => [h.key, h.value?.toString()]),
        })),
      ).toEqual([
        { key: 'k1', value: 'v1', ts: 1000, headers: [['h', 'x']] },
        { key: null, value: 'v2', ts: 1005, headers: [] },
      ]);
    }
  });

  it('a Metadata v6 response we write is what kafkajs reads', async () => {
    const frame = encodeResponse(3, 6, 9, {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null }],
      clusterId: 'abc',
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 'orders',
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 1,
              replicaNodes: [1],
              isrNodes: [1],
              offlineReplicas: [],
            },
          ],
        },
      ],
    });
    const { decode, parse } = kjs('requests/metadata/v6/response.js');
    const body = frame.subarray(8); // size and correlation id (response header v0)
    const meta = await parse(await decode(body));
    expect(meta.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null }]);
    expect(meta.topicMetadata[0]).toMatchObject({
      topic: 'orders',
      partitionMetadata: [{ partitionId: 0, leader: 1, replicas: [1], isr: [1] }],
    });
  });

  it('a batch we write decodes in kafkajs, offsets and leader epoch patched after the CRC', async () => {
    const raw = writeBatch({
      baseOffset: 0,
      partitionLeaderEpoch: 0,
      baseTimestamp: 5000,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      records: [
        {
          key: Buffer.from('a'),
          value: Buffer.from('one'),
          headers: [{ key: 'h', value: Buffer.from('1') }],
        },
        { key: null, value: Buffer.from('two'), timestampDelta: 3 },
      ],
    });
    const served = withOffsets(raw, 42, 5);
    const decodeBatch = kjs('recordBatch/v0/decoder.js');
    const batch = await decodeBatch(new Decoder(served));
    expect(batch.firstOffset).toBe('42');
    expect(batch.partitionLeaderEpoch).toBe(5);
    expect(
      batch.records.map((r: { offset: string; key: Buffer | null; value: Buffer; headers: object }) => [
        r.offset,
        r.key?.toString() ?? null,
        r.value.toString(),
      ]),
    ).toEqual([
      ['42', 'a', 'one'],
      ['43', null, 'two'],
    ]);
    // Our reader checks the CRC and gives back the same records.
    const [again] = readBatches(served);
    expect(again!.baseOffset).toBe(42);
    expect(again!.records.map((r) => r.value?.toString())).toEqual(['one', 'two']);
  });
});

describe('record batches', () => {
  it('CRC-32C of "123456789" is e3069283 (the check value)', () => {
    expect(crc32c(Buffer.from('123456789')).toString(16)).toBe('e3069283');
  });

  const recordsBody = (): { batch: Buffer; body: Buffer } => {
    const batch = writeBatch({
      baseOffset: 0,
      partitionLeaderEpoch: 0,
      baseTimestamp: 1,
      producerId: 7,
      producerEpoch: 0,
      baseSequence: 0,
      records: [
        { key: null, value: Buffer.from('x'.repeat(300)) },
        { key: Buffer.from('k'), value: null },
      ],
    });
    return { batch, body: batch.subarray(61) };
  };

  /** The same batch with its records compressed by `codec` (attributes and CRC rewritten). */
  function compressed(codec: number, data: Buffer): Buffer {
    const { batch } = recordsBody();
    const head = Buffer.from(batch.subarray(0, 61));
    const out = Buffer.concat([head, data]);
    out.writeInt32BE(out.length - 12, 8);
    out.writeInt16BE(codec, 21);
    out.writeUInt32BE(crc32c(out, 21, out.length), 17);
    return out;
  }

  const xerial = (block: Uint8Array) => {
    const head = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    const len = Buffer.alloc(4);
    len.writeInt32BE(block.length);
    return Buffer.concat([head, len, Buffer.from(block)]);
  };

  it('reads gzip, snappy (xerial and bare), lz4 and zstd record data', () => {
    const { body } = recordsBody();
    // A zstd frame of the body (single segment, 2-byte content size, one "raw" block), as any encoder may write it.
    const size = body.length - 256;
    const zstd = Buffer.concat([
      Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x60, size & 0xff, size >> 8]),
      Buffer.from([((body.length << 3) | 1) & 0xff, (body.length >> 5) & 0xff, 0]),
      body,
    ]);
    for (const [codec, data] of [
      [1, gzipSync(body)],
      [2, xerial(snappyCompress(body))],
      [2, Buffer.from(snappyCompress(body))],
      [3, Buffer.from(lz4Compress(body))],
      [4, zstd],
    ] as const) {
      const [b] = readBatches(compressed(codec, data));
      expect(b!.records.map((r) => [r.key?.toString() ?? null, r.value?.length ?? null])).toEqual([
        [null, 300],
        ['k', null],
      ]);
    }
  });

  it('bad batches fail with WireDecodeError: CRC, magic, truncation, lying counts, garbage compression', () => {
    const { batch } = recordsBody();
    const flipped = Buffer.from(batch);
    flipped[70] = flipped[70]! ^ 1;
    const magic = Buffer.from(batch);
    magic[16] = 1;
    const count = Buffer.from(batch);
    count.writeInt32BE(1_000_000, 57);
    count.writeUInt32BE(crc32c(count, 21, count.length), 17);
    for (const bad of [flipped, magic, batch.subarray(0, 40), batch.subarray(0, batch.length - 1), count]) {
      expect(() => readBatches(bad)).toThrow(WireDecodeError);
    }
    for (const codec of [1, 2, 3, 4, 5]) {
      expect(() => readBatches(compressed(codec, Buffer.from('not compressed at all')))).toThrow(
        WireDecodeError,
      );
    }
  });
});

describe('frames', () => {
  it('an unknown API key or version is reported with its correlation id, not thrown', () => {
    const frame = Buffer.alloc(10);
    frame.writeInt16BE(999, 0);
    frame.writeInt16BE(0, 2);
    frame.writeInt32BE(1234, 4);
    expect(decodeRequest(frame)).toMatchObject({ apiKey: 999, correlationId: 1234, unsupported: true });
    frame.writeInt16BE(3, 0);
    frame.writeInt16BE(99, 2);
    expect(decodeRequest(frame)).toMatchObject({ apiKey: 3, apiVersion: 99, unsupported: true });
  });

  it('a flexible request (ApiVersions v3, header v2) round-trips, client software in the body', () => {
    const frame = encodeRequest(18, 3, 5, 'rdkafka', {
      clientSoftwareName: 'librdkafka',
      clientSoftwareVersion: '2.0.2',
    });
    expect(decodeRequest(frame.subarray(4))).toMatchObject({
      clientId: 'rdkafka',
      body: { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' },
    });
  });

  it('random bytes never throw anything but WireDecodeError', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom(...Object.keys(API_SCHEMAS)),
        (bytes, key) => {
          const b = Buffer.from(bytes);
          if (b.length >= 4) b.writeInt16BE(Number(key), 0);
          try {
            decodeRequest(b);
          } catch (e) {
            expect(e).toBeInstanceOf(WireDecodeError);
          }
        },
      ),
      { numRuns: 3000, seed: 16 },
    );
  });
});
