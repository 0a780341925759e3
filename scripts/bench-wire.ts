// Benchmark of the Kafka listener (issue 16): kafkajs produce throughput against `kafkasim serve --kafka-port`
// (records/s, p50/p99 latency of a send), and the simulation's own cost per wire request (decode, model, encode,
// request log) measured in process. Run: npx tsx scripts/bench-wire.ts [sends] [recordsPerSend]
import { Kafka, logLevel } from 'kafkajs';
import { startServer } from '../src/api/server.ts';
import { createCluster } from '../src/index.ts';
import { encodeRequest } from '../src/wire/codec/frame.ts';
import { writeBatch } from '../src/wire/codec/record-batch.ts';
import { WireSession } from '../src/wire/session.ts';

const sends = Number(process.argv[2] ?? 2000);
const perSend = Number(process.argv[3] ?? 100);

async function overTcp(): Promise<void> {
  const server = await startServer({ world: { seed: 1, brokers: 3 }, port: 0, kafka: { kafkaPort: 0 } });
  const kafka = new Kafka({
    clientId: 'bench',
    brokers: server.kafka!.bootstrap.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [{ topic: 'bench', numPartitions: 6, replicationFactor: 3 }],
    waitForLeaders: true,
  });
  const producer = kafka.producer();
  await producer.connect();
  const value = Buffer.alloc(100, 'x');
  const lat: number[] = [];
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < sends; i++) {
    const s = performance.now();
    await producer.send({
      topic: 'bench',
      acks: 1,
      messages: Array.from({ length: perSend }, () => ({ value })),
    });
    lat.push(performance.now() - s);
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!.toFixed(2);
  console.log(
    `kafkajs over TCP, acks=1, ${sends} sends x ${perSend} x 100 B, one producer awaiting each send, --speed 1: ` +
      `${Math.round((sends * perSend) / wall)} records/s, ${Math.round(sends / wall)} sends/s, ` +
      `latency p50 ${q(0.5)} ms p99 ${q(0.99)} ms; process CPU ${(((cpu.user + cpu.system) / 1e6 / wall) * 100).toFixed(0)}%; ` +
      `request log ${server.host.log.length} entries`,
  );
  await producer.disconnect();
  await admin.disconnect();
  await server.close();
}

function inProcess(): void {
  const cluster = createCluster({ seed: 1, brokers: 3 });
  cluster.admin.createTopic({ name: 'bench', partitions: 6, replicationFactor: 3 });
  cluster.runFor('2s');
  const session = new WireSession(cluster, { clusterId: 'bench', addressOf: () => ({ host: 'h', port: 1 }) });
  session.connect('1', cluster.image.topics.bench!.partitions[0]!.leader);
  const records = Array.from({ length: perSend }, () => ({ key: null, value: Buffer.alloc(100, 'x') }));
  const n = 20_000;
  const frames = Array.from({ length: n }, (_, i) =>
    encodeRequest(0, 7, i, 'bench', {
      transactionalId: null,
      acks: 1,
      timeoutMs: 30000,
      topicData: [
        {
          name: 'bench',
          partitionData: [
            {
              index: 0,
              records: Buffer.from(
                writeBatch({
                  baseOffset: 0,
                  partitionLeaderEpoch: -1,
                  baseTimestamp: i,
                  producerId: -1,
                  producerEpoch: -1,
                  baseSequence: -1,
                  records,
                }),
              ),
            },
          ],
        },
      ],
    }).subarray(4),
  );
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    session.receive('1', frames[i]!);
    if (i % 50 === 49) cluster.runFor(5);
  }
  cluster.runFor('1s');
  const us = ((performance.now() - t0) * 1000) / n;
  console.log(
    `in process: ${us.toFixed(1)} us of CPU per Produce request of ${perSend} records (decode, CRC, model, encode), ${n} requests`,
  );
}

inProcess();
await overTcp();
