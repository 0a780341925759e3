// A Jepsen-style nemesis run: three brokers and a KRaft quorum, one topic (RF 3, min.insync.replicas=2), a Java
// and a librdkafka producer writing bursts to every partition, and random faults from the seed (nemesis-faults.ts)
// for a while. Then every fault ends, every node comes back, the cluster settles (the producers have an answer for
// every record, every partition is fully in sync), a consumer reads every partition from the start, and the
// checker (nemesis-check.ts) reports what broke. The data-plane and Raft invariants run after every event too.
//
// One configuration is one promise: `idempotent` and `plain` (acks=all, idempotence on and off) must never lose an
// acknowledged record; `acks1` and `unclean` (acks=1; unclean.leader.election.enable=true) are allowed to, and
// the suite asserts that the checker does find their losses. `retention` is `idempotent` with retention.bytes
// deleting old segments every second through the faults: an acknowledged record may be gone only below the
// partition's log start (deleted, not lost).
import type { Producer } from '../../models/clients/index.ts';
import { InvariantViolation, SimTimeoutError } from '../../models/sim/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';
import { AckLog, Copies, checkLogs } from './nemesis-check.ts';
import { type FaultRecord, Nemesis } from './nemesis-faults.ts';

export interface NemesisConfig {
  readonly acks: -1 | 1;
  readonly idempotence: boolean;
  readonly unclean: boolean;
  /** The topic's min.insync.replicas. */
  readonly minIsr: number;
  /** Whether losing acknowledged records breaks a promise of this configuration. */
  readonly mustNotLose: boolean;
  /** Small segments and retention.bytes, checked every second: old segments are deleted during the faults. */
  readonly retention: boolean;
}

/**
 * Broker settings of every run: a follower leaves the ISR after 4 s out of sync instead of Kafka's 30 s, so that
 * the faults of a short run shrink and expand ISRs (and, with unclean election, leave out-of-sync replicas to
 * elect) as often as long outages do.
 */
const BROKER_CONFIG = { 'replica.lag.time.max.ms': 4000 } as const;

/**
 * The `retention` configuration: a retention check every second from the first, 6 kB segments and 30 kB kept per
 * log (each partition takes ~15 kB/s), so that every replica deletes segments all through the faults and a follower
 * that was down comes back below its leader's log start; after the writes stop each log still holds 30 kB to check.
 */
const RETENTION_BROKER_CONFIG = {
  ...BROKER_CONFIG,
  'log.retention.check.interval.ms': 1000,
  'log.initial.task.delay.ms': 1000,
} as const;
const RETENTION_TOPIC_CONFIG = { 'retention.bytes': '30000', 'segment.bytes': '6000' } as const;

export const NEMESIS_CONFIGS = {
  idempotent: { acks: -1, idempotence: true, unclean: false, minIsr: 2, mustNotLose: true, retention: false },
  plain: { acks: -1, idempotence: false, unclean: false, minIsr: 2, mustNotLose: true, retention: false },
  acks1: { acks: 1, idempotence: false, unclean: false, minIsr: 2, mustNotLose: false, retention: false },
  // Unclean election loses acknowledged records when the ISR had shrunk to members that are all gone: with
  // min.insync.replicas=1 (how clusters that allow it usually run) a leader alone acknowledges.
  unclean: { acks: -1, idempotence: false, unclean: true, minIsr: 1, mustNotLose: false, retention: false },
  retention: { acks: -1, idempotence: true, unclean: false, minIsr: 2, mustNotLose: true, retention: true },
} as const satisfies Record<string, NemesisConfig>;

export type NemesisConfigName = keyof typeof NEMESIS_CONFIGS;

export interface NemesisOptions {
  /** How long faults are injected (virtual ms). Default 20 s. */
  faultMs?: number;
  /** Mean time between two faults (virtual ms). Default 1.5 s. */
  faultEveryMs?: number;
  /** Controllers in the metadata quorum. Default: 3 on odd seeds, 1 on even ones. */
  controllers?: number;
}

export interface NemesisResult {
  config: NemesisConfigName;
  seed: number;
  violations: string[];
  /** Some of the violations are acknowledged records lost. */
  lost: boolean;
  acknowledged: number;
  committed: number;
  faults: FaultRecord[];
  /** Leader elections of a replica outside the ISR (only with unclean.leader.election.enable). */
  uncleanElections: number;
  /** Acknowledged records retention deleted (below their partition's log start at the end). */
  deleted: number;
  /** Followers that found their log end below the leader's log start and started over there. */
  fullTruncations: number;
  virtualMs: number;
  events: number;
  fingerprint: string;
}

const TOPIC = 't';
const PARTITIONS = 2;

const LOSS = / acknowledged records lost /;

/**
 * The violations that break a promise of the run's configuration: all of them where acknowledged records must
 * not be lost; where they may be (acks=1, unclean election), every violation but the losses themselves.
 */
export function brokenPromises(r: NemesisResult): string[] {
  return NEMESIS_CONFIGS[r.config].mustNotLose ? r.violations : r.violations.filter((v) => !LOSS.test(v));
}

/** The command that replays one run and prints its faults and findings. */
export function replayCommand(config: NemesisConfigName, seed: number): string {
  return `npm run nemesis -- --config ${config} --seed ${seed}`;
}

export function runNemesis(
  config: NemesisConfigName,
  seed: number,
  options: NemesisOptions = {},
): NemesisResult {
  const cfg: NemesisConfig = NEMESIS_CONFIGS[config];
  const faultMs = options.faultMs ?? 20_000;
  const c: Cluster = createCluster({
    seed: `nemesis-${config}-${seed}`,
    brokers: 3,
    controllers: options.controllers ?? (seed % 2 === 1 ? 3 : 1),
    traceBufferSize: 0,
    brokerConfig: cfg.retention ? RETENTION_BROKER_CONFIG : BROKER_CONFIG,
    // An unclean election truncates replicas below the high watermark they had: IsrLogsAgree and
    // AcknowledgedInIsr do not hold there, and finding the losses is the checker's job.
    dataPlaneInvariants: !cfg.unclean,
  });
  const violations: string[] = [];
  const faults = new Nemesis(c, c.sim.rng.stream('nemesis'), TOPIC);
  const acks: AckLog[] = [];
  const producers: Producer[] = [];
  let checked = { acknowledged: 0, committed: 0, deleted: 0 };
  let uncleanElections = 0;
  let fullTruncations = 0;
  c.sim.trace.subscribe((e) => {
    if (e.kind === 'controller.elect' && e.unclean === true) uncleanElections++;
    else if (e.kind === 'broker.truncate-fully') fullTruncations++;
  });
  try {
    c.admin.createTopic({
      name: TOPIC,
      partitions: PARTITIONS,
      replicationFactor: 3,
      configs: {
        'min.insync.replicas': String(cfg.minIsr),
        ...(cfg.unclean ? { 'unclean.leader.election.enable': 'true' } : {}),
        ...(cfg.retention ? RETENTION_TOPIC_CONFIG : {}),
      },
    });
    const load = c.sim.rng.stream('nemesis/load');
    for (const flavour of ['java', 'librdkafka'] as const) {
      const name = `${flavour}-producer`;
      const p = c.producer(name, {
        flavour,
        keepContent: false,
        config: {
          acks: cfg.acks,
          'enable.idempotence': cfg.idempotence,
          'request.timeout.ms': 10_000,
          'delivery.timeout.ms': 60_000,
        },
      });
      producers.push(p);
      const log = new AckLog(name, cfg.idempotence);
      acks.push(log);
      p.onDelivery((r) => log.note(r));
      // Bursts of 1..20 records to each partition in turn, every 20..120 ms, while faults happen.
      let partition = 0;
      const burst = () => {
        if (c.now >= faultMs) return;
        p.sendMany(TOPIC, load.int(1, 20), 100, partition);
        partition = (partition + 1) % PARTITIONS;
        p.schedule(load.int(20, 120), burst, 'nemesis.load');
      };
      p.schedule(load.int(0, 50), burst, 'nemesis.load');
    }
    const every = options.faultEveryMs ?? 1500;
    const gaps = c.sim.rng.stream('nemesis/timing');
    const inject = () => {
      if (c.now >= faultMs) return;
      faults.step();
      c.sim.schedule(gaps.exponential(every), inject, 'nemesis.fault');
    };
    c.sim.schedule(gaps.uniform(500, 1500), inject, 'nemesis.fault');
    c.runFor(faultMs);
    faults.healAll();
    settle(c, producers);
    const consumed = readEverything(c);
    const result = checkLogs(c, TOPIC, acks, consumed);
    violations.push(...result.violations);
    checked = result;
  } catch (err) {
    if (err instanceof InvariantViolation || err instanceof SimTimeoutError) violations.push(err.message);
    else throw err;
  }
  return {
    config,
    seed,
    violations,
    lost: violations.some((v) => LOSS.test(v) || v.includes('AcknowledgedInIsr')),
    acknowledged: checked.acknowledged,
    committed: checked.committed,
    faults: faults.log,
    uncleanElections,
    deleted: checked.deleted,
    fullTruncations,
    virtualMs: c.now,
    events: c.sim.eventCount,
    fingerprint: c.sim.fingerprint.hash,
  };
}

/** Runs until every record has an answer and every partition's replicas are all in sync and caught up. */
function settle(c: Cluster, producers: readonly Producer[]): void {
  c.runUntil(
    () => {
      if (producers.some((p) => p.pendingRecords > 0)) return false;
      // The image read is the active controller's: none while the quorum elects (a restarted one replays).
      if (!c.activeController()) return false;
      const topic = c.image.topics[TOPIC];
      if (!topic) return false;
      return topic.partitions.every((reg, p) => {
        if (reg.leader < 0 || reg.isr.length !== reg.replicas.length) return false;
        const leader = c.brokers.get(reg.leader)?.replicas.get(`${topic.topicId}:${p}`);
        if (!leader || leader.role !== 'leader') return false;
        const end = leader.log.logEndOffset;
        if (leader.log.highWatermark !== end) return false;
        return reg.replicas.every((id) => {
          const r = c.brokers.get(id)?.replicas.get(`${topic.topicId}:${p}`);
          return !!r && r.log.logEndOffset === end && r.log.highWatermark === end;
        });
      });
    },
    {
      timeout: '180s',
      description: 'the cluster settles after the faults (answers for every record, every replica in sync)',
    },
  );
}

/** A consumer that reads every partition from the start up to its high watermark. */
function readEverything(c: Cluster): Copies {
  const copies = new Copies();
  const consumer = c.consumer('nemesis-reader', { config: { 'auto.offset.reset': 'earliest' } });
  consumer.onRecords((got) => {
    const skip = got.fromOffset - (got.batches[0]?.baseOffset ?? got.fromOffset);
    got.batches.forEach((b, i) => {
      copies.add(b, i === 0 ? skip : 0);
    });
  });
  const tps = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: TOPIC, partition }));
  consumer.assign(tps);
  const topic = c.image.topics[TOPIC]!;
  const ends = topic.partitions.map((reg, p) => {
    const leader = c.brokers.get(reg.leader)?.replicas.get(`${topic.topicId}:${p}`);
    return leader?.log.highWatermark ?? 0;
  });
  c.runUntil(() => tps.every((tp, p) => (consumer.position(tp) ?? -1) >= ends[p]!), {
    timeout: '60s',
    description: 'the consumer has read every partition to its high watermark',
  });
  return copies;
}
