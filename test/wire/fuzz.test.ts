// Bad bytes on the Kafka port: random bytes, truncated frames, huge and negative sizes, unknown API keys, wrong
// versions, garbage bodies. Each connection is closed or answered with an error; the server keeps serving; the
// cluster (metadata, logs, groups) is exactly as before, and the simulation never halts.
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Reader } from '../../src/wire/codec/bytes.ts';
import { decodeResponse, encodeRequest } from '../../src/wire/codec/frame.ts';
import { type WireServer, wireServer } from './fixture.ts';

let s: WireServer;
beforeAll(async () => {
  s = await wireServer({ seed: 5, brokers: 2 }, 1);
  await s.http('POST', `/v3/clusters/${s.clusterId}/topics`, {
    topic_name: 'kept',
    partitions_count: 2,
    replication_factor: 2,
  });
});
afterAll(async () => {
  await s?.close();
});

/** Sends bytes, half-closes, and resolves with what came back and whether the server closed first. */
function exchange(
  bytes: Buffer,
  port: number,
  waitMs = 1500,
): Promise<{ data: Buffer; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      sock.destroy();
    }, waitMs);
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ data: Buffer.concat(chunks), closedByServer });
    });
    sock.write(bytes);
  });
}

const state = () => {
  const c = s.server.host.cluster;
  return JSON.stringify({
    topics: c.image.topics,
    offsets: c.partitionLogs().map((l) => [l.logStartOffset, l.logEndOffset, l.highWatermark]),
    groups: c.listGroups(),
  });
};

const frame = (body: Buffer) => {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
};
const header = (apiKey: number, version: number, correlationId = 1) => {
  const b = Buffer.alloc(10);
  b.writeInt16BE(apiKey, 0);
  b.writeInt16BE(version, 2);
  b.writeInt32BE(correlationId, 4);
  b.writeInt16BE(-1, 8); // null client id
  return b;
};

it('random bytes, truncated frames, huge sizes and wrong versions close the connection or get an error', async () => {
  const port = Number(s.bootstrap[0]!.split(':')[1]);
  const before = state();

  // A size beyond socket.request.max.bytes, and a negative one: closed at once.
  for (const size of [0x7fffffff, 104_857_601, -1]) {
    const b = Buffer.alloc(8);
    b.writeInt32BE(size, 0);
    const r = await exchange(b, port);
    expect(r.closedByServer, `size ${size}`).toBe(true);
    expect(r.data.length).toBe(0);
  }
  // Unknown API key, a version beyond any definition, a known API at a version this listener does not serve.
  for (const [key, version] of [
    [999, 0],
    [3, 99],
    [0, 2],
    [3, 0],
  ] as const) {
    const r = await exchange(frame(header(key, version)), port);
    expect(r.closedByServer, `api ${key} v${version}`).toBe(true);
  }
  // ApiVersions at an unknown version: answered v0 with UNSUPPORTED_VERSION and the supported ranges (KIP-511).
  {
    const r = await exchange(frame(header(18, 77, 42)), port, 500);
    const size = r.data.readInt32BE(0);
    const { correlationId, body } = decodeResponse(18, 0, r.data.subarray(4, 4 + size));
    expect(correlationId).toBe(42);
    expect(body.errorCode).toBe(35);
    expect((body.apiKeys as { apiKey: number }[]).map((k) => k.apiKey)).toContain(0);
  }
  // A valid header with a garbage body, and a frame cut short of its size (the client goes away).
  {
    const r = await exchange(frame(Buffer.concat([header(3, 9), Buffer.from([0xff, 0xff, 0xff])])), port);
    expect(r.closedByServer).toBe(true);
    const cut = frame(header(3, 1)).subarray(0, 9);
    expect((await exchange(cut, port, 300)).data.length).toBe(0);
  }
  // Random bytes, some behind a valid-looking size prefix and API key.
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 120 }), fc.boolean(), async (bytes, framed) => {
      const r = await exchange(framed ? frame(Buffer.from(bytes)) : Buffer.from(bytes), port, 300);
      // Whatever came back parses as whole response frames (an error answer), or nothing did.
      const rd = new Reader(r.data);
      while (rd.remaining >= 4) rd.bytes(rd.int32(), 'response');
      expect(rd.remaining).toBe(0);
    }),
    { numRuns: 60, seed: 16 },
  );

  expect(s.server.host.halted).toBeUndefined();
  expect(state()).toBe(before);
  // The server still serves: a well-formed Metadata request is answered.
  const ok = await exchange(encodeRequest(3, 1, 9, 'after-fuzz', { topics: null }), port, 500);
  const size = ok.data.readInt32BE(0);
  const meta = decodeResponse(3, 1, ok.data.subarray(4, 4 + size)).body as { topics: { name: string }[] };
  expect(meta.topics.map((t) => t.name)).toContain('kept');
  expect(s.log.some((l) => l.includes('malformed request'))).toBe(true);
}, 120_000);
