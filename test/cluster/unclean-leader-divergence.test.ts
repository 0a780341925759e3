// An unclean leader election makes the logs diverge: the old leader wrote batches no follower copied, a follower
// that was out of the ISR became leader and wrote its own at the same offsets. When the old leader comes back it
// follows, finds the divergence from the leader-epoch cache (KIP-101) and truncates; afterwards every replica's
// log is the leader's, batch by batch, and a consumer reading from the start sees each record once. (The old
// leader's unreplicated batches are lost: acks=1, and unclean election allows it.)
import { describe, expect, it } from 'vitest';
import { sameBatch } from '../../models/broker/index.ts';
import { brokerNodeId } from '../../models/protocol/index.ts';
import { createCluster } from '../../src/cluster/index.ts';

describe('unclean leader election', () => {
  it('the old leader truncates its diverging batches; the logs end identical; a consumer sees no duplicate', () => {
    const c = createCluster({
      seed: 21,
      brokers: 3,
      brokerConfig: { 'replica.lag.time.max.ms': 5_000 },
    });
    c.admin.createTopic({
      name: 't',
      partitions: 1,
      replicationFactor: 3,
      configs: { 'unclean.leader.election.enable': 'true', 'min.insync.replicas': '1' },
    });
    const p = c.producer('app', { config: { acks: 1, 'linger.ms': 0 } });
    const send = (n: number) => {
      for (let i = 0; i < n; i++) p.send({ topic: 't', partition: 0, valueBytes: 100 });
    };
    send(10);
    c.runFor('2s');
    const before = c.image.topics.t!.partitions[0]!;
    const oldLeader = before.leader;
    const followers = before.replicas.filter((id) => id !== oldLeader);

    // The leader's replication traffic is cut: its followers fall out of the ISR, it goes on alone.
    c.sim.network.dropOutbound(
      brokerNodeId(oldLeader),
      followers.map((id) => brokerNodeId(id)),
    );
    c.runUntil(() => c.image.topics.t!.partitions[0]!.isr.length === 1, { timeout: '20s' });
    send(10);
    c.runFor('1s');
    expect(c.broker(oldLeader).findReplica('t', 0)!.log.logEndOffset).toBe(20);
    // It dies; with no other ISR member alive the controller elects a follower, uncleanly.
    c.crashBroker(oldLeader);
    c.sim.network.heal();
    c.runUntil(
      () =>
        (c.image.topics.t!.partitions[0]!.leader ?? -1) >= 0 &&
        c.image.topics.t!.partitions[0]!.leader !== oldLeader,
      {
        timeout: '30s',
        description: 'an unclean election',
      },
    );
    const elect = c.sim.trace.recent('controller.elect').find((e) => e.topic === 't' && e.unclean === true);
    expect(elect, 'the election was unclean').toBeDefined();
    const newLeader = c.image.topics.t!.partitions[0]!.leader;
    send(5); // the new leader writes its own batches at offsets 10..14
    c.runUntil(() => p.recordsAcked === 25, { timeout: '30s', description: 'the last 5 acknowledged' });

    // The old leader comes back as a follower of the new epoch and truncates what it alone had.
    c.restartBroker(oldLeader);
    c.runUntil(() => c.image.topics.t!.partitions[0]!.isr.length === 3, {
      timeout: '60s',
      description: 'all three replicas back in the ISR',
    });
    c.runFor('2s');
    const truncation = c.sim.trace
      .recent('broker.truncate')
      .find((e) => e.node === brokerNodeId(oldLeader) && e.topic === 't');
    expect(truncation, 'the old leader traced its truncation').toBeDefined();
    expect(truncation!.from).toBe(20);
    expect(truncation!.to).toBe(10);

    const leaderBatches = c.broker(newLeader).findReplica('t', 0)!.log.allBatches();
    expect(leaderBatches.reduce((n, b) => n + b.count, 0)).toBe(15);
    for (const id of before.replicas) {
      const batches = c.broker(id).findReplica('t', 0)!.log.allBatches();
      expect(batches.length, `broker ${id}'s batch count`).toBe(leaderBatches.length);
      for (let i = 0; i < batches.length; i++)
        expect(sameBatch(batches[i]!, leaderBatches[i]!), `broker ${id}, batch ${i}`).toBe(true);
    }

    // A consumer from the start: every record once, in offset order, and exactly the leader's.
    const consumer = c.consumer('reader');
    consumer.assign([{ topic: 't', partition: 0 }]);
    consumer.seek({ topic: 't', partition: 0 }, 0);
    const seen: number[] = [];
    const offsets: number[] = [];
    consumer.onRecords((r) => {
      for (const b of r.batches)
        for (const run of b.runs) for (let k = 0; k < run.count; k++) seen.push(run.index + k);
      for (const b of r.batches) offsets.push(b.baseOffset);
    });
    c.runUntil(() => seen.length >= 15, { timeout: '10s', description: 'the consumer read all' });
    c.runFor('1s');
    expect(seen).toHaveLength(15);
    expect(new Set(seen).size).toBe(15);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    // The old leader's records 10..19 are the ones the unclean election lost.
    expect(seen.filter((i) => i >= 10 && i < 20)).toEqual([]);
    const d = c.deliveryReport('app', 't');
    expect(d.duplicated).toBe(0);
    expect(d.lost).toBe(10);
  });
});
