// Client behaviour end to end: keyed partitioning, acks and min.insync.replicas, a consumer following a leader
// change, broker load showing as produce latency, and a kafka-mode copy whose duration grows with the data.
import { describe, expect, it } from 'vitest';
import { javaKeyPartition, librdkafkaConsistentPartition } from '../../models/clients/index.ts';
import { createCluster } from '../../src/cluster/index.ts';

const utf8 = new TextEncoder();

describe('producer partitioning', () => {
  it('keyed records land where murmur2 (Java) and CRC32 (librdkafka) put them', () => {
    const c = createCluster({ seed: 2, brokers: 3 });
    c.admin.createTopic({ name: 'keys', partitions: 7 });
    const java = c.producer('java');
    const rd = c.producer('rd', { flavour: 'librdkafka' });
    const results: { who: string; key: string; partition: number }[] = [];
    for (let i = 0; i < 50; i++) {
      const key = `key-${i}`;
      java.send({ topic: 'keys', key, value: 'v' }, (r) =>
        results.push({ who: 'java', key, partition: r.partition }),
      );
      rd.send({ topic: 'keys', key, value: 'v' }, (r) =>
        results.push({ who: 'rd', key, partition: r.partition }),
      );
    }
    c.runUntil(() => results.length === 100, { timeout: '10s' });
    for (const r of results) {
      const want =
        r.who === 'java'
          ? javaKeyPartition(utf8.encode(r.key), 7)
          : librdkafkaConsistentPartition(utf8.encode(r.key), 7);
      expect(r.partition, `${r.who} ${r.key}`).toBe(want);
    }
    // The two partitioners disagree on some keys: that is the documented incompatibility.
    const differ = results
      .filter((r) => r.who === 'java')
      .some((r) => r.partition !== librdkafkaConsistentPartition(utf8.encode(r.key), 7));
    expect(differ).toBe(true);
  });
});

describe('acks and min.insync.replicas', () => {
  it('acks=all with the ISR below min.insync.replicas fails with NOT_ENOUGH_REPLICAS until it recovers', () => {
    const c = createCluster({ seed: 4, brokers: 3, storage: 'kafka' });
    c.admin.createTopic({
      name: 't',
      partitions: 1,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '3' },
    });
    const p = c.producer('p', { config: { 'delivery.timeout.ms': 60_000 } });
    c.runFor('1s');
    const leader = c.image.topics.t!.partitions[0]!.leader;
    const follower = c.image.topics.t!.partitions[0]!.replicas.find((b) => b !== leader)!;
    c.crashBroker(follower);
    c.runUntil(() => !c.image.topics.t!.partitions[0]!.isr.includes(follower), {
      timeout: '30s',
      description: 'ISR shrink',
    });
    let result: string | undefined;
    p.send({ topic: 't', value: 'x' }, (r) => (result = r.error ?? 'ok'));
    c.runFor('3s');
    expect(p.errorCounts.NOT_ENOUGH_REPLICAS).toBeGreaterThan(0);
    expect(result).toBeUndefined(); // still retrying: NOT_ENOUGH_REPLICAS is retriable
    c.restartBroker(follower);
    c.runUntil(() => result !== undefined, {
      timeout: '30s',
      description: 'delivery after the follower is back',
    });
    expect(result).toBe('ok');
  });

  it('acks=0 completes without waiting, acks=1 answers after the leader append', () => {
    const c = createCluster({ seed: 4, brokers: 2, storage: 'kafka' });
    c.admin.createTopic({ name: 't', partitions: 1, replicationFactor: 2 });
    const p0 = c.producer('p0', { config: { acks: 0, 'enable.idempotence': false } });
    const p1 = c.producer('p1', { config: { acks: 1, 'enable.idempotence': false } });
    c.runFor('500ms');
    const got: Record<string, number> = {};
    p0.send({ topic: 't', value: 'a' }, (r) => (got.p0 = r.baseOffset));
    p1.send({ topic: 't', value: 'b' }, (r) => (got.p1 = r.baseOffset));
    c.runFor('200ms');
    expect(got.p0).toBe(-1);
    expect(got.p1).toBeGreaterThanOrEqual(0);
    // Kafka 3.x: acks=1 quietly turns the default idempotence off; asking for both is an error.
    expect(c.producer('quiet', { config: { acks: 1 } }).config['enable.idempotence']).toBe(false);
    expect(() => c.producer('bad', { config: { acks: 1, 'enable.idempotence': true } })).toThrow(
      'Must set acks to all in order to use the idempotent producer.',
    );
  });
});

describe('consumer (assign mode)', () => {
  it('reads every record, follows a leader change and resets with auto.offset.reset', () => {
    const c = createCluster({ seed: 6, brokers: 3, storage: 'kafka' });
    c.admin.createTopic({ name: 't', partitions: 2, replicationFactor: 3 });
    const early = c.producer('early');
    for (let i = 0; i < 100; i++) early.send({ topic: 't', partition: i % 2, value: `v${i}` });
    c.runFor('1s');
    const latest = c.consumer('latest');
    const earliest = c.consumer('earliest', { config: { 'auto.offset.reset': 'earliest' } });
    const tps = [0, 1].map((partition) => ({ topic: 't', partition }));
    latest.assign(tps);
    earliest.assign(tps);
    c.runFor('1s');
    expect(earliest.recordsConsumed).toBe(100);
    expect(latest.recordsConsumed).toBe(0); // latest skipped what was there before it reset
    const report = c.producerPerfTest({
      topic: 't',
      numRecords: 20_000,
      throughput: 2000,
      recordSize: 100,
      name: 'perf',
    });
    c.runFor('3s');
    const victim = c.image.topics.t!.partitions[0]!.leader;
    c.crashBroker(victim);
    c.runUntil(() => report.summary !== undefined, { timeout: '60s' });
    c.runFor('2s');
    expect(earliest.recordsConsumed).toBe(20_100);
    expect(latest.recordsConsumed).toBe(20_000);
    expect(earliest.lag).toBe(0);
    expect(c.deliveryReport('perf', 't').lost).toBe(0);
  });
});

describe('broker load and data movement', () => {
  it('a hot broker answers produce requests more slowly than a balanced pair', () => {
    const avgLatency = (hot: boolean) => {
      const c = createCluster({
        seed: 9,
        brokers: [{ id: 1 }, { id: 2 }],
        storage: 'shared',
        // Small brokers: 6 MiB/s of network-in each.
        brokerConfig: { 'kafkasim.broker.network.in.bytes.per.sec': 6 * 1_048_576 },
      });
      c.admin.createTopic({
        name: 't',
        partitions: 8,
        ...(hot ? { assignments: Array.from({ length: 8 }, () => [2]) } : {}),
      });
      const r = c.producerPerfTest({ topic: 't', numRecords: 60_000, throughput: 5120, recordSize: 1024 });
      c.runUntil(() => r.summary !== undefined, { timeout: '60s' });
      return Number(/, ([\d.]+) ms avg latency/.exec(r.summary!)![1]);
    };
    const hot = avgLatency(true);
    const balanced = avgLatency(false);
    expect(hot).toBeGreaterThan(2 * balanced);
  });

  it('kafka storage: a reassignment copies the data, taking longer the more bytes (throttled)', () => {
    const copyTime = (records: number) => {
      const c = createCluster({
        seed: 3,
        brokers: 2,
        storage: 'kafka',
        brokerConfig: { 'follower.replication.throttled.rate': 10 * 1_048_576 },
      });
      c.admin.createTopic({ name: 't', partitions: 1, assignments: [[0]] });
      const p = c.producer('p');
      for (let i = 0; i < records; i++) p.send({ topic: 't', partition: 0, valueBytes: 10_000 });
      c.runUntil(() => p.pendingRecords === 0, { timeout: '60s' });
      const start = c.now;
      c.admin.alterPartitionReassignments([{ topic: 't', partition: 0, replicas: [1] }]);
      c.runUntil(() => c.image.topics.t!.partitions[0]!.replicas.join() === '1', {
        timeout: '120s',
        description: 'copy done',
      });
      expect(c.image.topics.t!.partitions[0]).toMatchObject({
        leader: 1,
        isr: [1],
        addingReplicas: [],
        removingReplicas: [],
      });
      return c.now - start;
    };
    const small = copyTime(1_000); // ~10 MB
    const large = copyTime(4_000); // ~40 MB
    expect(small).toBeGreaterThan(500);
    expect(large).toBeGreaterThan(3 * small);
  });
});

describe('producer sender timing', () => {
  // Regression: with linger.ms > 0 the sender judged "linger expired" with `now - createdAt >= linger` but woke at
  // `createdAt + linger`; floating-point rounding made the two disagree and the sender rescheduled itself at the same
  // instant forever (seed 1 stuck at t=2048.7 ms).
  it('a librdkafka producer (linger.ms=5) at 1000 records/s makes progress with a bounded number of events', () => {
    const c = createCluster({ seed: 1, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 3 });
    const p = c.producer('p', { flavour: 'librdkafka' });
    let i = 0;
    p.every(1, () => p.send({ topic: 't', value: `v${i++}` }));
    c.sim.runFor('20s', { maxEvents: 500_000 });
    expect(c.now).toBeGreaterThanOrEqual(22_000);
    expect(p.recordsAcked).toBeGreaterThan(19_900);
  });
});
