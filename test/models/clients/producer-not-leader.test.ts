// A NOT_LEADER_OR_FOLLOWER that names no new leader: Java's Sender.completeBatch only asks for metadata
// (metadata.requestUpdate), so its cached leader stays, and once the refused batch's retry backoff is over it goes
// to that broker again unless a metadata answer or a later error named another; librdkafka marks the partition's
// leader unavailable (rd_kafka_toppar_leader_unavailable) and waits for metadata.
import { describe, expect, it } from 'vitest';
import type { ClientFlavour } from '../../../models/clients/index.ts';
import { Errors, type ProduceRequest } from '../../../models/protocol/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

/** One refusal without a hint while metadata answers are slow; what the producer did before one came. */
function refuseOnce(flavour: ClientFlavour) {
  const c = createCluster({ seed: 5, brokers: 2 });
  c.admin.createTopic({ name: 't', assignments: [[0]] });
  c.runFor('1s');
  const p = c.producer('p', { flavour, config: { 'linger.ms': 0, 'enable.idempotence': false, acks: 1 } });
  c.runFor('1s');
  let refusedAt: number | undefined;
  const produceTimes: number[] = [];
  c.sim.network.setRequestInterceptor((_from, _to, payload) => {
    const type = (payload as { type?: string }).type;
    // Metadata answers take 150 ms (longer than the 100 ms retry backoff), so what the producer does meanwhile
    // comes from its own cache.
    if (type === 'Metadata' && refusedAt !== undefined) return { delayMs: 150 };
    if (type !== 'Produce') return undefined;
    produceTimes.push(c.now);
    if (refusedAt !== undefined) return undefined;
    refusedAt = c.now;
    const req = payload as ProduceRequest;
    return {
      reply: {
        correlationId: req.correlationId,
        partitions: req.partitions.map((x) => ({
          topic: x.topic,
          partition: x.partition,
          errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
          baseOffset: -1,
        })),
      },
    };
  });
  for (let i = 0; i < 200; i++) c.sim.schedule(i, () => p.send({ topic: 't', partition: 0, value: 'v' }));
  c.runFor('20ms');
  expect(refusedAt).toBeDefined();
  const cached = p.metadata.leader('t', 0)?.leader;
  c.runFor('120ms');
  const sentAfter = produceTimes.filter((t) => t > refusedAt! + 1 && t < refusedAt! + 140).length;
  return { cached, sentAfter };
}

describe('a producer refused with NOT_LEADER_OR_FOLLOWER and no new leader', () => {
  it('Java keeps its cached leader and, after the retry backoff, sends to it again', () => {
    const { cached, sentAfter } = refuseOnce('java');
    expect(cached).toBe(0);
    expect(sentAfter).toBeGreaterThan(0);
  });

  it('librdkafka forgets the leader and sends nothing to the partition until metadata answers', () => {
    const { cached, sentAfter } = refuseOnce('librdkafka');
    expect(cached).toBe(-1);
    expect(sentAfter).toBe(0);
  });
});
