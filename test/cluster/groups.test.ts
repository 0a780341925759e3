// Consumer groups end to end on a simulated cluster: the partition-expansion rebalance with librdkafka and Java
// members (its timing comes out of the modelled refresh, heartbeat, join and sync), the auto.offset.reset=latest
// trap, a crashed member (session timeout), a slow member (max.poll.interval.ms), the coordinator's broker
// failing, cooperative rebalancing, a user's assignor and a rebalance listener that holds the rejoin.
import { describe, expect, it } from 'vitest';
import type {
  ConsumedBatches,
  DeliveryResult,
  GroupConsumer,
  GroupConsumerConfigInput,
} from '../../models/clients/index.ts';
import type { Assignor } from '../../models/group/index.ts';
import type { TraceEvent } from '../../models/sim/index.ts';
import type { RecordBatch } from '../../models/storage/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

function record(c: Cluster): TraceEvent[] {
  const events: TraceEvent[] = [];
  c.sim.trace.subscribe((e) => {
    if (e.kind.startsWith('member.') || e.kind.startsWith('group.') || e.kind === 'net.send') events.push(e);
  });
  return events;
}

function members(
  c: Cluster,
  n: number,
  flavour: 'java' | 'librdkafka',
  config: GroupConsumerConfigInput = {},
  topic = 'events',
  group = 'app',
): GroupConsumer[] {
  return Array.from({ length: n }, (_, i) =>
    c.groupConsumer(`${flavour}-${i}`, { flavour, groupId: group, topics: [topic], config }),
  );
}

const stableAt = (ms: GroupConsumer[], generation: number) => () =>
  ms.every((m) => m.memberState === 'Stable' && m.generationId >= generation);

/** Every partition of the topic is owned by exactly one member, `each` per member. */
const fullyAssigned = (ms: GroupConsumer[], partitions: number, each: number) => () => {
  const owned = ms.flatMap((m) => m.ownedPartitions().map((tp) => tp.partition));
  return (
    ms.every((m) => m.memberState === 'Stable' && m.ownedPartitions().length === each) &&
    new Set(owned).size === partitions &&
    owned.length === partitions
  );
};

/** Producer record indices of the records a delivery covers, with their offsets. */
function delivered(r: DeliveryResult): { index: number; partition: number; offset: number }[] {
  const out: { index: number; partition: number; offset: number }[] = [];
  let offset = r.baseOffset;
  for (const run of r.runs)
    for (let i = 0; i < run.count; i++)
      out.push({ index: run.index + i, partition: r.partition, offset: offset++ });
  return out;
}

/** Producer record indices (of `origin`) in what poll() handed over. */
function consumedIndices(c: ConsumedBatches, origin: string): number[] {
  const out: number[] = [];
  const end = c.fromOffset + c.records;
  for (const b of c.batches as RecordBatch[]) {
    if (b.origin !== origin) continue;
    let offset = b.baseOffset;
    for (const run of b.runs) {
      for (let i = 0; i < run.count; i++, offset++)
        if (offset >= c.fromOffset && offset < end) out.push(run.index + i);
    }
  }
  return out;
}

describe('partition expansion: 4 members, 2 partitions → 8', () => {
  /** Alters the topic 100 ms after the members' periodic metadata refresh; returns ms until 2 each. */
  function expansion(flavour: 'java' | 'librdkafka', config: GroupConsumerConfigInput, refreshMs: number) {
    const c = createCluster({ seed: 7, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 2 });
    const events = record(c);
    const start = c.now;
    const ms = members(c, 4, flavour, config);
    c.runUntil(stableAt(ms, 1), { timeout: '30s', description: 'the group formed' });
    // Range gives the two partitions to two members; the other two are idle.
    expect(ms.map((m) => m.ownedPartitions().length).sort()).toEqual([0, 0, 1, 1]);
    const tick = start + Math.ceil((c.now - start) / refreshMs + 1) * refreshMs;
    c.runFor(tick + 100 - c.now);
    const alterAt = c.now;
    c.admin.createPartitions('events', 8);
    const doneAt = c.runUntil(fullyAssigned(ms, 8, 2), { timeout: '600s', description: 'all 8 assigned' });
    const rejoins = events.filter((e) => e.kind === 'member.rejoin-needed' && e.t > alterAt);
    return { c, ms, alterAt, elapsed: doneAt - alterAt, rejoins };
  }

  /**
   * librdkafka members created 1 s apart (so their refresh timers, which count from client creation, are out of
   * phase); the topic is altered `offsetMs` after one of the leader's refreshes. Returns the trace from the alter.
   */
  function staggered(
    offsetMs: number,
    beforeAlter?: (c: Cluster) => void,
    flavour: 'java' | 'librdkafka' = 'librdkafka',
    afterAlter?: (c: Cluster, ms: GroupConsumer[]) => void,
  ) {
    const refresh = 5000;
    const c = createCluster({ seed: 7, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 2 });
    const events = record(c);
    // The periodic refresh: librdkafka's topic.metadata.refresh.interval.ms, Java's metadata.max.age.ms.
    const config =
      flavour === 'java'
        ? { 'metadata.max.age.ms': refresh }
        : { 'topic.metadata.refresh.interval.ms': refresh };
    const ms: GroupConsumer[] = [];
    const created: number[] = [];
    for (let i = 0; i < 4; i++) {
      if (i > 0) c.runFor('1s');
      created.push(c.now);
      ms.push(
        c.groupConsumer(`${flavour}-${i}`, {
          flavour,
          groupId: 'app',
          topics: ['events'],
          config,
        }),
      );
    }
    c.runUntil(stableAt(ms, 1), { timeout: '30s', description: 'the group formed' });
    const leader = ms.find((m) => m.isLeader)!;
    expect(leader).toBe(ms[0]); // the first to join leads
    const generation = leader.generationId;
    const tick = created[0]! + Math.ceil((c.now - created[0]!) / refresh + 1) * refresh;
    c.runFor(tick + offsetMs - c.now);
    beforeAlter?.(c);
    const alterAt = c.now;
    c.admin.createPartitions('events', 8);
    afterAlter?.(c, ms);
    const doneAt = c.runUntil(fullyAssigned(ms, 8, 2), { timeout: '60s', description: 'all 8 assigned' });
    const after = events.filter((e) => e.t > alterAt);
    const byNode = (kind: string, node: string) => after.filter((e) => e.kind === kind && e.node === node);
    return { c, ms, leader, generation, alterAt, doneAt, after, byNode, refresh };
  }

  it('librdkafka: a follower that sees the new count first gets its old assignment back; the leader starts the rebalance', () => {
    // Altered 100 ms after the leader's refresh: followers 1-3 notice 0.9, 1.9 and 2.9 s later, the leader 4.9 s later.
    const { ms, leader, generation, alterAt, doneAt, after, byNode, refresh } = staggered(100);
    const followers = ms.filter((m) => m !== leader);
    const first = followers[0]!;
    // The first follower rejoins on its own refresh ("Metadata for subscribed topic(s) has changed") ...
    const [firstRejoin] = byNode('member.rejoin-needed', first.id);
    expect(firstRejoin!.reason).toBe('Metadata for subscribed topic(s) has changed');
    // ... with the same join metadata as before, so the Stable group answers with the current generation and the
    // member gets its old assignment back: no rebalance from it.
    const firstJoined = byNode('member.joined', first.id)[0]!;
    expect(firstJoined.generation).toBe(generation);
    const prepares = after.filter((e) => e.kind === 'group.prepare-rebalance');
    expect(prepares).toHaveLength(1);
    expect(prepares[0]!.t).toBeGreaterThan(firstJoined.t);
    // The rebalance is started by the leader's JoinGroup, at the leader's own refresh.
    expect(prepares[0]!.reason).toMatch(
      new RegExp(
        `^Leader ${leader.memberId} re-joining group during Stable; client reason: Metadata for subscribed topic`,
      ),
    );
    expect(prepares[0]!.t).toBeGreaterThan(alterAt + refresh - 100);
    // Followers that had already rejoined learn of it from a heartbeat (REBALANCE_IN_PROGRESS).
    for (const f of followers) {
      const reasons = byNode('member.rejoin-needed', f.id).map((e) => e.reason);
      expect(reasons).toContain('Metadata for subscribed topic(s) has changed');
      expect(reasons.at(-1)).toBe('group is already rebalancing');
    }
    // One new generation hands out 2 partitions each.
    expect(ms.every((m) => m.generationId === generation + 1)).toBe(true);
    expect(doneAt).toBeGreaterThan(prepares[0]!.t);
  });

  it('librdkafka: when the leader sees the new count first it starts the rebalance at once', () => {
    // Altered 100 ms before the leader's refresh: it notices first; the followers learn from a heartbeat or rejoin
    // on their own refresh into the rebalance already running (parked, no second rebalance).
    const { ms, leader, generation, alterAt, after, byNode } = staggered(-100);
    const prepares = after.filter((e) => e.kind === 'group.prepare-rebalance');
    expect(prepares).toHaveLength(1);
    expect(prepares[0]!.reason).toMatch(
      new RegExp(`^Leader ${leader.memberId} re-joining group during Stable`),
    );
    expect(prepares[0]!.t).toBeLessThan(alterAt + 1000);
    expect(byNode('member.rejoin-needed', leader.id)[0]!.reason).toBe(
      'Metadata for subscribed topic(s) has changed',
    );
    expect(ms.every((m) => m.generationId === generation + 1)).toBe(true);
    // Every join after the alter is into the new generation: nobody got the old one back.
    for (const m of ms) {
      const joined = byNode('member.joined', m.id).map((e) => e.generation);
      expect(joined.length).toBeGreaterThan(0);
      expect(new Set(joined)).toEqual(new Set([generation + 1]));
    }
  });

  it('librdkafka: a rejoin sends no Metadata request before its JoinGroup (the topic is cached); the leader asks once before it assigns', () => {
    const { ms, leader, after } = staggered(100, (c) => {
      c.sim.network.traceMessages = true;
    });
    for (const m of ms) {
      const mine = after.filter(
        (e) => e.node === m.id && (e.kind === 'net.send' || e.kind === 'member.rejoin-needed'),
      );
      const joins = mine.filter((e) => e.kind === 'net.send' && e.type === 'JoinGroup');
      expect(joins.length).toBeGreaterThan(0);
      for (const join of joins) {
        // Between the decision to rejoin and the JoinGroup: no Metadata request.
        const decided = mine.filter((e) => e.kind === 'member.rejoin-needed' && e.t <= join.t).at(-1)!;
        const between = mine.filter((e) => e.kind === 'net.send' && e.t >= decided.t && e.t < join.t);
        expect(between.map((e) => e.type)).not.toContain('Metadata');
      }
    }
    // The leader's Metadata request right after its JoinGroup answer ("partition assignor"), before its SyncGroup.
    const leaderSends = after.filter((e) => e.node === leader.id && e.kind === 'net.send').map((e) => e.type);
    const sync = leaderSends.lastIndexOf('SyncGroup');
    expect(leaderSends.slice(leaderSends.lastIndexOf('JoinGroup', sync), sync)).toContain('Metadata');
  });

  it('Java: followers that see the new count first do nothing; the leader starts the rebalance; followers learn by heartbeat', () => {
    // Altered 100 ms after the leader's refresh: followers 1-3 refresh 0.9, 1.9 and 2.9 s later and cache 8
    // partitions, but a Java follower does not look (ConsumerCoordinator.rejoinNeededOrPending compares only the
    // leader's assignment snapshot); the leader's own refresh, 4.9 s after the alter, starts the rebalance.
    let quiet: { counts: (number | undefined)[]; rejoins: number; prepares: number } | undefined;
    const { ms, leader, generation, alterAt, after, byNode, refresh } = staggered(
      100,
      (c) => {
        c.sim.network.traceMessages = true;
      },
      'java',
      (c, members) => {
        const at = c.now;
        c.runFor(3500); // every follower has refreshed; the leader has not
        const since = (kind: string) =>
          c.sim.trace.recent(kind).filter((e) => e.t > at && members.some((m) => m.id === e.node)).length;
        quiet = {
          counts: members.slice(1).map((m) => m.metadata.partitionCount('events')),
          rejoins: since('member.rejoin-needed'),
          prepares: c.sim.trace.recent('group.prepare-rebalance').filter((e) => e.t > at).length,
        };
      },
    );
    expect(quiet).toEqual({ counts: [8, 8, 8], rejoins: 0, prepares: 0 });
    const followers = ms.filter((m) => m !== leader);
    // Who triggers: the leader, on its own refresh, with Java's reason.
    expect(byNode('member.rejoin-needed', leader.id).map((e) => e.reason)).toEqual([
      'cached metadata has changed',
    ]);
    const prepares = after.filter((e) => e.kind === 'group.prepare-rebalance');
    expect(prepares).toHaveLength(1);
    expect(prepares[0]!.reason).toMatch(
      new RegExp(
        `^Leader ${leader.memberId} re-joining group during Stable; client reason: cached metadata has changed`,
      ),
    );
    expect(prepares[0]!.t).toBeGreaterThan(alterAt + refresh - 100);
    // Who learns: each follower from a heartbeat answered REBALANCE_IN_PROGRESS, once.
    for (const f of followers) {
      expect(byNode('member.rejoin-needed', f.id).map((e) => e.reason)).toEqual([
        'group is already rebalancing',
      ]);
      const heard = byNode('member.rejoin-needed', f.id)[0]!;
      const lastHeartbeat = after
        .filter((e) => e.node === f.id && e.kind === 'net.send' && e.type === 'Heartbeat' && e.t <= heard.t)
        .at(-1)!;
      expect(lastHeartbeat.t).toBeGreaterThan(prepares[0]!.t);
      expect(heard.t - prepares[0]!.t).toBeLessThan(3000 + 100); // within heartbeat.interval.ms
    }
    // Java's leader assigns from its cache (no Metadata request between its JoinGroup and SyncGroup) and nobody
    // fetches metadata before a JoinGroup.
    const leaderSends = after.filter((e) => e.node === leader.id && e.kind === 'net.send').map((e) => e.type);
    const sync = leaderSends.lastIndexOf('SyncGroup');
    expect(leaderSends.slice(leaderSends.lastIndexOf('JoinGroup', sync), sync)).not.toContain('Metadata');
    expect(ms.every((m) => m.generationId === generation + 1)).toBe(true);
  });

  it('Java, default metadata.max.age.ms: only the leader notices, minutes later; followers learn by heartbeat', () => {
    const { ms, elapsed, rejoins } = expansion('java', {}, 300_000);
    // The leader's refresh comes 300 s after the previous one; the others follow within a heartbeat interval.
    expect(elapsed).toBeGreaterThan(300_000 - 100);
    expect(elapsed).toBeLessThan(300_000 - 100 + 3000 + 1000);
    const leader = ms.find((m) => m.isLeader)!;
    const byLeader = rejoins.filter((e) => e.node === leader.id);
    expect(byLeader.map((e) => e.reason)).toEqual(['cached metadata has changed']);
    const byFollowers = rejoins.filter((e) => e.node !== leader.id);
    expect(byFollowers).toHaveLength(3);
    expect(new Set(byFollowers.map((e) => e.reason))).toEqual(new Set(['group is already rebalancing']));
  });

  it('Java, a refresh shorter than the rebalance: the leader rejoins once, not again when a refresh lands mid-join', () => {
    // With metadata.max.age.ms=500 the leader refreshes while the rebalance it started is still running (the
    // followers only learn of it at their next heartbeat, up to 3 s). Its old assignment snapshot still says 2
    // partitions then, but Java clears the rejoin at SyncGroup and the new snapshot is taken from fresh metadata.
    const { ms, elapsed, rejoins } = expansion('java', { 'metadata.max.age.ms': 500 }, 500);
    const leader = ms.find((m) => m.isLeader)!;
    expect(rejoins.filter((e) => e.node === leader.id).map((e) => e.reason)).toEqual([
      'cached metadata has changed',
    ]);
    // One rebalance: each follower rejoins once.
    expect(rejoins.filter((e) => e.node !== leader.id)).toHaveLength(3);
    expect(elapsed).toBeLessThan(500 + 3000 + 1000);
  });
});

describe('auto.offset.reset and new partitions', () => {
  function trap(reset: 'latest' | 'earliest') {
    const c = createCluster({ seed: 11, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 2 });
    const ms = members(c, 4, 'librdkafka', {
      'topic.metadata.refresh.interval.ms': 5000,
      'auto.offset.reset': reset,
    });
    const consumed = new Set<number>();
    for (const m of ms)
      m.onRecords((b) => {
        for (const i of consumedIndices(b, 'writer')) consumed.add(i);
      });
    c.runUntil(stableAt(ms, 1), { timeout: '30s' });
    c.runFor('1s');
    c.admin.createPartitions('events', 8);
    // A producer that knows the new partitions at once writes to every partition, 5 records/s each, for 10 s.
    const writer = c.producer('writer');
    const produced: { index: number; partition: number; offset: number }[] = [];
    writer.onDelivery((r) => {
      if (!r.error) produced.push(...delivered(r));
    });
    for (let t = 0; t < 10_000; t += 200)
      c.sim.schedule(t + 50, () => {
        for (let p = 0; p < 8; p++) writer.send({ topic: 'events', partition: p, value: `v${t}` });
      });
    c.runFor('25s');
    expect(fullyAssigned(ms, 8, 2)()).toBe(true);
    const resets = ms.flatMap((m) => m.resets).filter((r) => r.topic === 'events' && r.partition >= 2);
    const skipped = produced.filter((r) => !consumed.has(r.index));
    return { c, produced, skipped, resets };
  }

  it('latest: exactly the records written to a new partition before its owner reset are skipped', () => {
    const { c, produced, skipped, resets } = trap('latest');
    expect(produced).toHaveLength(8 * 50);
    // One reset per new partition, at the moment the new owner had no committed offset.
    expect(resets.map((r) => r.partition).sort()).toEqual([2, 3, 4, 5, 6, 7]);
    const resetOffset = new Map(resets.map((r) => [r.partition, r.offset]));
    const expected = produced.filter((r) => r.partition >= 2 && r.offset < resetOffset.get(r.partition)!);
    expect(expected.length).toBeGreaterThan(0);
    expect(skipped.map((r) => r.index).sort((a, b) => a - b)).toEqual(
      expected.map((r) => r.index).sort((a, b) => a - b),
    );
    // They are the ones appended before the reset: ListOffsets(latest) read the high watermark while in flight.
    const logs = c.partitionLogs('events');
    const appendedBefore = (partition: number, t: number) =>
      logs
        .find((l) => l.partition === partition)!
        .allBatches()
        .filter((b) => b.appendTime <= t)
        .reduce((n, b) => n + b.count, 0);
    for (const r of resets) {
      expect(r.offset).toBeGreaterThanOrEqual(appendedBefore(r.partition, r.requestedAt));
      expect(r.offset).toBeLessThanOrEqual(appendedBefore(r.partition, r.time));
    }
    // Nothing from the two original partitions was skipped.
    expect(skipped.every((r) => r.partition >= 2)).toBe(true);
  });

  it('earliest: the new owners start at offset 0 and nothing is skipped', () => {
    const { produced, skipped, resets } = trap('earliest');
    expect(produced).toHaveLength(8 * 50);
    expect(resets.map((r) => [r.partition, r.offset]).sort()).toEqual([2, 3, 4, 5, 6, 7].map((p) => [p, 0]));
    expect(skipped).toEqual([]);
  });
});

describe('failures', () => {
  it('a crashed member is expired after session.timeout.ms and its partitions move', () => {
    const c = createCluster({ seed: 13, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 6 });
    const events = record(c);
    const ms = members(c, 3, 'java', { 'session.timeout.ms': 10_000 });
    c.runUntil(stableAt(ms, 1), { timeout: '30s' });
    c.runFor('5s');
    const victim = ms[1]!;
    const crashAt = c.now;
    victim.crash();
    const rest = [ms[0]!, ms[2]!];
    c.runUntil(fullyAssigned(rest, 6, 3), { timeout: '60s', description: 'survivors own everything' });
    const expired = events.find((e) => e.kind === 'group.member-expired')!;
    expect(expired.memberId).toBe(victim.memberId);
    // Its last heartbeat was at most heartbeat.interval.ms (3 s) before the crash.
    expect(expired.t - crashAt).toBeGreaterThan(10_000 - 3000);
    expect(expired.t - crashAt).toBeLessThanOrEqual(10_000);
    expect(rest.every((m) => m.generationId === 2)).toBe(true);
  });

  it('a member that processes longer than max.poll.interval.ms leaves the group, then rejoins as a new member', () => {
    const c = createCluster({ seed: 17, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 6 });
    const events = record(c);
    const ms = members(c, 3, 'java', { 'max.poll.interval.ms': 10_000 });
    const slow = ms[2]!;
    c.runUntil(stableAt(ms, 1), { timeout: '30s' });
    const firstId = slow.memberId;
    const p = c.producer('writer');
    c.sim.schedule(0, () => {
      for (let i = 0; i < 600; i++)
        c.sim.schedule(i * 50, () => p.send({ topic: 'events', partition: i % 6, value: 'x' }));
    });
    // From now on every poll that returns records keeps the slow member busy for 15 s.
    slow.processing = { perPollMs: 15_000 };
    const busyFrom = c.now;
    c.runUntil(() => slow.pollTimeouts > 0, { timeout: '60s', description: 'the poll timeout' });
    const timeout = events.find((e) => e.kind === 'member.poll-timeout')!;
    const handed = events.find((e) => e.kind === 'member.leave')!;
    expect(handed.reason).toBe('consumer poll timeout has expired.');
    expect(timeout.t - busyFrom).toBeLessThan(10_000 + 1000);
    expect(timeout.t - busyFrom).toBeGreaterThanOrEqual(10_000);
    // The coordinator removes it on its LeaveGroup; the others take its partitions.
    c.runUntil(fullyAssigned([ms[0]!, ms[1]!], 6, 3), {
      timeout: '30s',
      description: 'the two others own all',
    });
    expect(events.some((e) => e.kind === 'group.member-removed' && e.memberId === firstId)).toBe(true);
    // When its processing ends it polls, finds itself out of the group and joins again with a new id.
    c.runUntil(() => slow.memberState === 'Stable' && slow.memberId !== '' && slow.memberId !== firstId, {
      timeout: '30s',
      description: 'the slow member back',
    });
    expect(slow.memberId).not.toBe(firstId);
  });

  it('the coordinator broker fails: members find the new coordinator, the group and its offsets survive', () => {
    const c = createCluster({ seed: 19, brokers: 3, storage: 'kafka' });
    c.admin.createTopic({ name: 'events', partitions: 6, replicationFactor: 3 });
    const ms = members(c, 3, 'java');
    const consumed = new Set<number>();
    for (const m of ms)
      m.onRecords((b) => {
        for (const i of consumedIndices(b, 'writer')) consumed.add(i);
      });
    c.runUntil(stableAt(ms, 1), { timeout: '30s' });
    const p = c.producer('writer');
    const acked: number[] = [];
    p.onDelivery((r) => {
      if (!r.error) acked.push(...delivered(r).map((d) => d.index));
    });
    for (let i = 0; i < 1200; i++)
      c.sim.schedule(i * 25, () => p.send({ topic: 'events', partition: i % 6, value: `r${i}` }));
    c.runFor('10s');
    const generation = ms[0]!.generationId;
    const ids = ms.map((m) => m.memberId);
    const old = c.groupCoordinator('app');
    const committedBefore = c.groupView('app').offsets.map((o) => o.committedOffset ?? -1);
    expect(committedBefore.every((o) => o > 0)).toBe(true);
    c.crashBroker(old);
    c.runUntil(
      () =>
        c.groupCoordinator('app') !== old && ms.every((m) => m.coordinatorId === c.groupCoordinator('app')),
      {
        timeout: '60s',
        description: 'members on the new coordinator',
      },
    );
    c.runFor('30s');
    const view = c.groupView('app');
    expect(view.coordinator.id).not.toBe(old);
    expect(view.state).toBe('Stable');
    // Loaded from __consumer_offsets: same members, no rebalance needed.
    expect(view.members.map((m) => m.consumerId).sort()).toEqual([...ids].sort());
    expect(ms.every((m) => m.generationId === generation)).toBe(true);
    const committedAfter = view.offsets.map((o) => o.committedOffset ?? -1);
    for (const [i, o] of committedAfter.entries()) expect(o).toBeGreaterThanOrEqual(committedBefore[i]!);
    expect(acked).toHaveLength(1200);
    expect(acked.filter((i) => !consumed.has(i))).toEqual([]);
  });
});

describe('rebalance protocols and extension points', () => {
  it('cooperative-sticky: a joiner gets partitions in a second rebalance; owners revoke only what moves', () => {
    const c = createCluster({ seed: 23, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 6 });
    const cfg = {
      'partition.assignment.strategy': 'org.apache.kafka.clients.consumer.CooperativeStickyAssignor',
    };
    const ms = members(c, 2, 'java', cfg);
    expect(ms[0]!.rebalanceProtocol).toBe('COOPERATIVE');
    c.runUntil(fullyAssigned(ms, 6, 3), { timeout: '30s' });
    const before = new Map(ms.map((m) => [m.id, m.ownedPartitions().map((tp) => tp.partition)]));
    const joiner = c.groupConsumer('java-2', { groupId: 'app', topics: ['events'], config: cfg });
    const all = [...ms, joiner];
    c.runUntil(fullyAssigned(all, 6, 2), { timeout: '30s' });
    for (const m of ms) {
      const moved = before.get(m.id)!.filter((p) => !m.ownedPartitions().some((tp) => tp.partition === p));
      const revoked = m.assignments.flatMap((a) => a.revoked.map((tp) => tp.partition));
      expect(revoked).toEqual(moved);
      expect(moved).toHaveLength(1);
    }
    // First rebalance: the joiner gets nothing (the partitions are still owned); second: the two moved ones.
    expect(joiner.assignments.map((a) => a.assigned.length)).toEqual([0, 2]);
    expect(joiner.assignments[1]!.generationId).toBe(joiner.assignments[0]!.generationId + 1);
  });

  it('a user assignor with the assignors.* shape decides the assignment and names the strategy', () => {
    const firstTakesAll: Assignor = {
      name: 'first-takes-all',
      assign: ({ partitionsPerTopic, members: subs }) => {
        const ids = subs.map((m) => m.memberId).sort();
        const out: Record<string, { topic: string; partition: number }[]> = Object.fromEntries(
          ids.map((id) => [id, []]),
        );
        for (const [topic, n] of Object.entries(partitionsPerTopic))
          for (let p = 0; p < n; p++) out[ids[0]!]!.push({ topic, partition: p });
        return out;
      },
    };
    const c = createCluster({ seed: 29, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 4 });
    const ms = [0, 1].map((i) =>
      c.groupConsumer(`custom-${i}`, { groupId: 'app', topics: ['events'], assignors: [firstTakesAll] }),
    );
    c.runUntil(stableAt(ms, 1), { timeout: '30s' });
    const first = [...ms].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
    expect(first[0]!.ownedPartitions().map((tp) => tp.partition)).toEqual([0, 1, 2, 3]);
    expect(first[1]!.ownedPartitions()).toEqual([]);
    expect(c.groupView('app').assignmentStrategy).toBe('first-takes-all');
  });

  it('a rebalance listener can hold the rejoin until it has flushed and committed', () => {
    const c = createCluster({ seed: 31, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 2 });
    const events = record(c);
    const flushMs = 2000;
    let revokedAt = -1;
    const sink = c.groupConsumer('sink', {
      groupId: 'lake',
      topics: ['events'],
      config: { 'enable.auto.commit': false },
      listener: {
        onPartitionsRevoked: (partitions, ctl) => {
          if (partitions.length === 0) return;
          revokedAt = c.now;
          const release = ctl.hold();
          // Flush for 2 s, then commit exactly what was flushed, then let the rejoin go on.
          c.sim.schedule(flushMs, () =>
            ctl.consumer.commitOffsets(
              partitions.map((tp) => ({ ...tp, offset: 42 })),
              () => release(),
            ),
          );
        },
      },
    });
    c.runUntil(stableAt([sink], 1), { timeout: '30s' });
    // A second member joining makes the sink revoke (eager) and rejoin.
    const other = c.groupConsumer('other', { groupId: 'lake', topics: ['events'] });
    c.runUntil(stableAt([sink, other], 2), { timeout: '30s' });
    const rejoin = events.find((e) => e.kind === 'member.join' && e.node === 'sink' && e.t > revokedAt)!;
    expect(revokedAt).toBeGreaterThan(0);
    expect(rejoin.t - revokedAt).toBeGreaterThanOrEqual(flushMs);
    expect(c.groupView('lake').offsets.map((o) => o.committedOffset)).toEqual([42, 42]);
  });
});
