// A consumer's fetch parked at the leader (Kafka's DelayedFetch): it answers once fetch.min.bytes are readable or
// fetch.max.wait.ms has passed, and only the answer it sends counts as bytes out. And a consumer waiting for a
// leader keeps one retry timer, not one per pump.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../../src/cluster/index.ts';
import { leaderWait } from '../clients/leader-wait.ts';

describe('parked consumer fetches', () => {
  it('wait for fetch.min.bytes, and count as bytes out only what they answer with', () => {
    const c = createCluster({ seed: 3, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 1 });
    c.runFor('1s');
    const consumer = c.consumer('c', {
      config: { 'auto.offset.reset': 'earliest', 'fetch.min.bytes': 20_000, 'fetch.max.wait.ms': 500 },
    });
    consumer.assign([{ topic: 't', partition: 0 }]);
    const deliveries: { time: number; bytes: number }[] = [];
    consumer.onRecords((r) => deliveries.push({ time: c.now, bytes: r.bytes }));
    const producer = c.producer('p');
    // About 1 KiB every 10 ms: 20 KB take about 200 ms, well inside fetch.max.wait.ms.
    const start = c.now;
    for (let i = 0; i < 100; i++)
      producer.sim.schedule(i * 10, () =>
        producer.send({ topic: 't', partition: 0, value: 'x'.repeat(1000) }),
      );
    c.runUntil(() => consumer.recordsConsumed === 100, { timeout: '10s', description: 'all consumed' });
    c.runFor('1s');
    // Each answer but the last carried at least fetch.min.bytes; none came before enough data was there.
    expect(deliveries.length).toBeGreaterThanOrEqual(4);
    expect(deliveries.length).toBeLessThanOrEqual(7);
    for (const d of deliveries.slice(0, -1)) expect(d.bytes).toBeGreaterThanOrEqual(20_000);
    expect(deliveries[0]!.time - start).toBeGreaterThan(150);
    // Parked tries that found too little read nothing out: the leader's bytes out are exactly what was consumed.
    const replica = c.brokers.get(c.image.topics.t!.partitions[0]!.leader)!.findReplica('t', 0)!;
    expect(replica.bytesOut).toBe(consumer.bytesConsumed);
    expect(consumer.lag).toBe(0);
  });

  it('answer after fetch.max.wait.ms with what there is when fetch.min.bytes never fills', () => {
    const c = createCluster({ seed: 3, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 1 });
    c.runFor('1s');
    const consumer = c.consumer('c', {
      config: { 'auto.offset.reset': 'earliest', 'fetch.min.bytes': 1_000_000, 'fetch.max.wait.ms': 300 },
    });
    consumer.assign([{ topic: 't', partition: 0 }]);
    let firstAt = -1;
    consumer.onRecords(() => {
      if (firstAt < 0) firstAt = c.now;
    });
    c.runFor('1s');
    const sentAt = c.now;
    c.producer('p').send({ topic: 't', partition: 0, value: 'x' });
    c.runUntil(() => consumer.recordsConsumed === 1, { timeout: '5s', description: 'the record consumed' });
    // It came with the fetch that had parked before it arrived, when that fetch's wait ran out.
    expect(firstAt - sentAt).toBeGreaterThan(0);
    expect(firstAt - sentAt).toBeLessThanOrEqual(300 + 10);
  });
});

describe('a consumer waiting for a leader', () => {
  it('keeps one retry timer while a partition has no leader, however many responses arrive meanwhile', () => {
    // Partition 0 keeps getting data (so fetch responses keep coming from broker 0) while broker 1 is down.
    const { c, consumer } = leaderWait([0]);
    const retryTimers: number[] = [];
    const schedule = c.sim.schedule.bind(c.sim);
    c.sim.schedule = (delay, fn, label) => {
      if (label === 'consumer.wait-leader' || label === 'consumer.fetch-retry') retryTimers.push(c.now);
      return schedule(delay, fn, label);
    };
    c.crashBroker(1);
    c.runFor('20s');
    // Broker 1 was fenced and its partition went leaderless: the consumer did wait for a leader.
    expect(c.image.topics.t!.partitions[1]!.leader).toBe(-1);
    expect(retryTimers.length).toBeGreaterThan(50);
    // One pending timer at a time, each retry.backoff.ms (100 ms) long: no more than one per 100 ms.
    expect(retryTimers.length).toBeLessThanOrEqual(20_000 / 100 + 1);
    for (let i = 1; i < retryTimers.length; i++)
      expect(retryTimers[i]! - retryTimers[i - 1]!).toBeGreaterThanOrEqual(100);
    // Partition 0 kept flowing all along.
    expect(consumer.position({ topic: 't', partition: 0 })).toBeGreaterThan(3000);
  });
});
