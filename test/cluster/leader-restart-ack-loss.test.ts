// Issue 20's acknowledged-write loss: acks=all, RF 3, min.insync.replicas=2, an idempotent Java producer. The
// leader's outbound traffic to its followers is dropped for 1 s, the leader crashes, the network heals and the
// leader restarts a few seconds later, before its broker session expires. Two things must hold for no
// acknowledged batch to be lost:
// - a retried batch the leader recognises as a duplicate is answered only once the high watermark passes it,
//   as any acks=all append (Kafka's ReplicaManager.appendRecords puts both in DelayedProduce);
// - a restarted broker does not lead in its old epoch from the metadata it replays: it leads only once it has
//   registered and caught up (Kafka's BrokerServer waits for the controller to say it is caught up before the
//   metadata publishers run), and by then the controller has moved leadership off its previous incarnation.
import { describe, expect, it } from 'vitest';
import { brokerNodeId } from '../../models/protocol/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

/** One partition, RF 3, min.insync.replicas=2, on three brokers. */
function rf3MinIsr2(seed: number): Cluster {
  const c = createCluster({ seed, brokers: 3, storage: 'kafka' });
  c.admin.createTopic({
    name: 't',
    partitions: 1,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
  return c;
}

/** Drops everything the partition's leader sends to its followers; returns the leader. */
function cutLeaderFromFollowers(c: Cluster): number {
  const leader = c.image.topics.t!.partitions[0]!.leader;
  const followers = [...c.brokers.keys()].filter((id) => id !== leader).map(brokerNodeId);
  c.sim.network.dropOutbound(brokerNodeId(leader), followers);
  return leader;
}

interface Outcome {
  acknowledged: number;
  lost: number;
  duplicated: number;
  lostExamples: number[];
}

function run(seed: number, restartAfterMs: number, dropAtMs = 2000): Outcome {
  const c = rf3MinIsr2(seed);
  const p = c.producer('p', { flavour: 'java', config: { acks: 'all', 'enable.idempotence': true } });
  // 10 records every 50 ms for 20 s: one 10-record batch per send.
  const tick = p.every(50, () => {
    if (c.now < 20_000) p.sendMany('t', 10, 100, 0);
  });
  c.runFor(dropAtMs);
  const leader = cutLeaderFromFollowers(c);
  c.runFor(1000);
  c.crashBroker(leader);
  c.sim.network.heal();
  c.runFor(restartAfterMs);
  c.restartBroker(leader);
  c.runUntil(() => c.now >= 20_000 && p.pendingRecords === 0, {
    timeout: '200s',
    description: 'every record acknowledged or failed',
  });
  tick.cancel();
  c.runFor('30s');
  const d = c.deliveryReport('p', 't');
  return {
    acknowledged: d.acknowledged,
    lost: d.lost,
    duplicated: d.duplicated,
    lostExamples: d.lostExamples,
  };
}

describe('acks=all, RF 3, min ISR 2: leader cut from followers, crash, heal, quick restart', () => {
  it('the issue 20 reproduction: restart 3 s after the crash loses nothing', () => {
    const o = run(1, 3000);
    expect(o.acknowledged).toBeGreaterThan(3000);
    expect(o, `seed 1: lost ${o.lost}, e.g. ${o.lostExamples.join(',')}`).toMatchObject({
      lost: 0,
      duplicated: 0,
    });
  });

  it('randomised over seeds, restart delays and cut times: nothing acknowledged is lost', () => {
    const failures: string[] = [];
    for (let seed = 1; seed <= 12; seed++) {
      const restart = 1000 + ((seed * 733) % 6000);
      const dropAt = 1500 + ((seed * 397) % 1500);
      const o = run(seed, restart, dropAt);
      if (o.lost > 0 || o.duplicated > 0)
        failures.push(
          `seed ${seed} restart ${restart} ms cut at ${dropAt} ms: lost ${o.lost} duplicated ${o.duplicated} (e.g. ${o.lostExamples.join(',')})`,
        );
    }
    expect(failures).toEqual([]);
  });
});

describe('a retried duplicate waits for the high watermark', () => {
  it('a leader whose followers cannot fetch does not acknowledge the retry of a batch they lack', () => {
    // The leader stays in good standing (it still reaches the controller); its answers to the followers are
    // dropped, so the first attempt times out on the broker after request.timeout.ms and the producer retries
    // the same sequence numbers: the leader recognises the retry as a duplicate. Then it crashes and a follower
    // that never had the batch is elected from the ISR.
    const c = rf3MinIsr2(7);
    const p = c.producer('p', { flavour: 'java', config: { acks: 'all', 'request.timeout.ms': 3000 } });
    c.runFor('1s');
    const leader = cutLeaderFromFollowers(c);
    let duplicates = 0;
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'broker.produce-duplicate') duplicates++;
    });
    p.sendMany('t', 10, 100, 0);
    c.runFor('8s'); // two attempts time out; replica.lag.time.max.ms (30 s) keeps the followers in the ISR
    c.crashBroker(leader);
    c.sim.network.heal();
    c.runUntil(() => c.image.topics.t!.partitions[0]!.leader !== leader, {
      timeout: '30s',
      description: 'a follower elected',
    });
    c.runUntil(() => p.pendingRecords === 0, { timeout: '120s', description: 'the batch settled' });
    c.runFor('5s');
    const d = c.deliveryReport('p', 't');
    expect(duplicates).toBeGreaterThan(0);
    expect(d.lost, `lost ${d.lostExamples.join(',')}`).toBe(0);
    expect(d.acknowledged).toBe(10);
    expect(d.duplicated).toBe(0);
  });
});

describe('acks=all after the ISR shrank below min.insync.replicas', () => {
  it('the high watermark passing a batch acknowledges it only while the ISR is large enough', () => {
    const c = rf3MinIsr2(3);
    const p = c.producer('p', {
      flavour: 'java',
      config: { acks: 'all', 'request.timeout.ms': 60_000, 'delivery.timeout.ms': 300_000 },
    });
    c.runFor('3s');
    cutLeaderFromFollowers(c);
    const errors: string[] = [];
    p.onEvent((e) => {
      if (e.type === 'retry') errors.push(e.error);
    });
    const acked: number[] = [];
    p.onDelivery((r) => {
      if (!r.error) acked.push(c.now);
    });
    p.sendMany('t', 10, 100, 0);
    // replica.lag.time.max.ms (30 s) later the leader shrinks the ISR to itself: its high watermark passes the
    // batch, but with one in-sync replica of the two required it must not say the batch is replicated.
    c.runUntil(() => c.image.topics.t!.partitions[0]!.isr.length === 1, {
      timeout: '60s',
      description: 'the ISR shrank to the leader',
    });
    c.runFor('10s');
    expect(acked).toEqual([]);
    expect(errors).toContain('NOT_ENOUGH_REPLICAS_AFTER_APPEND');
    const healedAt = c.now;
    c.sim.network.heal();
    c.runUntil(() => p.pendingRecords === 0, { timeout: '120s', description: 'the batch settled' });
    expect(acked).toHaveLength(1);
    expect(acked[0]!).toBeGreaterThan(healedAt);
    const d = c.deliveryReport('p', 't');
    expect(d).toMatchObject({ acknowledged: 10, lost: 0, duplicated: 0 });
  });
});

describe('a restarted broker leads only what the controller gives it', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: no leadership in its old epoch, nothing hosted before it registers`, () => {
      const c = createCluster({ seed, brokers: 3, storage: 'kafka' });
      c.admin.createTopic({ name: 't', partitions: 3, replicationFactor: 3 });
      c.runFor('2s');
      const victim = c.image.topics.t!.partitions[0]!.leader;
      const oldEpochs = c.image.topics.t!.partitions.map((p) => p.leaderEpoch);
      const node = brokerNodeId(victim);
      const led: { partition: number; leaderEpoch: number; registered: boolean }[] = [];
      const broker = c.broker(victim);
      let hostedUnregistered = 0;
      c.sim.trace.subscribe((e) => {
        if (e.node !== node) return;
        if (e.kind === 'broker.leader' && e.topic === 't')
          led.push({
            partition: e.partition as number,
            leaderEpoch: e.leaderEpoch as number,
            registered: broker.brokerEpoch >= 0,
          });
      });
      const unwatch = c.sim.onAfterEvent(() => {
        if (broker.up && broker.brokerEpoch < 0 && broker.replicas.size > 0) hostedUnregistered++;
      });
      c.crashBroker(victim);
      c.runFor('500ms');
      c.restartBroker(victim); // well within broker.session.timeout.ms: the controller still names it leader
      c.runFor('30s');
      unwatch();
      expect(hostedUnregistered).toBe(0);
      // It leads again (unfenced, preferred leader election or an offline partition), never in an old epoch.
      for (const l of led) {
        expect(l.registered).toBe(true);
        expect(l.leaderEpoch).toBeGreaterThan(oldEpochs[l.partition]!);
      }
      expect(c.broker(victim).fenced).toBe(false);
    });
  }
});
