// Retention in a running cluster: with retention.ms and small segments every replica deletes its old segments at
// each log.retention.check.interval.ms, so a topic's bytes stay bounded however long producers write; a consumer
// positioned below the log start gets OFFSET_OUT_OF_RANGE and resets by auto.offset.reset (earliest: the log
// start; latest: the end; none: no position); a follower that was down while the leader deleted what it lacks
// starts its log again at the leader's log start and rejoins the ISR; retention.bytes bounds a log by size; the
// data-plane invariants forget the acknowledged batches retention deleted, and still catch a missing one.
import { describe, expect, it } from 'vitest';
import { effectiveTopicConfig } from '../../models/metadata/index.ts';
import { InvariantViolation } from '../../models/sim/index.ts';
import type { Cluster } from '../../src/cluster/index.ts';
import { createCluster } from '../../src/cluster/index.ts';

const TOPIC = 'r';
const CHECK_MS = 10_000;

/** 3 brokers, topic r (1 partition, RF 3), a producer writing 20 records of 100 bytes every 100 ms. */
function writing(configs: Record<string, string>): Cluster {
  const c = createCluster({
    seed: 11,
    brokers: 3,
    brokerConfig: { 'log.retention.check.interval.ms': CHECK_MS },
  });
  c.admin.createTopic({ name: TOPIC, partitions: 1, replicationFactor: 3, configs });
  const p = c.producer('p', { keepContent: false, config: { acks: -1, 'linger.ms': 5 } });
  const tick = () => {
    p.sendMany(TOPIC, 20, 100, 0);
    p.schedule(100, tick, 'test.load');
  };
  p.schedule(0, tick, 'test.load');
  return c;
}

const logsOf = (c: Cluster) => {
  const t = c.image.topics[TOPIC]!;
  return [...c.brokers.values()].map((b) => b.replicas.get(`${t.topicId}:0`)!.log);
};

describe('retention in a cluster', () => {
  it('retention.ms: every replica keeps only what is younger than the limit (plus a segment and a check)', () => {
    const c = writing({ 'retention.ms': '60000', 'segment.ms': '10000' });
    const retention: unknown[] = [];
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'broker.log-retention') retention.push(e);
    });
    const sizes: number[] = [];
    for (let minute = 1; minute <= 6; minute++) {
      c.runFor('60s');
      sizes.push(Math.max(...logsOf(c).map((l) => l.sizeBytes)));
    }
    expect(retention.length).toBeGreaterThan(0);
    // The producer wrote ~6 minutes (about 7 MB with batch overhead); each log holds at most the last
    // 60 s + one 10 s segment + one 10 s check interval of it, and that no longer grows.
    const written = logsOf(c)[0]!.logEndOffset * 100;
    const perSecond = written / c.now;
    for (const log of logsOf(c)) {
      expect(log.logStartOffset).toBeGreaterThan(0);
      expect(log.sizeBytes).toBeLessThan(perSecond * 1.3 * (60_000 + 10_000 + CHECK_MS));
      // What is left: the oldest segment's newest batch is at most retention.ms + one check interval old.
      expect(c.now - log.segments()[0]!.largestTimestamp).toBeLessThanOrEqual(60_000 + CHECK_MS);
      expect(log.read(log.logStartOffset, log.logEndOffset, 1 << 30)[0]!.baseOffset).toBe(log.logStartOffset);
    }
    expect(sizes[5]!).toBeLessThan(sizes[2]! * 1.2);
  });

  it('a consumer below the log start is out of range and resets: earliest, latest, none', () => {
    const c = writing({ 'retention.ms': '30000', 'segment.ms': '5000' });
    c.runFor('120s');
    const leader = logsOf(c).find((_, i) => i === c.image.topics[TOPIC]!.partitions[0]!.leader)!;
    expect(leader.logStartOffset).toBeGreaterThan(0);
    const tp = { topic: TOPIC, partition: 0 };
    // What each consumer read after it was moved to offset 0, below the log start.
    const got: Record<string, number[]> = {};
    const consumers = (['earliest', 'latest', 'none'] as const).map((reset) => {
      const consumer = c.consumer(`reader-${reset}`, { config: { 'auto.offset.reset': reset } });
      got[reset] = [];
      consumer.assign([tp]);
      // none has no first position to wait for: it is placed below the log start at once.
      if (reset !== 'none')
        c.runUntil(() => consumer.position(tp) !== undefined, { timeout: '5s', description: 'positioned' });
      consumer.onRecords((r) => got[reset]!.push(r.fromOffset));
      consumer.seek(tp, 0);
      c.runFor('2s');
      return consumer;
    });
    const [earliest, latest, none] = consumers as [
      (typeof consumers)[0],
      (typeof consumers)[0],
      (typeof consumers)[0],
    ];
    expect(earliest.errorCounts.OFFSET_OUT_OF_RANGE).toBeGreaterThan(0);
    // earliest: the second reset (the first was the initial position) lands on the log start of the time, and
    // reading goes on from there.
    expect(earliest.resets.length).toBe(2);
    expect(earliest.resets[1]!.offset).toBeGreaterThan(0);
    expect(earliest.resets[1]!.offset).toBeLessThanOrEqual(leader.logStartOffset);
    expect(got.earliest![0]).toBe(earliest.resets[1]!.offset);
    // latest: the second reset is the end of the log at the time, far past the log start.
    expect(latest.errorCounts.OFFSET_OUT_OF_RANGE).toBeGreaterThan(0);
    expect(latest.resets.length).toBe(2);
    expect(latest.resets[1]!.offset).toBeGreaterThan(earliest.resets[1]!.offset + 1000);
    expect(got.latest![0]).toBeGreaterThanOrEqual(latest.resets[1]!.offset);
    // none: out of range, no position, and the consumer says so.
    expect(none.errorCounts.OFFSET_OUT_OF_RANGE).toBeGreaterThan(0);
    expect(none.errorCounts.NoOffsetForPartition).toBeGreaterThan(0);
    expect(none.position(tp)).toBeUndefined();
    expect(got.none).toEqual([]);
  });

  it('a follower down while the leader deleted what it lacks starts over at the leader log start and rejoins', () => {
    const c = writing({ 'retention.ms': '20000', 'segment.ms': '5000' });
    c.runFor('10s');
    const reg = () => c.image.topics[TOPIC]!.partitions[0]!;
    const followerId = reg().replicas.find((id) => id !== reg().leader)!;
    const follower = c.brokers.get(followerId)!;
    follower.crash();
    const endAtCrash = logsOf(c)[followerId]?.logEndOffset;
    c.runFor('60s');
    const fully: { to: number }[] = [];
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'broker.truncate-fully') fully.push(e as never);
    });
    follower.start();
    c.runUntil(() => reg().isr.includes(followerId), {
      timeout: '60s',
      description: 'follower back in the ISR',
    });
    expect(fully.length).toBe(1);
    const log = follower.replicas.get(`${c.image.topics[TOPIC]!.topicId}:0`)!.log;
    expect(fully[0]!.to).toBeGreaterThan(endAtCrash ?? 0);
    expect(log.logStartOffset).toBeGreaterThanOrEqual(fully[0]!.to);
    expect(log.allBatches()[0]!.baseOffset).toBe(fully[0]!.to);
  });

  it("a follower takes the leader's log start from its fetches, before its own retention check", () => {
    const c = writing({ 'retention.ms': '20000', 'segment.ms': '5000' });
    const reg = () => c.image.topics[TOPIC]!.partitions[0]!;
    c.runFor('20s');
    expect(c.now).toBeLessThan(29_000);
    const followerId = reg().replicas.find((id) => id !== reg().leader)!;
    const follower = c.brokers.get(followerId)!;
    // Down across the leader's first retention check (30 s after start), back 15 s later: its own first check is
    // 30 s after that, and its log end is still above what the leader deleted.
    follower.crash();
    c.runFor('15s');
    follower.start();
    const key = `${c.image.topics[TOPIC]!.topicId}:0`;
    const target = c.brokers.get(reg().leader)!.replicas.get(key)!.log.logEndOffset;
    c.runUntil(() => (follower.replicas.get(key)?.log.highWatermark ?? 0) >= target, {
      timeout: '20s',
      description: 'the follower caught up',
    });
    const logs = logsOf(c);
    const leaderStart = logs[reg().leader]!.logStartOffset;
    expect(leaderStart).toBeGreaterThan(0);
    expect(logs[followerId]!.logStartOffset).toBe(leaderStart);
    // Its own segments are still there (nothing deleted yet): only reads below the start are refused.
    expect(logs[followerId]!.allBatches()[0]!.baseOffset).toBe(0);
  });

  it('retention.bytes bounds every replica by size; cleanup.policy=compact keeps everything', () => {
    const c = writing({ 'retention.bytes': '200000', 'segment.bytes': '50000' });
    c.admin.createTopic({
      name: 'kept',
      partitions: 1,
      replicationFactor: 3,
      configs: {
        'cleanup.policy': 'compact',
        'retention.bytes': '1000',
        'retention.ms': '1',
        'segment.bytes': '50000',
      },
    });
    const q = c.producer('q', { keepContent: false });
    const tick = () => {
      q.sendMany('kept', 20, 100, 0);
      q.schedule(100, tick, 'test.load');
    };
    q.schedule(0, tick, 'test.load');
    c.runFor('180s');
    for (const log of logsOf(c)) {
      expect(log.logStartOffset).toBeGreaterThan(0);
      // At most the limit plus the segment that would take it below, plus what one check interval adds.
      expect(log.sizeBytes).toBeLessThan(200_000 + 50_000 + 25_000 * (CHECK_MS / 1000));
    }
    const kept = c.image.topics.kept!;
    for (const b of c.brokers.values())
      expect(b.replicas.get(`${kept.topicId}:0`)!.log.logStartOffset).toBe(0);
  });

  it('AcknowledgedInIsr keeps only what the logs still hold, and still finds a missing acknowledged batch', () => {
    const c = writing({ 'retention.ms': '30000', 'segment.ms': '5000' });
    const kept: number[] = [];
    for (let minute = 1; minute <= 6; minute++) {
      c.runFor('60s');
      kept.push(c.dataPlane!.acknowledgedKept);
    }
    const leader = logsOf(c)[c.image.topics[TOPIC]!.partitions[0]!.leader]!;
    // 6 minutes of one 20-record batch every 100 ms: about 3,600 batches acknowledged, of which the log holds the
    // last 30-45 s. What is kept is at most twice that plus what waits for a bulk forget (1,024 or half the list).
    const acknowledged = leader.logEndOffset / 20;
    expect(acknowledged).toBeGreaterThan(3000);
    expect(kept[5]!).toBeLessThanOrEqual(2 * leader.batchCount + 1024);
    expect(kept[5]!).toBeLessThan(acknowledged / 2);
    expect(kept[5]!).toBeLessThan(1.5 * kept[2]!);
    // An acknowledgement of a batch no log has, past what was forgotten, is still found.
    c.dataPlane!.acknowledged({
      topic: TOPIC,
      partition: 0,
      baseOffset: leader.logEndOffset - 1,
      count: 1,
      origin: 'nobody',
      firstIndex: 0,
    });
    let found: unknown;
    try {
      c.runFor('1s');
    } catch (e) {
      found = e;
    }
    expect(found).toBeInstanceOf(InvariantViolation);
    expect((found as InvariantViolation).invariant).toBe('AcknowledgedInIsr');
  });

  it('server.properties: log.retention.ms, else log.retention.minutes, else log.retention.hours; log.roll.hours', () => {
    const effective = (serverProperties: Record<string, string>) => {
      const c = createCluster({ seed: 1, brokers: 1, serverProperties });
      c.admin.createTopic({ name: 'x', partitions: 1, replicationFactor: 1 });
      c.runFor('1s');
      const log = [...c.brokers.values()][0]!.replicas.get(`${c.image.topics.x!.topicId}:0`)!.log;
      return {
        retention: effectiveTopicConfig(c.image, 'x', 'retention.ms', serverProperties),
        roll: log.segmentMs,
      };
    };
    expect(effective({ 'log.retention.hours': '2', 'log.roll.hours': '1' })).toEqual({
      retention: '7200000',
      roll: 3_600_000,
    });
    expect(effective({ 'log.retention.hours': '2', 'log.retention.minutes': '3' }).retention).toBe('180000');
    expect(effective({ 'log.retention.minutes': '3', 'log.retention.ms': '5' }).retention).toBe('5');
    expect(effective({ 'log.retention.hours': '-1' }).retention).toBe('-1');
    expect(effective({})).toEqual({ retention: '604800000', roll: 604_800_000 });
  });
});
