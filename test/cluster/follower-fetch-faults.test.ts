// Two follower-side liveness bugs the nemesis found (issue 20):
// - a replica that led an epoch without appending to it kept that epoch at its log end after the new leader
//   told it to truncate there (truncating to the log end was a no-op), so every later fetch was told the same
//   and it never caught up; Kafka's UnifiedLog.truncateTo always truncates the epoch cache.
// - a follower whose leader answered its partition with an error asked again at once, a fetch per round trip,
//   for as long as the error lasted; Kafka leaves the partition out for replica.fetch.backoff.ms.
import { describe, expect, it } from 'vitest';
import { brokerNodeId } from '../../models/protocol/index.ts';
import { createCluster } from '../../src/cluster/index.ts';

describe('follower fetches under faults', () => {
  it('a replica that led an empty epoch drops it and catches up with the new leader', () => {
    const c = createCluster({ seed: 2, brokers: 3 });
    c.admin.createTopic({ name: 't', partitions: 1, replicationFactor: 3 });
    c.runFor('1s');
    const first = c.image.topics.t!.partitions[0]!;
    // The first leader started epoch 0 at offset 0 and nobody appended: the others have no epoch yet.
    c.crashBroker(first.leader);
    c.runUntil(() => c.image.topics.t!.partitions[0]!.leader !== first.leader, {
      timeout: '30s',
      description: 'a new leader',
    });
    const p = c.producer('p', { flavour: 'java' });
    p.sendMany('t', 50, 100, 0);
    c.runFor('2s');
    let truncations = 0;
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'broker.truncate' && e.node === brokerNodeId(first.leader)) truncations++;
    });
    c.restartBroker(first.leader);
    c.runUntil(() => c.image.topics.t!.partitions[0]!.isr.includes(first.leader), {
      timeout: '60s',
      description: 'the old leader back in the ISR',
    });
    expect(truncations).toBeLessThanOrEqual(2);
    const key = `${c.image.topics.t!.topicId}:0`;
    const leaderLog = c.broker(c.image.topics.t!.partitions[0]!.leader).replicas.get(key)!.log;
    c.runFor('2s');
    expect(c.broker(first.leader).replicas.get(key)!.log.logEndOffset).toBe(leaderLog.logEndOffset);
  });

  it('a follower told NOT_LEADER_OR_FOLLOWER backs off replica.fetch.backoff.ms', () => {
    const c = createCluster({ seed: 4, brokers: 3 });
    c.admin.createTopic({ name: 't', partitions: 1, replicationFactor: 3 });
    c.runFor('1s');
    const leader = c.image.topics.t!.partitions[0]!.leader;
    c.sim.network.traceMessages = true;
    let fetches = 0;
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'net.send' && e.type === 'Fetch' && e.to === brokerNodeId(leader)) fetches++;
    });
    // A quick restart: the controller still names it leader until its old session expires (9 s), and it hosts
    // nothing until it has registered, so its followers are answered NOT_LEADER_OR_FOLLOWER meanwhile.
    c.crashBroker(leader);
    c.runFor('100ms');
    c.restartBroker(leader);
    const from = c.now;
    c.runUntil(() => c.image.topics.t!.partitions[0]!.leader !== leader, {
      timeout: '30s',
      description: 'the controller moves leadership off the restarted broker',
    });
    const seconds = (c.now - from) / 1000;
    expect(seconds).toBeGreaterThan(3);
    // Two followers, about one fetch each per second of back-off (plus the round trips around it).
    expect(fetches).toBeLessThan(4 * seconds + 10);
  });
});
