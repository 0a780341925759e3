// A produce request carrying an older producer epoch than the leader has seen for that producer is refused with
// INVALID_PRODUCER_EPOCH (ProducerAppendInfo.checkProducerEpoch; since Kafka 2.7 the answer to a client's append
// of a fenced epoch), nothing is appended, and the producer's newer epoch goes on as before.
import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/errors.ts';
import { brokerNodeId, type ProduceRequest, type ProduceResponse } from '../../../models/protocol/index.ts';
import { SimNode } from '../../../models/sim/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

/** A bare client node that sends the test's own requests. */
class Probe extends SimNode {}

describe('a fenced producer epoch', () => {
  it('is answered INVALID_PRODUCER_EPOCH and does not reset the producer state of the newer epoch', () => {
    const c = createCluster({ seed: 3, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 1 });
    c.runFor('1s');
    const probe = new Probe(c.sim, 'probe');
    probe.start();
    let index = 0;
    let correlationId = 0;
    const produce = (
      epoch: number,
      seq: number,
      count: number,
    ): { errorCode: number; baseOffset: number } => {
      const req: ProduceRequest = {
        type: 'Produce',
        acks: -1,
        timeoutMs: 1000,
        clientId: 'probe',
        correlationId: ++correlationId,
        partitions: [
          {
            topic: 't',
            partition: 0,
            batch: {
              count,
              bytes: 10 * count,
              producerId: 42,
              producerEpoch: epoch,
              baseSequence: seq,
              origin: 'probe',
              runs: [{ index, count, time: c.now }],
            },
          },
        ],
      };
      index += count;
      let out: ProduceResponse | undefined;
      probe.request<ProduceResponse>(brokerNodeId(0), req, (o) => {
        if (o.ok) out = o.response;
      });
      c.runUntil(() => out !== undefined, { timeout: '2s', description: 'produce answered' });
      return out!.partitions[0]!;
    };
    expect(produce(0, 0, 2)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(produce(1, 0, 3)).toMatchObject({ errorCode: 0, baseOffset: 2 });
    const fenced = produce(0, 2, 2);
    expect(fenced.errorCode).toBe(Errors.INVALID_PRODUCER_EPOCH.code);
    const log = c.brokers.get(0)!.findReplica('t', 0)!.log;
    expect(log.logEndOffset).toBe(5);
    // Had the old epoch been taken, epoch 1's next batch (sequence 3) would be out of order.
    expect(produce(1, 3, 1)).toMatchObject({ errorCode: 0, baseOffset: 5 });
    expect(produce(1, 3, 1)).toMatchObject({ errorCode: 0, baseOffset: 5 }); // a retry: the duplicate's answer
    expect(log.logEndOffset).toBe(6);
  });
});
