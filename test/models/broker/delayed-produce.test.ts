// appendRecords on a broker's replica manager, without a cluster (Kafka's ReplicaManager.appendRecords and
// DelayedProduce): the per-partition errors, what is appended and answered at once, acks=all answered only when the
// high watermark passes every appended batch (or request.timeout.ms ends it), duplicates waiting like appends,
// min.insync.replicas from the topic, the broker or the default, and shared storage's WAL-durable appends.
import { describe, expect, it } from 'vitest';
import { appendRecords } from '../../../models/broker/delayed-produce.ts';
import type { ProduceRequest, ProduceResponse } from '../../../models/protocol/index.ts';
import { Errors } from '../../../models/protocol/index.ts';
import type { ProducerBatchData } from '../../../models/storage/index.ts';
import { batch, type ImageSpec, type ManagedBroker, managedBroker } from './fakes.ts';

const KEY0 = 'id-t:0';
const KEY1 = 'id-t:1';

/** Broker 1 leads t-0 and t-1 (ISR 1, 2, 3, epoch 3) and follows t-2 (led by 2). */
function spec(over: Partial<ImageSpec> = {}, isr = [1, 2, 3]): ImageSpec {
  return {
    topics: {
      t: [
        { replicas: [1, 2, 3], isr, leader: 1, leaderEpoch: 3 },
        { replicas: [1, 2, 3], isr, leader: 1, leaderEpoch: 3 },
        { replicas: [1, 2, 3], leader: 2, leaderEpoch: 8 },
        { replicas: [2, 3], leader: -1, leaderEpoch: 4 },
      ],
    },
    ...over,
  };
}

interface Produced {
  responses: ProduceResponse[];
  woken: string[];
}

function produce(
  b: ManagedBroker,
  acks: 0 | 1 | -1,
  partitions: { topic?: string; partition: number; batch?: ProducerBatchData }[],
  timeoutMs = 30_000,
): Produced {
  const out: Produced = { responses: [], woken: [] };
  const req: ProduceRequest = {
    type: 'Produce',
    acks,
    timeoutMs,
    clientId: 'c',
    correlationId: 17,
    partitions: partitions.map((p) => ({
      topic: p.topic ?? 't',
      partition: p.partition,
      batch: p.batch ?? batch(2),
    })),
  };
  appendRecords(
    b.core,
    b.rm,
    (key) => out.woken.push(key),
    req,
    (r) => out.responses.push(r),
  );
  return out;
}

const replica = (b: ManagedBroker, p: number) => b.rm.findReplica('t', p)!;

describe('appendRecords: per-partition errors', () => {
  it('answers unknown topics, non-leaders (with the leader it knows) and partitions without a leader at once', () => {
    const b = managedBroker(1, spec());
    const out = produce(b, -1, [
      { topic: 'nope', partition: 0 },
      { partition: 2 },
      { partition: 3 },
      { partition: 9 },
    ]);
    // Strictly: a partition without a leader carries no currentLeader at all.
    expect(out.responses).toStrictEqual([
      {
        correlationId: 17,
        partitions: [
          { topic: 'nope', partition: 0, errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code, baseOffset: -1 },
          {
            topic: 't',
            partition: 2,
            errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
            baseOffset: -1,
            currentLeader: { leaderId: 2, leaderEpoch: 8 },
          },
          { topic: 't', partition: 3, errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code, baseOffset: -1 },
          { topic: 't', partition: 9, errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code, baseOffset: -1 },
        ],
      },
    ]);
    expect(replica(b, 2).log.logEndOffset).toBe(0);
    expect(b.core.sim.pendingEvents).toBe(0);
  });

  it('refuses acks=all below min.insync.replicas without appending; acks=1 appends', () => {
    const b = managedBroker(1, spec({ topicConfigs: { t: { 'min.insync.replicas': '2' } } }, [1]));
    const all = produce(b, -1, [{ partition: 0 }]);
    const p = all.responses[0]!.partitions[0]!;
    expect(p.errorCode).toBe(Errors.NOT_ENOUGH_REPLICAS.code);
    expect(p.baseOffset).toBe(-1);
    expect(p.errorMessage).toBe(
      'The size of the current ISR [1] is insufficient to satisfy the min.isr requirement of 2 for partition t-0',
    );
    expect(replica(b, 0).log.logEndOffset).toBe(0);
    const one = produce(b, 1, [{ partition: 0 }]);
    expect(one.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
    expect(replica(b, 0).log.logEndOffset).toBe(2);
  });

  it("takes min.insync.replicas from the topic, else the broker's static config, else 1", () => {
    const exactly = managedBroker(1, spec({ topicConfigs: { t: { 'min.insync.replicas': '3' } } }));
    expect(produce(exactly, -1, [{ partition: 0 }]).responses).toEqual([]); // 3 >= 3: appended, waiting
    const broker = managedBroker(1);
    broker.core.staticConfigs = { 'min.insync.replicas': '2' };
    broker.apply(spec({}, [1]));
    expect(produce(broker, -1, [{ partition: 0 }]).responses[0]!.partitions[0]!.errorCode).toBe(
      Errors.NOT_ENOUGH_REPLICAS.code,
    );
    const dflt = managedBroker(1, spec({}, [1]));
    expect(produce(dflt, -1, [{ partition: 0 }]).responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
  });

  it('answers an out-of-order idempotent batch with OUT_OF_ORDER_SEQUENCE_NUMBER and appends nothing', () => {
    const b = managedBroker(1, spec());
    const out = produce(b, 1, [
      { partition: 0, batch: batch(1, { producerId: 7, producerEpoch: 0, baseSequence: 3 }) },
    ]);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code,
      baseOffset: -1,
    });
    expect(replica(b, 0).log.logEndOffset).toBe(0);
    expect(out.woken).toEqual([]);
  });

  it('answers a batch of a fenced producer epoch with INVALID_PRODUCER_EPOCH and its reason, appending nothing', () => {
    const b = managedBroker(1, spec());
    produce(b, 1, [{ partition: 0, batch: batch(1, { producerId: 7, producerEpoch: 2, baseSequence: 0 }) }]);
    const out = produce(b, 1, [
      { partition: 0, batch: batch(1, { producerId: 7, producerEpoch: 1, baseSequence: 1 }) },
    ]);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: Errors.INVALID_PRODUCER_EPOCH.code,
      errorMessage: 'Epoch of producer 7 is 1, which is smaller than the last seen epoch 2',
      baseOffset: -1,
    });
    expect(replica(b, 0).log.logEndOffset).toBe(1);
    expect(out.woken).toEqual([]);
  });
});

describe('appendRecords: acks', () => {
  it('acks=1 appends, wakes the fetches parked on the partition and answers with the base offset at once', () => {
    const b = managedBroker(1, spec());
    produce(b, 1, [{ partition: 0, batch: batch(3) }]);
    const out = produce(b, 1, [{ partition: 0 }, { partition: 1 }]);
    expect(out.responses).toEqual([
      {
        correlationId: 17,
        partitions: [
          { topic: 't', partition: 0, errorCode: 0, baseOffset: 3 },
          { topic: 't', partition: 1, errorCode: 0, baseOffset: 0 },
        ],
      },
    ]);
    expect(out.woken).toEqual([KEY0, KEY1]);
    expect(replica(b, 0).bytesIn).toBe(500);
    expect(replica(b, 0).log.highWatermark).toBe(0); // the followers have not fetched it
    expect(replica(b, 0).waiters).toEqual([]);
    expect(b.core.sim.pendingEvents).toBe(0);
  });

  it('acks=all waits until the high watermark passes every partition, then answers once', () => {
    const b = managedBroker(1, spec());
    const out = produce(b, -1, [{ partition: 0, batch: batch(3) }, { partition: 1 }]);
    expect(out.responses).toEqual([]);
    expect(replica(b, 0).log.logEndOffset).toBe(3);
    const r0 = replica(b, 0);
    const r1 = replica(b, 1);
    r0.onFollowerFetch(2, 3);
    r0.onFollowerFetch(3, 2);
    expect(out.responses).toEqual([]); // t-0 at 2 < 3
    r0.onFollowerFetch(3, 3);
    r1.onFollowerFetch(2, 2);
    expect(out.responses).toEqual([]);
    r1.onFollowerFetch(3, 2);
    expect(out.responses).toEqual([
      {
        correlationId: 17,
        partitions: [
          { topic: 't', partition: 0, errorCode: 0, baseOffset: 0 },
          { topic: 't', partition: 1, errorCode: 0, baseOffset: 0 },
        ],
      },
    ]);
    expect(r0.waiters).toEqual([]);
    // The timeout was cancelled: nothing is left to run, and nothing is answered twice.
    expect(b.core.sim.pendingEvents).toBe(0);
    b.core.sim.runFor(60_000);
    expect(out.responses).toHaveLength(1);
  });

  it('acks=all already covered by the high watermark (a lone ISR) answers at once', () => {
    const b = managedBroker(1, spec({}, [1]));
    const out = produce(b, -1, [{ partition: 0 }]);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
    expect(replica(b, 0).log.highWatermark).toBe(2);
    expect(b.core.sim.pendingEvents).toBe(0);
  });

  it('acks=all times out after timeoutMs: REQUEST_TIMED_OUT for the partitions still waiting only', () => {
    const b = managedBroker(1, spec());
    const out = produce(b, -1, [{ partition: 0 }, { partition: 1 }, { partition: 2 }], 5000);
    replica(b, 1).onFollowerFetch(2, 2);
    replica(b, 1).onFollowerFetch(3, 2);
    b.core.sim.runFor(4999);
    expect(out.responses).toEqual([]);
    b.core.sim.runFor(1);
    expect([...b.core.labels]).toEqual(['broker.produce-timeout']);
    expect(out.responses).toEqual([
      {
        correlationId: 17,
        partitions: [
          { topic: 't', partition: 0, errorCode: Errors.REQUEST_TIMED_OUT.code, baseOffset: 0 },
          { topic: 't', partition: 1, errorCode: 0, baseOffset: 0 },
          {
            topic: 't',
            partition: 2,
            errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
            baseOffset: -1,
            currentLeader: { leaderId: 2, leaderEpoch: 8 },
          },
        ],
      },
    ]);
    // The timed-out waiter is gone: a later high watermark move answers nothing.
    expect(replica(b, 0).waiters).toEqual([]);
    replica(b, 0).onFollowerFetch(2, 2);
    replica(b, 0).onFollowerFetch(3, 2);
    expect(out.responses).toHaveLength(1);
  });

  it('a timeout leaves waiters of other requests on the same partition alone', () => {
    const b = managedBroker(1, spec());
    const first = produce(b, -1, [{ partition: 0 }], 1000);
    const second = produce(b, -1, [{ partition: 0 }], 5000);
    b.core.sim.runFor(1000);
    expect(first.responses[0]!.partitions[0]!.errorCode).toBe(Errors.REQUEST_TIMED_OUT.code);
    expect(replica(b, 0).waiters.map((w) => w.requiredOffset)).toEqual([4]);
    replica(b, 0).onFollowerFetch(2, 4);
    replica(b, 0).onFollowerFetch(3, 4);
    expect(second.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 2,
    });
  });

  it('a leadership change fails the waiting acks=all partitions with NOT_LEADER_OR_FOLLOWER', () => {
    const b = managedBroker(1, spec());
    const out = produce(b, -1, [{ partition: 0 }]);
    b.apply({
      topics: {
        t: [
          { replicas: [1, 2, 3], leader: 2, leaderEpoch: 4 },
          { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
          { replicas: [1, 2, 3], leader: 2, leaderEpoch: 8 },
          { replicas: [2, 3], leader: -1, leaderEpoch: 4 },
        ],
      },
    });
    expect(out.responses[0]!.partitions[0]!.errorCode).toBe(Errors.NOT_LEADER_OR_FOLLOWER.code);
  });

  it('acks=0 is appended and answered like acks=1 (the channel drops the answer)', () => {
    const b = managedBroker(1, spec());
    const out = produce(b, 0, [{ partition: 0 }]);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
    expect(replica(b, 0).waiters).toEqual([]);
  });
});

describe('appendRecords: duplicates', () => {
  const idem = (seq: number, count = 2) =>
    batch(count, { producerId: 7, producerEpoch: 0, baseSequence: seq });

  it('a retried batch answers with its first offset, appends nothing, and at acks=all waits for the high watermark', () => {
    const b = managedBroker(1, spec());
    produce(b, 1, [
      { partition: 0, batch: idem(0, 2) },
      { partition: 0, batch: idem(2, 3) },
    ]);
    const r0 = replica(b, 0);
    expect(r0.log.logEndOffset).toBe(5);
    expect(r0.bytesIn).toBe(500);
    const out = produce(b, -1, [{ partition: 0, batch: idem(0, 2) }]);
    expect(out.responses).toEqual([]);
    expect(r0.log.logEndOffset).toBe(5);
    expect(r0.bytesIn).toBe(500);
    expect(out.woken).toEqual([]);
    expect(b.core.eventsOf('broker.produce-duplicate')).toEqual([
      { topic: 't', partition: 0, baseOffset: 0, highWatermark: 0 },
    ]);
    r0.onFollowerFetch(2, 1);
    r0.onFollowerFetch(3, 1);
    expect(out.responses).toEqual([]); // the original ends at offset 1: the high watermark must pass 2
    r0.onFollowerFetch(2, 2);
    r0.onFollowerFetch(3, 2);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
    // The later duplicate waits for its own original (offsets 2..4).
    const again = produce(b, -1, [{ partition: 0, batch: idem(2, 3) }]);
    r0.onFollowerFetch(2, 4);
    r0.onFollowerFetch(3, 4);
    expect(again.responses).toEqual([]);
    r0.onFollowerFetch(2, 5);
    r0.onFollowerFetch(3, 5);
    expect(again.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 2,
    });
  });

  it('a retried batch already under the high watermark is answered at once', () => {
    const b = managedBroker(1, spec({}, [1]));
    produce(b, -1, [{ partition: 0, batch: idem(0, 2) }]);
    const out = produce(b, -1, [{ partition: 0, batch: idem(0, 2) }]);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
  });
});

describe('appendRecords: shared storage', () => {
  it('the WAL write makes the batch durable: the high watermark is the log end and acks=all answers at once', () => {
    const b = managedBroker(1, spec());
    b.core.storageMode = 'shared';
    const out = produce(b, -1, [{ partition: 0, batch: batch(4) }]);
    expect(out.responses[0]!.partitions[0]).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      baseOffset: 0,
    });
    expect(replica(b, 0).log.highWatermark).toBe(4);
    expect(out.woken).toEqual([KEY0]);
  });
});
