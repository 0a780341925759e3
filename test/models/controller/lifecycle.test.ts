import { describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

describe('controller lifecycle', () => {
  it('leaves requests unanswered while it is down', () => {
    const h = new Harness({ brokers: [0] }).start();
    h.controller.crash();
    const pending = h.client.send({ type: 'DeleteTopics', topics: ['x'] });
    h.runUntil(() => pending.done, 'outcome', '60s');
    expect(pending.outcome).toEqual({ ok: false, error: 'disconnected' });
  });

  it('rebuilds its image from the log after a restart and carries on', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    h.createTopic('t', 4, 2);
    const before = h.controller.committedImage;
    h.controller.crash();
    h.sim.runFor(3000);
    h.controller.start();
    expect(h.controller.committedImage.topics).toEqual(before.topics);
    expect(h.controller.committedImage.brokers).toEqual(before.brokers);
    expect(h.controller.latestImage).toBe(h.controller.committedImage);
    // Brokers get a fresh session, so the outage does not fence them.
    h.sim.runFor(12_000);
    expect(h.isUnfenced(0) && h.isUnfenced(1)).toBe(true);
    h.createTopic('u', 1, 1);
    expect(h.image.topics.u).toBeDefined();
  });

  it('serves only after records appended before a crash have committed', () => {
    const h = new Harness({ brokers: [0], config: { 'kafkasim.metadata.commit.ms': 500 } }).start();
    const create = h.client.send({
      type: 'CreateTopics',
      topics: [{ name: 'late', numPartitions: 1, replicationFactor: 1 }],
    });
    h.sim.runFor(10); // appended, not committed
    h.controller.crash();
    h.controller.start();
    expect(h.controller.ready).toBe(false);
    const pending = h.client.send({
      type: 'CreateTopics',
      topics: [{ name: 'late', numPartitions: 1, replicationFactor: 1 }],
    });
    h.runUntil(() => pending.done, 'answer after catch-up', '5s');
    expect(pending.response.topics[0]!.errorMessage).toBe("Topic 'late' already exists.");
    // Its answer was lost with the crash; the client saw its connection reset.
    expect(create.outcome).toEqual({ ok: false, error: 'disconnected' });
  });

  it('is deterministic: the same seed gives the same trace', () => {
    const run = (seed: number) => {
      const h = new Harness({ seed, brokers: [0, 1, 2] }).start();
      h.createTopic('a', 12, 2);
      h.broker(1).crash();
      h.runUntil(() => !h.isUnfenced(1), 'fenced', '30s');
      h.call({
        type: 'AlterPartitionReassignments',
        partitions: [{ topic: 'a', partition: 0, replicas: [2, 0] }],
      });
      return { hash: h.sim.trace.hash, image: h.image };
    };
    const a = run(11);
    const b = run(11);
    expect(a.hash).toBe(b.hash);
    expect(a.image).toEqual(b.image);
    expect(run(12).hash).not.toBe(a.hash);
  });
});
