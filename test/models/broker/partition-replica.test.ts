// PartitionReplica on its own (Kafka's Partition): the leader's high watermark over the (maximal) ISR, the acks=all
// waiters it completes, followers' fetch positions and caught-up times, ISR expansion and shrink through
// AlterPartition (KIP-497's pending state) and what the controller's answer does. Driven through a fake
// ReplicaHost: a clock, the active brokers, and the AlterPartition requests the test answers.
import { describe, expect, it } from 'vitest';
import {
  type AckWaiter,
  type FollowerState,
  foldIdle,
  lastCaughtUp,
  PartitionReplica,
  type ReplicaHost,
} from '../../../models/broker/partition-replica.ts';
import type { AlterPartitionResponse, ControllerRequest } from '../../../models/protocol/index.ts';
import { Errors } from '../../../models/protocol/index.ts';
import { PartitionLog } from '../../../models/storage/index.ts';
import { batch } from './fakes.ts';

class Host implements ReplicaHost {
  readonly brokerId = 1;
  readonly brokerEpoch = 42;
  time = 1000;
  active = new Set([1, 2, 3, 4]);
  readonly emitted: { kind: string; fields: Record<string, unknown> | undefined }[] = [];
  readonly toControllerCalls: {
    req: ControllerRequest;
    cb: (r: AlterPartitionResponse | undefined) => void;
  }[] = [];
  hwNotices = 0;
  now(): number {
    return this.time;
  }
  emit(kind: string, fields?: Record<string, unknown>): void {
    this.emitted.push({ kind, fields });
  }
  toController<R>(req: ControllerRequest, cb: (r: R | undefined) => void): void {
    this.toControllerCalls.push({ req, cb: cb as (r: AlterPartitionResponse | undefined) => void });
  }
  isBrokerActive(id: number): boolean {
    return this.active.has(id);
  }
  onHighWatermark(): void {
    this.hwNotices++;
  }
  /** What the replica told of its changes (role, leader, epoch, ISR, pending ISR, replicas). */
  replicaChanges = 0;
  onReplicaChanged(): void {
    this.replicaChanges++;
  }
}

/** A log of `records` single-record batches in epoch 3. */
function logOf(records: number): PartitionLog {
  const log = new PartitionLog('t', 0);
  log.assignEpochStart(3);
  for (let i = 0; i < records; i++) log.appendAsLeader(batch(1), 3, 0);
  return log;
}

/** Broker 1 leading t-0 (epoch 3, partition epoch 5) with `records` records. */
function leader(
  host: Host,
  o: { replicas?: number[]; isr?: number[]; records?: number } = {},
): PartitionReplica {
  const r = new PartitionReplica(host, 'id-t:0', 't', 'id-t', 0, logOf(o.records ?? 10));
  r.role = 'leader';
  r.leaderId = 1;
  r.leaderEpoch = 3;
  r.partitionEpoch = 5;
  r.replicas = o.replicas ?? [1, 2, 3];
  r.isr = o.isr ?? [...r.replicas];
  r.syncFollowers();
  return r;
}

function waiter(requiredOffset: number, minIsr: number, codes: number[]): AckWaiter {
  return { requiredOffset, minIsr, resolve: (c) => codes.push(c) };
}

function answer(host: Host, over: Partial<AlterPartitionResponse> = {}): void {
  const call = host.toControllerCalls.shift()!;
  const req = call.req as Extract<ControllerRequest, { type: 'AlterPartition' }>;
  call.cb({
    errorCode: 0,
    leader: 1,
    leaderEpoch: req.leaderEpoch,
    partitionEpoch: req.partitionEpoch + 1,
    isr: req.newIsr,
    ...over,
  });
}

describe('lastCaughtUp and foldIdle', () => {
  const state = (over: Partial<FollowerState>): FollowerState => ({
    leo: 5,
    lastCaughtUpTime: 100,
    lastFetchTime: 150,
    lastFetchLeaderLeo: 5,
    ...over,
  });

  it('an idle session fetch counts as caught up only when it is later', () => {
    expect(lastCaughtUp(state({}))).toBe(100);
    expect(lastCaughtUp(state({ idleIn: { lastFetchMs: 300 } }))).toBe(300);
    expect(lastCaughtUp(state({ idleIn: { lastFetchMs: 50 } }))).toBe(100);
  });

  it('folding takes the later of each time and ends the idle state', () => {
    const f = state({ idleIn: { lastFetchMs: 300 } });
    foldIdle(f);
    expect(f).toEqual(state({ lastCaughtUpTime: 300, lastFetchTime: 300, idleIn: undefined }));
    const g = state({ idleIn: { lastFetchMs: 50 } });
    foldIdle(g);
    expect(g).toEqual(state({ idleIn: undefined }));
    const h = state({});
    foldIdle(h);
    expect(h).toEqual(state({}));
  });
});

describe('PartitionReplica: followers', () => {
  it('a leader tracks every other replica, keeps what it knows of them, and drops removed ones', () => {
    const host = new Host();
    const r = leader(host);
    expect([...r.followers.keys()]).toEqual([2, 3]);
    expect(r.followers.get(2)).toEqual({
      leo: -1,
      lastCaughtUpTime: 1000,
      lastFetchTime: 0,
      lastFetchLeaderLeo: -1,
    });
    r.onFollowerFetch(2, 4);
    host.time = 2000;
    r.replicas = [1, 2, 4];
    r.syncFollowers();
    expect([...r.followers.keys()].sort()).toEqual([2, 4]);
    expect(r.followers.get(2)!.leo).toBe(4);
    expect(r.followers.get(4)!.lastCaughtUpTime).toBe(2000);
  });

  it('a fetch from a broker that is not a follower changes nothing', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2] });
    r.onFollowerFetch(4, 10);
    expect(r.followers.has(4)).toBe(false);
    expect(host.toControllerCalls).toEqual([]);
    expect(r.log.highWatermark).toBe(0);
  });

  it("records the follower's fetch position and when it was last caught up", () => {
    const host = new Host();
    const r = leader(host, { records: 10 });
    host.time = 2000;
    r.onFollowerFetch(2, 10); // at the log end: caught up now
    expect(r.followers.get(2)).toEqual({
      leo: 10,
      lastCaughtUpTime: 2000,
      lastFetchTime: 2000,
      lastFetchLeaderLeo: 10,
    });
    r.log.appendAsLeader(batch(5), 3, 0); // leader at 15
    host.time = 3000;
    r.onFollowerFetch(2, 12); // behind, but past where the leader was at its last fetch: caught up as of then
    expect(r.followers.get(2)).toEqual({
      leo: 12,
      lastCaughtUpTime: 2000,
      lastFetchTime: 3000,
      lastFetchLeaderLeo: 15,
    });
    host.time = 4000;
    r.onFollowerFetch(2, 15); // at the leader's end: caught up now
    expect(r.followers.get(2)!.lastCaughtUpTime).toBe(4000);
    r.log.appendAsLeader(batch(5), 3, 0); // 20
    host.time = 5000;
    r.onFollowerFetch(2, 16); // behind 20 but past 15: caught up as of the previous fetch (4000)
    expect(r.followers.get(2)!.lastCaughtUpTime).toBe(4000);
    host.time = 6000;
    r.onFollowerFetch(2, 18); // behind 20, and below the 20 the leader had at the last fetch: unchanged
    expect(r.followers.get(2)!.lastCaughtUpTime).toBe(4000);
    r.onFollowerFetch(2, 20); // exactly the leader's end: caught up now
    expect(r.followers.get(2)!.lastCaughtUpTime).toBe(6000);
  });

  it('a fetch exactly at the leader end offset of the previous fetch counts as caught up then', () => {
    const host = new Host();
    const r = leader(host, { records: 10 });
    host.time = 2000;
    r.onFollowerFetch(2, 3); // lastFetchLeaderLeo = 10, lastFetchTime = 2000
    r.log.appendAsLeader(batch(5), 3, 0);
    host.time = 3000;
    r.onFollowerFetch(2, 10);
    expect(r.followers.get(2)!.lastCaughtUpTime).toBe(2000);
  });

  it('a follower behind at its first fetch after the election keeps the election time as caught-up time', () => {
    // Kafka's Replica.updateFetchStateOrThrow takes the later of the known caught-up time and the last fetch's.
    const host = new Host();
    host.time = 100_000;
    const r = leader(host, { records: 10 });
    host.time = 100_500;
    r.onFollowerFetch(2, 4); // behind; no previous fetch (time 0)
    expect(r.followers.get(2)!.lastCaughtUpTime).toBe(100_000);
    host.time = 110_000;
    r.onFollowerFetch(3, 10);
    r.maybeShrinkIsr(30_000);
    expect(host.toControllerCalls).toEqual([]);
  });

  it('a fetch folds the idle session state in first', () => {
    const host = new Host();
    const r = leader(host, { records: 10 });
    const f = r.followers.get(2)!;
    f.idleIn = { lastFetchMs: 1500 };
    f.lastFetchLeaderLeo = 10;
    host.time = 2000;
    r.onFollowerFetch(2, 5); // 5 < 10 = lastFetchLeaderLeo: keeps the folded caught-up time
    expect(f.idleIn).toBeUndefined();
    expect(f.lastCaughtUpTime).toBe(1500);
    expect(f.lastFetchTime).toBe(2000);
  });
});

describe('PartitionReplica: the high watermark', () => {
  it('is the lowest ISR fetch position, never above the log end, and only a leader moves it', () => {
    const host = new Host();
    const r = leader(host, { records: 10 });
    r.onFollowerFetch(2, 7);
    expect(r.log.highWatermark).toBe(0); // follower 3 has not fetched: holds it at 0
    r.onFollowerFetch(3, 4);
    expect(r.log.highWatermark).toBe(4);
    r.onFollowerFetch(3, 9);
    expect(r.log.highWatermark).toBe(7);
    r.onFollowerFetch(2, 10);
    expect(r.log.highWatermark).toBe(9);
    r.onFollowerFetch(3, 10);
    expect(r.log.highWatermark).toBe(10);
    expect(host.hwNotices).toBe(4);
    r.role = 'follower';
    r.log.appendAsLeader(batch(2), 3, 0);
    r.followers.get(2)!.leo = 12;
    r.followers.get(3)!.leo = 12;
    r.maybeAdvanceHighWatermark();
    expect(r.log.highWatermark).toBe(10);
  });

  it('followers outside the ISR do not hold it; an ISR member without state holds it at 0', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 6 });
    r.onFollowerFetch(2, 6);
    expect(r.log.highWatermark).toBe(6);
    const s = leader(new Host(), { replicas: [1, 2], isr: [1, 2, 9], records: 6 });
    s.onFollowerFetch(2, 6);
    expect(s.log.highWatermark).toBe(0);
    const alone = leader(new Host(), { replicas: [1], isr: [1], records: 6 });
    alone.maybeAdvanceHighWatermark();
    expect(alone.log.highWatermark).toBe(6);
  });

  it('never goes back, and says nothing when it does not move', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 6 });
    r.onFollowerFetch(2, 6);
    expect(host.hwNotices).toBe(1);
    r.isr = [1, 2, 3];
    r.maybeAdvanceHighWatermark();
    expect(r.log.highWatermark).toBe(6);
    expect(host.hwNotices).toBe(1);
  });

  it('counts the members of an ISR change in flight: the joining one and the leaving one', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 10 });
    r.onFollowerFetch(3, 8); // 3 is not in the ISR; at 8 >= HW 0 it asks to join
    expect(r.pendingIsr).toEqual([1, 2, 3]);
    r.onFollowerFetch(2, 10);
    expect(r.log.highWatermark).toBe(8); // 3 counts while its expansion is in flight
    answer(host, { errorCode: Errors.INVALID_UPDATE_VERSION.code });
    expect(r.pendingIsr).toBeUndefined();
    r.maybeAdvanceHighWatermark();
    expect(r.log.highWatermark).toBe(10); // rejected: 3 no longer counts

    const host2 = new Host();
    const s = leader(host2, { records: 10 });
    s.onFollowerFetch(2, 10);
    s.onFollowerFetch(3, 2);
    host2.time += 60_000;
    s.maybeShrinkIsr(30_000); // neither follower was caught up in the last 60 s
    expect(s.pendingIsr).toEqual([1]);
    s.followers.get(3)!.leo = 5;
    s.maybeAdvanceHighWatermark();
    expect(s.log.highWatermark).toBe(5); // the leaving member still counts until the shrink commits
  });
});

describe('PartitionReplica: acks=all waiters', () => {
  it('completes a waiter once the high watermark reaches its offset, with the ISR size checked then', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 10 });
    const codes: number[] = [];
    r.waiters.push(waiter(5, 2, codes), waiter(6, 2, codes), waiter(10, 2, codes));
    r.onFollowerFetch(2, 5);
    expect(codes).toEqual([0]);
    expect(r.waiters.map((w) => w.requiredOffset)).toEqual([6, 10]);
    r.onFollowerFetch(2, 9);
    expect(codes).toEqual([0, 0]);
    r.isr = [1];
    r.followers.get(2)!.leo = 10;
    r.maybeAdvanceHighWatermark();
    // The ISR shrank below min.insync.replicas since the append: NOT_ENOUGH_REPLICAS_AFTER_APPEND.
    expect(codes).toEqual([0, 0, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code]);
    expect(r.waiters).toEqual([]);
  });

  it('counts the ISR change in flight in the ISR size', () => {
    const host = new Host();
    const r = leader(host, { isr: [1], records: 10 });
    r.onFollowerFetch(2, 0); // joins: pending ISR [1, 2]
    expect(r.pendingIsr).toEqual([1, 2]);
    const codes: number[] = [];
    r.waiters.push(waiter(4, 2, codes));
    r.onFollowerFetch(2, 4);
    expect(codes).toEqual([0]);
  });

  it('fails every waiter with the given error', () => {
    const r = leader(new Host());
    const codes: number[] = [];
    r.waiters.push(waiter(5, 1, codes), waiter(9, 1, codes));
    r.failWaiters(Errors.NOT_LEADER_OR_FOLLOWER.code);
    expect(codes).toEqual([Errors.NOT_LEADER_OR_FOLLOWER.code, Errors.NOT_LEADER_OR_FOLLOWER.code]);
    expect(r.waiters).toEqual([]);
  });
});

describe('PartitionReplica: ISR changes', () => {
  it('a caught-up active follower outside the ISR asks to join, in id order, through the controller', () => {
    const host = new Host();
    const r = leader(host, { replicas: [1, 2, 3, 4], isr: [1, 4], records: 10 });
    r.onFollowerFetch(4, 10);
    expect(r.log.highWatermark).toBe(10);
    const changes = host.replicaChanges;
    r.onFollowerFetch(3, 10);
    expect(r.pendingIsr).toEqual([1, 3, 4]);
    expect(host.replicaChanges).toBe(changes + 1); // the pending ISR is news to the host
    expect(host.emitted).toEqual([
      {
        kind: 'broker.alter-isr',
        fields: { topic: 't', partition: 0, why: 'expand', isr: [1, 4], newIsr: [1, 3, 4] },
      },
    ]);
    expect(host.toControllerCalls.map((c) => c.req)).toEqual([
      {
        type: 'AlterPartition',
        brokerId: 1,
        brokerEpoch: 42,
        topicId: 'id-t',
        partition: 0,
        leaderEpoch: 3,
        partitionEpoch: 5,
        newIsr: [1, 3, 4],
      },
    ]);
    // One change at a time.
    r.onFollowerFetch(2, 10);
    expect(host.toControllerCalls).toHaveLength(1);
    answer(host);
    expect(r.isr).toEqual([1, 3, 4]);
    expect(r.partitionEpoch).toBe(6);
    expect(r.pendingIsr).toBeUndefined();
    expect(host.replicaChanges).toBe(changes + 3); // the pending ISR cleared, the new ISR
    r.onFollowerFetch(2, 10);
    expect(r.pendingIsr).toEqual([1, 2, 3, 4]);
  });

  it('a follower below the high watermark, or on a broker that is not active, does not join', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 10 });
    r.onFollowerFetch(2, 6);
    r.onFollowerFetch(3, 5); // below the high watermark 6
    expect(host.toControllerCalls).toEqual([]);
    r.onFollowerFetch(3, 6); // exactly at it: joins
    expect(r.pendingIsr).toEqual([1, 2, 3]);
    const host2 = new Host();
    host2.active.delete(3);
    const s = leader(host2, { isr: [1, 2], records: 10 });
    s.onFollowerFetch(3, 10);
    expect(host2.toControllerCalls).toEqual([]);
  });

  it('drops followers not caught up for more than replica.lag.time.max.ms, never the leader', () => {
    const host = new Host();
    const r = leader(host, { records: 10 });
    r.onFollowerFetch(2, 10); // caught up at 1000
    r.onFollowerFetch(3, 10);
    host.time = 1000 + 500;
    r.onFollowerFetch(3, 10); // caught up at 1500
    host.time = 1000 + 30_000;
    r.maybeShrinkIsr(30_000); // 2 is exactly at the limit: stays
    expect(host.toControllerCalls).toEqual([]);
    host.time += 1;
    r.maybeShrinkIsr(30_000);
    expect(r.pendingIsr).toEqual([1, 3]);
    expect(host.emitted.at(-1)).toEqual({
      kind: 'broker.alter-isr',
      fields: { topic: 't', partition: 0, why: 'shrink', isr: [1, 2, 3], newIsr: [1, 3] },
    });
    answer(host);
    expect(r.isr).toEqual([1, 3]);
  });

  it('an ISR member with no follower state leaves; a lone leader or a follower replica never shrinks', () => {
    const host = new Host();
    const r = leader(host, { replicas: [1, 2], isr: [1, 2, 7] });
    r.onFollowerFetch(2, 10);
    r.maybeShrinkIsr(30_000);
    expect(r.pendingIsr).toEqual([1, 2]);
    const lone = leader(new Host(), { replicas: [1, 2], isr: [1] });
    lone.resetFollowers();
    const h3 = new Host();
    const f = leader(h3, { records: 10 });
    f.role = 'follower';
    h3.time += 100_000;
    f.maybeShrinkIsr(30_000);
    lone.maybeShrinkIsr(0);
    expect(h3.toControllerCalls).toEqual([]);
    expect(lone.pendingIsr).toBeUndefined();
  });

  it('a session fetch that no longer reads the partition keeps its follower in the ISR', () => {
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 10 });
    r.onFollowerFetch(2, 10);
    host.time += 40_000;
    r.followers.get(2)!.idleIn = { lastFetchMs: host.time - 100 };
    r.maybeShrinkIsr(30_000);
    expect(host.toControllerCalls).toEqual([]);
  });

  it("ignores the controller's answer unless it is a success for this leader epoch and no older partition epoch", () => {
    for (const [bad, why] of [
      [undefined, 'no answer (retry later)'],
      [{ errorCode: Errors.INVALID_UPDATE_VERSION.code }, 'an error'],
      [{ leaderEpoch: 4 }, 'another leader epoch'],
      [{ partitionEpoch: 4 }, 'an older partition epoch'],
    ] as [Partial<AlterPartitionResponse> | undefined, string][]) {
      const host = new Host();
      const r = leader(host, { isr: [1, 2], records: 10 });
      r.onFollowerFetch(3, 10);
      const call = host.toControllerCalls.shift()!;
      call.cb(
        bad === undefined
          ? undefined
          : ({
              errorCode: 0,
              leader: 1,
              leaderEpoch: 3,
              partitionEpoch: 6,
              isr: [1, 2, 3],
              ...bad,
            } as AlterPartitionResponse),
      );
      expect(r.isr, why).toEqual([1, 2]);
      expect(r.partitionEpoch, why).toBe(5);
      expect(r.pendingIsr, why).toBeUndefined();
    }
    // The same partition epoch is accepted (the controller may answer an unchanged ISR with it).
    const host = new Host();
    const r = leader(host, { isr: [1, 2], records: 10 });
    r.onFollowerFetch(2, 10);
    r.onFollowerFetch(3, 10);
    answer(host, { partitionEpoch: 5 });
    expect(r.isr).toEqual([1, 2, 3]);
    expect(r.partitionEpoch).toBe(5);
  });

  it('advances the high watermark when a committed shrink removes the member holding it back', () => {
    const host = new Host();
    const r = leader(host, { records: 10 });
    r.onFollowerFetch(2, 10);
    r.onFollowerFetch(3, 3);
    expect(r.log.highWatermark).toBe(3);
    const codes: number[] = [];
    r.waiters.push(waiter(10, 2, codes));
    host.time += 31_000;
    r.onFollowerFetch(2, 10);
    r.maybeShrinkIsr(30_000);
    expect(r.pendingIsr).toEqual([1, 2]);
    answer(host);
    expect(r.log.highWatermark).toBe(10);
    expect(codes).toEqual([0]);
  });
});
