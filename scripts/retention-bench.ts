// Memory over long virtual runs (issue 20): a cluster writing and reading without pause for hours of virtual time,
// with retention deleting old segments, should hold a bounded amount of memory. One cluster per process; samples
// heap (after a full GC) and RSS every --sample-min virtual minutes and prints one JSON line per sample, then a
// summary line.
//
//   node --expose-gc --import tsx scripts/retention-bench.ts --hours 1
//   node --expose-gc --import tsx scripts/retention-bench.ts --hours 24 --sample-min 60
//   node --expose-gc --import tsx scripts/retention-bench.ts --hours 1 --retention-ms -1   # no retention: grows
//     [--rate 2000] [--tick-ms 10] [--record-size 200] [--partitions 6] [--retention-ms 600000]
//     [--segment-bytes 16777216] [--consumer 0|1] [--svg out.svg]
//   node --import tsx scripts/retention-bench.ts --replot run.jsonl --svg out.svg    # the chart of a saved run
//
// The producer sends rate * tick-ms / 1000 records every tick-ms to the partitions in turn: a longer tick writes the
// same bytes in fewer, larger batches (fewer events per virtual hour), which is how the 24 h run stays in minutes.
//
// The data-plane and kernel invariants run every 10,000 events here (createCluster checks after every event), so
// that 24 h of virtual time takes minutes, not hours.
import { readFileSync, writeFileSync } from 'node:fs';
import { createCluster } from '../src/cluster/index.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v)) throw new Error(`--${name} needs a number, not '${process.argv[i + 1]}'`);
  return v;
}

const hours = arg('hours', 1);
const rate = arg('rate', 2000);
const tickMs = arg('tick-ms', 10);
const recordSize = arg('record-size', 200);
const partitions = arg('partitions', 6);
const retentionMs = arg('retention-ms', 600_000);
const segmentBytes = arg('segment-bytes', 16 * 1024 * 1024);
const sampleMin = arg('sample-min', hours > 4 ? 60 : 5);
const withConsumer = arg('consumer', 1) === 1;
const svgAt = process.argv.indexOf('--svg');
const replotAt = process.argv.indexOf('--replot');
if (replotAt >= 0) {
  // The sample lines of a saved run (the summary line has no virtualMin and is left out).
  const lines = readFileSync(process.argv[replotAt + 1]!, 'utf8').split('\n');
  const saved = lines.filter((l) => l.startsWith('{"virtualMin"')).map((l) => JSON.parse(l) as Sample);
  writeFileSync(process.argv[svgAt + 1]!, chart(saved));
  process.exit(0);
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc, so that heap samples are taken after a full collection');

const c = createCluster({ seed: 20, brokers: 3, invariantEvery: 10_000, traceBufferSize: 0 });
c.admin.createTopic({
  name: 'events',
  partitions,
  replicationFactor: 3,
  configs: {
    'retention.ms': String(retentionMs),
    'segment.bytes': String(segmentBytes),
    'min.insync.replicas': '2',
  },
});
const producer = c.producer('producer', { keepContent: false, config: { acks: -1, 'linger.ms': 5 } });
// `rate` records a second, sent every tick-ms to the partitions in turn.
let partition = 0;
const perTick = (rate * tickMs) / 1000;
let owed = 0;
const tick = () => {
  owed += perTick;
  const n = Math.floor(owed);
  if (n > 0) {
    producer.sendMany('events', n, recordSize, partition);
    partition = (partition + 1) % partitions;
    owed -= n;
  }
  producer.schedule(tickMs, tick, 'bench.load');
};
producer.schedule(0, tick, 'bench.load');
if (withConsumer)
  c.groupConsumer('consumer', {
    groupId: 'readers',
    topics: ['events'],
    config: { 'auto.offset.reset': 'earliest' },
  });

interface Sample {
  virtualMin: number;
  wallS: number;
  events: number;
  heapMiB: number;
  /** V8's heap as reserved from the system (used or not), and memory outside it (buffers, typed arrays). */
  heapTotalMiB: number;
  externalMiB: number;
  rssMiB: number;
  logMiB: number;
  records: number;
}
const samples: Sample[] = [];
const started = performance.now();
const logBytes = () => {
  let bytes = 0;
  for (const b of c.brokers.values()) for (const r of b.replicas.values()) bytes += r.log.sizeBytes;
  return bytes;
};
for (let minute = 0; minute <= hours * 60; minute += sampleMin) {
  if (minute > 0) c.runFor(sampleMin * 60_000);
  gc();
  const mem = process.memoryUsage();
  const s: Sample = {
    virtualMin: minute,
    wallS: Math.round((performance.now() - started) / 100) / 10,
    events: c.sim.eventCount,
    heapMiB: Math.round(mem.heapUsed / 104_857.6) / 10,
    heapTotalMiB: Math.round(mem.heapTotal / 104_857.6) / 10,
    externalMiB: Math.round(mem.external / 104_857.6) / 10,
    rssMiB: Math.round(mem.rss / 104_857.6) / 10,
    logMiB: Math.round(logBytes() / 104_857.6) / 10,
    records: producer.recordsAcked,
  };
  samples.push(s);
  console.log(JSON.stringify(s));
}
const after = samples.filter((s) => s.virtualMin >= 30);
console.log(
  JSON.stringify({
    hours,
    rate,
    tickMs,
    recordSize,
    partitions,
    retentionMs,
    segmentBytes,
    consumer: withConsumer,
    recordsAcked: producer.recordsAcked,
    heapMiBMax: Math.max(...samples.map((s) => s.heapMiB)),
    heapMiBAfter30Min: after.length
      ? [Math.min(...after.map((s) => s.heapMiB)), Math.max(...after.map((s) => s.heapMiB))]
      : [],
    rssMiBMax: Math.max(...samples.map((s) => s.rssMiB)),
    wallS: samples.at(-1)!.wallS,
  }),
);

if (svgAt >= 0) writeFileSync(process.argv[svgAt + 1]!, chart(samples));

/** Heap and RSS (MiB) against virtual hours. */
function chart(points: Sample[]): string {
  const W = 640;
  const H = 300;
  const L = 50;
  const B = 30;
  const maxX = Math.max(...points.map((p) => p.virtualMin)) / 60;
  const maxY = Math.max(...points.map((p) => Math.max(p.rssMiB, p.logMiB))) * 1.1;
  const x = (h: number) => L + ((W - L - 20) * h) / maxX;
  const y = (v: number) => H - B - ((H - B - 20) * v) / maxY;
  const line = (key: 'rssMiB' | 'heapMiB' | 'logMiB', color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points
      .map((p) => `${x(p.virtualMin / 60).toFixed(1)},${y(p[key]).toFixed(1)}`)
      .join(' ')}"/>`;
  const ticks: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (maxY * i) / 4;
    ticks.push(`<text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${Math.round(v)}</text>`);
    const h = (maxX * i) / 4;
    ticks.push(
      `<text x="${x(h)}" y="${H - B + 16}" text-anchor="middle">${h.toFixed(h < 4 ? 2 : 0)} h</text>`,
    );
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    '<title>Memory against virtual hours: RSS, heap after a full GC, and the bytes the logs hold</title>',
    `<line x1="${L}" y1="${H - B}" x2="${W - 20}" y2="${H - B}" stroke="#444"/>`,
    `<line x1="${L}" y1="20" x2="${L}" y2="${H - B}" stroke="#444"/>`,
    ...ticks,
    line('rssMiB', '#c0392b'),
    line('heapMiB', '#2471a3'),
    line('logMiB', '#7d3c98'),
    `<text x="${L + 10}" y="14" fill="#c0392b">RSS (MiB)</text>`,
    `<text x="${L + 90}" y="14" fill="#2471a3">heap after GC (MiB)</text>`,
    `<text x="${L + 220}" y="14" fill="#7d3c98">bytes in the logs, all replicas (MiB of the model's size)</text>`,
    '</svg>',
  ].join('\n');
}
