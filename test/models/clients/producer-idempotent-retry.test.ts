// An idempotent Java producer whose pipelined batches are refused: RecordAccumulator
// .shouldStopDrainBatchesForPartition lets a retried batch (one that already has a sequence) go only when it is
// the partition's lowest unacknowledged sequence, so the retries go one at a time, each after the previous one's
// answer ("This effectively reduces our in flight request count to 1"), while new batches wait behind them.
import { describe, expect, it } from 'vitest';
import { Errors, type ProduceRequest } from '../../../models/protocol/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

describe('an idempotent producer retrying pipelined batches', () => {
  it('sends a retried batch only when every lower sequence of its partition is acknowledged', () => {
    const c = createCluster({ seed: 3, brokers: 1 });
    c.admin.createTopic({ name: 't', assignments: [[0]] });
    c.runFor('1s');
    const p = c.producer('p', {
      config: {
        'enable.idempotence': true,
        acks: -1,
        'max.in.flight.requests.per.connection': 5,
        'linger.ms': 0,
        'retry.backoff.ms': 20,
        'retry.backoff.max.ms': 20,
      },
    });
    c.runFor('1s');
    // Produce requests as they reach the broker: each batch's base sequence, and whether it is a resend.
    const seen = new Set<number>();
    const arrivals: { time: number; sequence: number; retry: boolean }[] = [];
    let refuse = 0;
    c.sim.network.setRequestInterceptor((_from, _to, payload) => {
      const req = payload as ProduceRequest;
      if (req.type !== 'Produce') return undefined;
      for (const part of req.partitions) {
        const sequence = part.batch.baseSequence;
        arrivals.push({ time: c.now, sequence, retry: seen.has(sequence) });
        seen.add(sequence);
      }
      if (refuse <= 0) return undefined;
      refuse--;
      return {
        reply: {
          correlationId: req.correlationId,
          partitions: req.partitions.map((x) => ({
            topic: x.topic,
            partition: x.partition,
            // Retriable, and the leader stays.
            errorCode: Errors.NOT_ENOUGH_REPLICAS.code,
            baseOffset: -1,
          })),
        },
      };
    });
    // When each sequence was acknowledged (one partition, one producer: a record's index is its sequence).
    const acked = new Map<number, number>();
    p.onDelivery((r) => {
      expect(r.error).toBeUndefined();
      acked.set(r.runs[0]!.index, r.time);
    });
    // A record every 0.2 ms: batches leave one per request, up to 5 in flight.
    for (let i = 0; i < 400; i++)
      c.sim.schedule(i * 0.2, () => p.send({ topic: 't', partition: 0, value: 'v' }));
    c.sim.schedule(20, () => {
      refuse = 5;
    });
    c.runFor('2s');
    expect(p.recordsAcked).toBe(400);
    const retries = arrivals.filter((a) => a.retry);
    // The five refused batches were all resent.
    expect(retries.length).toBeGreaterThanOrEqual(5);
    for (const r of retries) {
      // Every lower sequence sent before was acknowledged before this resend left.
      for (const a of arrivals)
        if (a.sequence < r.sequence)
          expect(acked.get(a.sequence) ?? Number.POSITIVE_INFINITY).toBeLessThan(r.time);
    }
    // No batch of the partition overtook the retries: sequences reached the broker in order after the first resend.
    const from = arrivals.indexOf(retries[0]!);
    const after = arrivals.slice(from).map((a) => a.sequence);
    expect(after).toEqual([...after].sort((x, y) => x - y));
  });
});
