// The request log bounds what a served simulation keeps so that it always replays the run; real clients' frames
// are logged whole, so a busy client fills it. Past the bound the listener closes connections with the reason;
// `serve --request-log-limit` (ServeOptions.requestLogMaxBytes) sets how much it may hold.
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, expect, it } from 'vitest';
import { type RunningServer, requestLogLimitsFor, startServer } from '../../src/api/server.ts';
import { requestLogLimitOf } from '../../src/cli/serve.ts';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves 1 broker with a request log of `maxBytes`, sends `batches` records of 256 KiB, says how many were acked. */
async function produceThrough(maxBytes: number, batches: number): Promise<{ acked: number; log: string[] }> {
  const log: string[] = [];
  server = await startServer({
    world: { seed: 3, brokers: 1 },
    port: 0,
    pacer: { speed: 4 },
    kafka: { kafkaPort: 0, log: (l) => log.push(l) },
    requestLogMaxBytes: maxBytes,
  });
  const kafka = new Kafka({
    clientId: 'bulk',
    brokers: server.kafka!.bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 1, initialRetryTime: 100 },
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'bulk', numPartitions: 1, replicationFactor: 1 }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  let acked = 0;
  try {
    for (let i = 0; i < batches; i++) {
      await producer.send({ topic: 'bulk', acks: 1, messages: [{ value: Buffer.alloc(256 * 1024, i) }] });
      acked++;
    }
  } catch {
    // the listener closed the connection: the log had no room for the request
  }
  await producer.disconnect().catch(() => {});
  return { acked, log };
}

it('a 1 MiB request log takes a few 256 KiB batches, then closes the connection saying why', async () => {
  const { acked, log } = await produceThrough(1024 ** 2, 8);
  expect(acked).toBeGreaterThan(0);
  expect(acked).toBeLessThan(8);
  expect(log.join('\n')).toMatch(/request log is full/);
  expect(server!.host.halted).toBeUndefined();
}, 60_000);

it('with a larger limit the same traffic is taken and logged whole', async () => {
  const { acked, log } = await produceThrough(16 * 1024 ** 2, 8);
  expect(acked).toBe(8);
  expect(log.join('\n')).not.toMatch(/request log is full/);
  expect(server!.host.requestLog().entries.length).toBeGreaterThan(8);
}, 60_000);

it('sizes: bytes or KiB/MiB/GiB, from 1 MiB to 2 GiB; the entry limit grows with the bytes', () => {
  expect(requestLogLimitOf('512MiB')).toBe(512 * 1024 ** 2);
  expect(requestLogLimitOf('1.5 GiB')).toBe(1.5 * 1024 ** 3);
  expect(requestLogLimitOf('1048576')).toBe(1024 ** 2);
  expect(() => requestLogLimitOf('1023KiB')).toThrow(/from 1MiB to 2GiB/);
  expect(requestLogLimitsFor(64 * 1024 ** 2).maxEntries).toBe(1_000_000);
  expect(requestLogLimitsFor(1024 ** 2).maxEntries).toBe(1_000_000);
  expect(requestLogLimitsFor(2 * 1024 ** 3).maxEntries).toBe(32_000_000);
});
