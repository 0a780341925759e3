// What a Java producer does when a partition's leader moves (Kafka 3.7+): a retried batch waits out its backoff
// unless the partition has a newer leader than when it was sent (KIP-951, RecordAccumulator.shouldBackoff); and
// the metadata request that follows an error goes to the least loaded connected broker (NetworkClient
// .leastLoadedNode), where it waits behind the produce requests ahead of it on that connection.
import { describe, expect, it } from 'vitest';
import type { Producer } from '../../../models/clients/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

/** A producer sending 1 record/ms to t-0 (RF 2 on brokers 0 and 1, leader 0); `config` for the client. */
function steady(flavour: 'java' | 'librdkafka') {
  const c = createCluster({ seed: 4, brokers: 3 });
  c.admin.createTopic({ name: 't', assignments: [[0, 1]] });
  c.runFor('1s');
  const p: Producer = c.producer('p', {
    flavour,
    config: {
      'retry.backoff.ms': 2000,
      'retry.backoff.max.ms': 2000,
      'linger.ms': 0,
      // Without idempotence no OUT_OF_ORDER_SEQUENCE_NUMBER for the batches behind the refused one (those wait
      // out their backoff in Java too: the leader did not change since they were sent).
      'enable.idempotence': false,
      acks: 1,
    },
  });
  // When the first batch was refused, and when every record sent before that was acknowledged.
  let firstRetry: number | undefined;
  let sentBefore = 0;
  let settledAt: number | undefined;
  p.onEvent((e) => {
    if (e.type !== 'retry' || firstRetry !== undefined) return;
    firstRetry = c.now;
    sentBefore = p.recordsSent;
  });
  p.onDelivery(() => {
    if (firstRetry !== undefined && settledAt === undefined && p.recordsAcked >= sentBefore)
      settledAt = c.now;
  });
  const waited = () => {
    expect(firstRetry).toBeDefined();
    expect(settledAt).toBeDefined();
    return settledAt! - firstRetry!;
  };
  for (let i = 0; i < 3000; i++) c.sim.schedule(i, () => p.send({ topic: 't', partition: 0, value: 'v' }));
  c.runFor('500ms');
  return { c, waited };
}

describe('a producer whose partition changes leader', () => {
  it('Java: a batch refused with NOT_LEADER_OR_FOLLOWER goes to the new leader at once, not after retry.backoff.ms', () => {
    const { c, waited } = steady('java');
    // Broker 0 leaves the replica set: broker 1 leads; broker 0 answers NOT_LEADER_OR_FOLLOWER with the new leader.
    c.admin.alterPartitionReassignments([{ topic: 't', partition: 0, replicas: [1] }]);
    c.runFor('3s');
    // Acknowledged well before the 2 s backoff would have let it go.
    expect(waited()).toBeLessThan(500);
  });

  it('librdkafka (no KIP-951 backoff skip here): the retry waits out retry.backoff.ms', () => {
    const { c, waited } = steady('librdkafka');
    c.admin.alterPartitionReassignments([{ topic: 't', partition: 0, replicas: [1] }]);
    c.runFor('5s');
    expect(waited()).toBeGreaterThan(1500);
  });
});
