// The perf producer's cost in events: one tick every 5 ms hands the due records to the producer, and the sender
// pass that those records wake runs in the same event (Java's accumulator wakes the sender thread; a separate
// event found the same batches). What is left per second of load is the ticks and the produce round trips.
import { describe, expect, it } from 'vitest';
import { createCluster } from '../../../src/cluster/index.ts';

describe('perf producer events', () => {
  it('sends in the tick event: 200 ticks and about 800 events a second of load, no separate sender event', () => {
    const c = createCluster({ seed: 7, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 4 });
    c.runFor('1s');
    const report = c.producerPerfTest({
      topic: 't',
      numRecords: 100_000,
      throughput: 5120,
      recordSize: 1024,
    });
    c.runFor('2s');
    let batches = 0;
    report.workload.producer.onDelivery(() => batches++);
    const acked = report.workload.producer.recordsAcked;
    const events = c.sim.eventCount;
    c.runFor('10s');
    const perSecond = (c.sim.eventCount - events) / 10;
    // 5120 records/s went out and came back, in batches of about 15 (batch.size 16384).
    expect(report.workload.producer.recordsAcked - acked).toBeGreaterThan(51_000);
    expect(batches / 10).toBeGreaterThan(300);
    // What a second of load costs, with one broker: the 200 ticks and, per tick, one produce request carrying
    // that tick's batches (the request, the broker's append, the response): about 800. A sender pass scheduled as
    // an event of its own made it about 1,000.
    expect(perSecond).toBeGreaterThan(700);
    expect(perSecond).toBeLessThan(880);
  });
});

describe('a partition with two ready batches', () => {
  it('sends the second at once in another request (Sender.runOnce loops), not after the first answer', () => {
    const c = createCluster({ seed: 7, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 1 });
    c.runFor('1s');
    const producer = c.producer('p');
    c.runFor('1s');
    const results: { time: number; count: number }[] = [];
    producer.onDelivery((r) => results.push({ time: r.time, count: r.count }));
    const sentAt = c.now;
    // 20 records of 1 KiB: a full batch of 15 and one of 5, both ready at once with linger.ms 0.
    producer.sendMany('t', 20, 1024, 0);
    c.runFor('1s');
    expect(results.map((r) => r.count)).toEqual([15, 5]);
    const roundTrip = results[0]!.time - sentAt;
    expect(roundTrip).toBeGreaterThan(0);
    // The second left right behind the first, not a round trip later (waiting put its answer ~2 ms behind).
    expect(results[1]!.time - results[0]!.time).toBeLessThan(roundTrip / 2);
  });
});
