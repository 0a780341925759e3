// `kafkasim demo`: a short run of a Kafka cluster, narrated as a teacher would tell it. Three brokers, a topic
// copied to all three, a producer with acks=all; the broker leading a partition dies under load; the controller
// fences it after broker.session.timeout.ms and elects new leaders from the ISR; the producer retries; nothing it
// was told is written is lost; the broker comes back and catches up. Each line says what happens and why, at the
// virtual moment it happens (the controller's own trace events), and the run ends with its trace hash, the same
// for the same seed on any machine, and with what to try next.
import type { TraceEvent } from '../../models/sim/index.ts';
import { createCluster } from '../cluster/index.ts';
import { parseFlags } from './flags.ts';
import type { CliIO } from './io.ts';

export const DEMO_USAGE = `Usage: kafkasim demo [--seed N]

A short narrated run of a simulated Kafka cluster, in virtual time: three brokers, a topic with replication factor
3, a producer with acks=all. The broker that leads a partition crashes under load; the controller fences it and
elects a new leader from the in-sync replicas (ISR); the producer retries; nothing acknowledged is lost; the broker
restarts and catches up. Prints what happens and why, then the run's trace hash (the same for the same seed on any
machine) and what to try next.

Options:
  --seed N    the run's seed (default 42): network latencies and timings vary with it, the guarantees do not
  -h, --help  show this help
`;

const TOPIC = 'orders';
const RECORDS = 10_000;
const RATE = 1_000;
const WIDTH = 100;

/** Wraps `text` to WIDTH columns, the first line after `first`, the rest indented as deep. */
function wrap(first: string, text: string): string {
  const indent = ' '.repeat(first.length);
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > WIDTH && line.trim() !== '') {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += line === indent || line === first ? word : ` ${word}`;
  }
  lines.push(line.trimEnd());
  return `${lines.join('\n')}\n`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(3).padStart(7)} s`;
const list = (ids: readonly number[]) => `[${ids.join(', ')}]`;

export function demoCommand(argv: string[], io: CliIO): number {
  const { values } = parseFlags(
    'demo',
    argv,
    { seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    false,
  );
  if (values.help) {
    io.stdout(DEMO_USAGE);
    return 0;
  }
  const seed = values.seed ?? '42';
  const t0 = performance.now();
  const toolLines: string[] = [];
  const cluster = createCluster({ seed, brokers: 3, storage: 'kafka', out: (line) => toolLines.push(line) });
  // Time 0 is the moment the cluster is up and the topic exists (as in scenarios).
  let origin = 0;
  const say = (text: string) => io.stdout(wrap(`[${seconds(cluster.sim.now - origin)}] `, text));
  const aside = (text: string) => io.stdout(wrap(' '.repeat(12), text));
  const show = (text: string) =>
    io.stdout(`${text.replace(/\t/g, '  ').replace(/^/gm, '      ').trimEnd()}\n`);

  io.stdout(
    `kafkasim demo: a broker dies under load, and Kafka keeps every acknowledged record (seed ${seed})\n\n`,
  );
  cluster.admin.createTopic({
    name: TOPIC,
    partitions: 3,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
  const known = () => {
    try {
      return cluster.describeTopic(TOPIC).includes('Leader');
    } catch {
      return false; // the broker describe asks has not replayed the topic's records yet
    }
  };
  cluster.runUntil(known, {
    timeout: '10s',
    description: `every broker knows topic ${TOPIC}`,
  });
  origin = cluster.sim.now;
  const brokers = Object.keys(cluster.image.brokers).map(Number);
  say(
    `A cluster of ${brokers.length} brokers ${list(brokers)} and a KRaft controller, which keeps the cluster's ` +
      `metadata and decides who leads what. Topic "${TOPIC}" has 3 partitions; each is copied to all 3 brokers ` +
      '(replication factor 3). One copy, the leader, takes the writes; the two followers fetch from it. The ' +
      'copies that are caught up form the ISR, the in-sync replicas.',
  );
  show(cluster.describeTopic(TOPIC));

  const perf = cluster.producerPerfTest({
    topic: TOPIC,
    numRecords: RECORDS,
    throughput: RATE,
    recordSize: 200,
    config: { acks: 'all' },
  });
  say(
    `A producer starts sending ${RECORDS.toLocaleString('en-US')} records at ${RATE.toLocaleString('en-US')}/s ` +
      'with acks=all: a record is acknowledged only when every replica in the ISR has it, and ' +
      'min.insync.replicas=2 refuses writes if fewer than 2 copies are in sync.',
  );
  cluster.runFor('5s');

  const leader = cluster.image.topics[TOPIC]!.partitions[0]!.leader;
  const led = cluster.image.topics[TOPIC]!.partitions.filter((p) => p.leader === leader).map(
    (p) => p.partition,
  );
  const before = cluster.deliveryReport(perf.workload.producer.id).acknowledged;
  say(
    `Broker ${leader}, the leader of ${led.map((p) => `${TOPIC}-${p}`).join(' and ')}, crashes: its process is ` +
      `gone, without a goodbye to anyone. ${before.toLocaleString('en-US')} records are acknowledged so far.`,
  );
  aside(
    "Nobody is told. The followers stop getting answers to their fetches, the producer's requests to it go " +
      'unanswered, and the controller simply stops receiving its heartbeats.',
  );

  const narrate = (e: TraceEvent) => {
    const f = e as TraceEvent & Record<string, unknown>;
    if (e.kind === 'controller.session-expired' && f.brokerId === leader) {
      const last = (f.lastContactMs as number) - origin;
      say(
        `The controller last heard a heartbeat from broker ${leader} at ${(last / 1000).toFixed(1)} s (brokers ` +
          `send one every broker.heartbeat.interval.ms, 2 s). Now broker.session.timeout.ms ` +
          `(${Number(f.sessionTimeoutMs) / 1000} s) has passed without one: it fences the broker, so that no one ` +
          'treats it as alive, and moves leadership away from it.',
      );
    } else if (e.kind === 'controller.elect' && f.topic === TOPIC && f.previousLeader === leader) {
      say(
        `${TOPIC}-${f.partition}: broker ${f.leader} becomes the leader (leader epoch ${f.leaderEpoch}), chosen ` +
          `from the ISR ${list(f.isr as number[])}. It has every acknowledged record, because acks=all waited for it.`,
      );
    } else if (e.kind === 'controller.isr' && f.topic === TOPIC && (f.isr as number[]).includes(leader)) {
      say(
        `${TOPIC}-${f.partition}: broker ${leader} has caught up with the leader and is back in the ISR ` +
          `${list(f.isr as number[])}.`,
      );
    }
  };
  const unsubscribe = cluster.sim.trace.subscribe(narrate);
  cluster.crashBroker(leader);
  cluster.runUntil(() => perf.summary !== undefined, { timeout: '2m', description: 'the producer is done' });
  const retried = toolLines.filter((l) => l.startsWith('WARN')).length;
  const report = cluster.deliveryReport(perf.workload.producer.id);
  say(
    'The producer learnt the new leaders from a metadata refresh and resent what the dead broker never ' +
      `acknowledged${retried > 0 ? ` (${retried} WARN lines, as the real producer logs them)` : ''}. It is done: ` +
      `${report.acknowledged.toLocaleString('en-US')} acknowledged, ${report.lost} lost, ${report.duplicated} ` +
      'duplicated (the idempotent producer lets the broker drop a resent batch it already has).',
  );

  say(
    `Broker ${leader} restarts. It registers with the controller, drops any of its log the new leaders never ` +
      'had, fetches what it missed, and rejoins each ISR once it has caught up.',
  );
  cluster.restartBroker(leader);
  cluster.runUntil(() => cluster.image.topics[TOPIC]!.partitions.every((p) => p.isr.length === 3), {
    timeout: '1m',
    description: `broker ${leader} back in every ISR`,
  });
  unsubscribe();
  cluster.runFor('1s');
  show(cluster.describeTopic(TOPIC));
  say(
    report.lost === 0
      ? 'Nothing acknowledged was lost. With acks=1, or with unclean.leader.election.enable=true, it could be: ' +
          'try `kafkasim run acks1-leader-loss`.'
      : `${report.lost} acknowledged records were lost: that is a bug in the model, please report it with the seed.`,
  );
  const wall = performance.now() - t0;
  io.stdout(
    `\nseed ${seed}: ${cluster.sim.eventCount.toLocaleString('en-US')} events, ${(cluster.sim.now / 1000).toFixed(1)} s ` +
      `virtual in ${(wall / 1000).toFixed(2)} s wall, trace hash ${cluster.sim.trace.hash}\n\n` +
      'Next:\n' +
      '  kafkasim ui broker-failure-rf3    the same story in the browser, one step at a time\n' +
      '  kafkasim list                     the other scenarios (AutoMQ balancing, the Lake, KRaft failures)\n' +
      `  kafkasim demo --seed ${Number(seed) + 1 || 7}           another run: other timings, the same guarantees\n`,
  );
  return report.lost === 0 ? 0 : 1;
}
