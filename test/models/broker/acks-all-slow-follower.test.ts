// acks=all with an ISR follower that stops fetching: the leader appends at once but acknowledges only when the
// high watermark passes the batch, which it can do only once the follower has left the ISR, after
// replica.lag.time.max.ms without catching up (Kafka's Partition.maybeShrinkIsr and DelayedProduce).
import { describe, expect, it } from 'vitest';
import type { DeliveryResult } from '../../../models/clients/index.ts';
import { brokerNodeId } from '../../../models/protocol/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

const LAG_MS = 10_000;

describe('acks=all with a follower that stopped fetching', () => {
  it('acknowledges only after the ISR shrank, and the high watermark passed the batch', () => {
    const c = createCluster({ seed: 9, brokers: 3, brokerConfig: { 'replica.lag.time.max.ms': LAG_MS } });
    c.admin.createTopic({
      name: 't',
      partitions: 1,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '2' },
    });
    const p = c.producer('app', { config: { acks: 'all', 'linger.ms': 0 } });
    const results: DeliveryResult[] = [];
    p.send({ topic: 't', partition: 0, valueBytes: 100 }, (r) => results.push(r));
    c.runUntil(() => results.length === 1, { timeout: '5s' });
    expect(results[0]!.error).toBeUndefined();

    const reg = c.image.topics.t!.partitions[0]!;
    const leader = c.broker(reg.leader);
    const slow = reg.replicas.find((id) => id !== reg.leader)!;
    const other = reg.replicas.find((id) => id !== reg.leader && id !== slow)!;
    expect(reg.isr).toHaveLength(3);
    // The slow follower's fetches never reach the leader; it still heartbeats, so it stays registered.
    c.sim.network.dropOutbound(brokerNodeId(slow), [brokerNodeId(reg.leader)]);
    const cut = c.now;
    p.send({ topic: 't', partition: 0, valueBytes: 100 }, (r) => results.push(r));

    // Appended on the leader and copied by the other follower, but not acknowledged while the slow one is in the
    // ISR: the high watermark stays below the batch.
    c.runFor(LAG_MS / 2);
    const log = leader.findReplica('t', 0)!.log;
    expect(log.logEndOffset).toBe(2);
    expect(c.broker(other).findReplica('t', 0)!.log.logEndOffset).toBe(2);
    expect(log.highWatermark).toBe(1);
    expect(results).toHaveLength(1);
    expect(c.image.topics.t!.partitions[0]!.isr).toContain(slow);

    // The leader drops it from the ISR after replica.lag.time.max.ms; then the batch is committed and acknowledged.
    c.runUntil(() => results.length === 2, { timeout: '30s', description: 'the second acknowledgement' });
    const ack = results[1]!;
    expect(ack.error).toBeUndefined();
    expect(ack.baseOffset).toBe(1);
    expect(ack.time - cut).toBeGreaterThan(LAG_MS);
    expect(ack.time - cut).toBeLessThan(LAG_MS * 1.5 + 1000);
    const shrink = c.sim.trace
      .recent('controller.isr')
      .find((e) => e.topic === 't' && !(e.isr as number[]).includes(slow));
    expect(shrink, 'the ISR shrink the controller committed').toBeDefined();
    expect([...(shrink!.isr as number[])].sort()).toEqual([reg.leader, other].sort());
    expect(shrink!.t).toBeLessThanOrEqual(ack.time);
    expect(shrink!.t - cut).toBeGreaterThan(LAG_MS);
    expect(log.highWatermark).toBe(2);
    expect(c.deliveryReport('app', 't').lost).toBe(0);
  });
});
