// ReplicaFetcher on its own (Kafka's ReplicaFetcherThread with FetchSessionHandler): the fetch requests a follower
// sends (full, then incremental naming only what changed, forgotten partitions), what it does with each answer
// (append, take the leader's high watermark, truncate on a diverging epoch, back off a partition in error), how
// it starts over after a session error or a lost request, throttling, and stopping when nothing is followed.
// Driven through a fake BrokerCore whose requests the test answers; the replicas come from a real ReplicaManager.
import { describe, expect, it } from 'vitest';
import { ReplicaFetcher } from '../../../models/broker/replica-fetcher.ts';
import type { FetchPartitionResponse, FetchRequest, FetchResponse } from '../../../models/protocol/index.ts';
import { Errors } from '../../../models/protocol/index.ts';
import type { PartitionLog } from '../../../models/storage/index.ts';
import {
  batch,
  type ImageSpec,
  logWith,
  type ManagedBroker,
  managedBroker,
  type SentRequest,
} from './fakes.ts';

/** Broker 2 follows t-0 and t-1 from broker 1 (epoch 3) and t-2 from broker 3 (epoch 5). */
const SPEC: ImageSpec = {
  topics: {
    t: [
      { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
      { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
      { replicas: [1, 2, 3], leader: 3, leaderEpoch: 5 },
    ],
  },
};

interface Follower {
  b: ManagedBroker;
  fetcher: ReplicaFetcher;
  /** Applies an image and hands newly followed replicas to the fetcher, as the broker does (and changed ones). */
  apply(spec: ImageSpec): void;
}

function follower(spec: ImageSpec = SPEC, logs: Record<string, PartitionLog> = {}): Follower {
  const b = managedBroker(2);
  for (const [key, log] of Object.entries(logs)) b.logs.set(key, log);
  const fetcher = new ReplicaFetcher(b.core, b.rm);
  b.onReplicaChanged = (r) => fetcher.changed(r);
  const f: Follower = {
    b,
    fetcher,
    apply(s) {
      b.apply(s);
      for (const key of b.followed.splice(0)) fetcher.follow(b.rm.replicas.get(key)!);
    },
  };
  f.apply(spec);
  return f;
}

/** Runs what is due now and returns the fetches sent (to `to` only, when given). */
function fetches(f: Follower, to?: string): (SentRequest & { req: FetchRequest })[] {
  f.b.core.sim.runFor(0);
  const all = f.b.core.take().map((s) => ({ ...s, req: s.payload as FetchRequest }));
  const wanted = to ? all.filter((s) => s.to === to) : all;
  // Requests to other leaders are put back.
  if (to) f.b.core.sent.push(...all.filter((s) => s.to !== to));
  return wanted;
}

function one(f: Follower, to = 'broker-1'): SentRequest & { req: FetchRequest } {
  const got = fetches(f, to);
  expect(got, `one fetch to ${to}`).toHaveLength(1);
  return got[0]!;
}

function part(partition: number, over: Partial<FetchPartitionResponse> = {}): FetchPartitionResponse {
  return { topic: 't', partition, errorCode: 0, highWatermark: 0, logStartOffset: 0, batches: [], ...over };
}

function ok(s: SentRequest, response: FetchResponse): void {
  s.answer({ ok: true, response });
}

const named = (req: FetchRequest) => req.partitions.map((p) => p.partition);
const log = (f: Follower, p: number) => f.b.rm.findReplica('t', p)!.log;

describe('ReplicaFetcher: requests and sessions', () => {
  it('sends one full fetch per leader, then incremental fetches naming only what changed', () => {
    const leaderLog = logWith([
      [1, 2],
      [3, 3],
    ]);
    const f = follower();
    const all = fetches(f);
    expect(all.map((s) => s.to).sort()).toEqual(['broker-1', 'broker-3']);
    const first = all.find((s) => s.to === 'broker-1')!;
    expect(first.timeoutMs).toBe(500 + 30_000);
    expect(first.req).toEqual({
      type: 'Fetch',
      replicaId: 2,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 10_485_760,
      sessionId: 0,
      sessionEpoch: 0,
      partitions: [0, 1].map((partition) => ({
        topic: 't',
        partition,
        fetchOffset: 0,
        lastFetchedEpoch: -1,
        currentLeaderEpoch: 3,
        partitionMaxBytes: 1_048_576,
      })),
    });
    ok(first, {
      sessionId: 77,
      partitions: [part(0, { batches: leaderLog.read(0, 5, 1 << 20), highWatermark: 4 }), part(1)],
    });
    expect(log(f, 0).allBatches()).toEqual(leaderLog.allBatches());
    expect(log(f, 0).highWatermark).toBe(4);
    // Incremental: only t-0 moved.
    const second = one(f);
    expect(second.req).toMatchObject({ sessionId: 77, sessionEpoch: 1 });
    expect(second.req.partitions).toEqual([
      {
        topic: 't',
        partition: 0,
        fetchOffset: 5,
        lastFetchedEpoch: 3,
        currentLeaderEpoch: 3,
        partitionMaxBytes: 1_048_576,
      },
    ]);
    expect(second.req.forgotten).toBeUndefined();
    ok(second, { sessionId: 77, partitions: [] });
    const third = one(f);
    expect(third.req).toMatchObject({ sessionId: 77, sessionEpoch: 2, partitions: [] });
    // The leader's high watermark arrives without data: taken, capped at the log end.
    ok(third, { sessionId: 77, partitions: [part(0, { highWatermark: 9 })] });
    expect(log(f, 0).highWatermark).toBe(5);
    const fourth = one(f);
    expect(fourth.req).toMatchObject({ sessionEpoch: 3, partitions: [] });
    // More records in the same epoch: only the fetch offset moved, and the partition is named again.
    leaderLog.appendAsLeader(batch(2), 3, 0);
    ok(fourth, {
      sessionId: 77,
      partitions: [part(0, { batches: leaderLog.read(5, 7, 1 << 20), highWatermark: 7 })],
    });
    expect(one(f).req.partitions).toEqual([
      {
        topic: 't',
        partition: 0,
        fetchOffset: 7,
        lastFetchedEpoch: 3,
        currentLeaderEpoch: 3,
        partitionMaxBytes: 1_048_576,
      },
    ]);
  });

  it('an incremental fetch names the changed partitions in the order followed, not the order they changed in', () => {
    const f = follower();
    ok(one(f), { sessionId: 9, partitions: [] });
    // The answer brings records for t-1 first, then t-0.
    ok(one(f), {
      sessionId: 9,
      partitions: [
        part(1, { batches: logWith([[3, 1]]).allBatches(), highWatermark: 1 }),
        part(0, { batches: logWith([[3, 2]]).allBatches(), highWatermark: 2 }),
      ],
    });
    expect(one(f).req.partitions.map((p) => [p.partition, p.fetchOffset])).toEqual([
      [0, 2],
      [1, 1],
    ]);
  });

  it('fetches in full again when the leader keeps no session', () => {
    const f = follower();
    const first = one(f);
    ok(first, { partitions: [part(0), part(1)] });
    const second = one(f);
    expect(second.req).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(named(second.req)).toEqual([0, 1]);
  });

  it('starts over after a session error, saying so for the session errors', () => {
    for (const code of [Errors.FETCH_SESSION_ID_NOT_FOUND.code, Errors.INVALID_FETCH_SESSION_EPOCH.code]) {
      const f = follower();
      ok(one(f), { sessionId: 9, partitions: [] });
      ok(one(f), { errorCode: code, partitions: [] });
      expect(f.b.core.eventsOf('broker.fetch-session-reset')).toEqual([{ leader: 1, errorCode: code }]);
      const again = one(f);
      expect(again.req).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
      expect(named(again.req)).toEqual([0, 1]);
    }
    const f = follower();
    ok(one(f), { sessionId: 9, partitions: [] });
    ok(one(f), { errorCode: Errors.UNKNOWN_SERVER_ERROR.code, partitions: [] });
    expect(f.b.core.eventsOf('broker.fetch-session-reset')).toEqual([]);
    expect(one(f).req).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
  });

  it('after a lost request, waits what is left of 100 ms and fetches in full', () => {
    const f = follower();
    const first = one(f);
    f.b.core.sim.runFor(1000);
    ok(first, { sessionId: 9, partitions: [] });
    const lost = one(f); // sent at 1000
    f.b.core.sim.runFor(30);
    lost.answer({ ok: false, error: 'timeout' });
    expect(fetches(f, 'broker-1')).toEqual([]);
    f.b.core.sim.runFor(69);
    expect(fetches(f, 'broker-1')).toEqual([]);
    f.b.core.sim.runFor(1);
    const again = one(f);
    expect(again.req).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    // A request lost after more than 100 ms is retried at once.
    f.b.core.sim.runFor(500);
    again.answer({ ok: false, error: 'disconnected' });
    expect(fetches(f, 'broker-1')).toHaveLength(1);
  });

  it('a partition it stops following leaves the session as forgotten; none left stops the loop', () => {
    const f = follower();
    ok(one(f), { sessionId: 9, partitions: [] });
    const pending = one(f);
    f.apply({
      topics: {
        t: [
          { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
          { replicas: [1, 2, 3], leader: 2, leaderEpoch: 4 },
          { replicas: [1, 2, 3], leader: 3, leaderEpoch: 5 },
        ],
      },
    });
    ok(pending, { sessionId: 9, partitions: [] });
    const next = one(f);
    expect(next.req.partitions).toEqual([]);
    expect(next.req.forgotten).toEqual([{ topic: 't', partition: 1 }]);
    ok(next, { sessionId: 9, partitions: [] });
    expect(one(f).req.forgotten).toBeUndefined();
  });

  it('a partition whose leader moves to another broker leaves the old leader session for the new one', () => {
    const f = follower({
      topics: {
        t: [
          { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
          { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
        ],
      },
    });
    ok(one(f), { sessionId: 9, partitions: [] });
    const pending = one(f);
    f.apply({
      topics: {
        t: [
          { replicas: [1, 2, 3], leader: 3, leaderEpoch: 4 },
          { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
        ],
      },
    });
    ok(pending, { sessionId: 9, partitions: [] });
    const toOne = one(f, 'broker-1');
    expect(toOne.req.forgotten).toEqual([{ topic: 't', partition: 0 }]);
    const toThree = one(f, 'broker-3');
    expect(toThree.req.partitions.map((p) => [p.partition, p.currentLeaderEpoch])).toEqual([[0, 4]]);
  });

  it('a partition added and dropped between two fetches was never sent, so it is not forgotten either', () => {
    const one0 = { replicas: [1, 2], leader: 1, leaderEpoch: 3 };
    const f = follower({ topics: { t: [one0] } });
    ok(one(f), { sessionId: 9, partitions: [] });
    const pending = one(f);
    f.apply({ topics: { t: [one0, { replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    f.apply({ topics: { t: [one0, { replicas: [1, 2], leader: 2, leaderEpoch: 4 }] } });
    ok(pending, { sessionId: 9, partitions: [] });
    const next = one(f);
    expect(next.req.partitions).toEqual([]);
    expect(next.req.forgotten).toBeUndefined();
  });

  it('stops fetching from a leader it no longer follows anything from, and starts afresh later', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    ok(one(f), { sessionId: 9, partitions: [] });
    const pending = one(f);
    f.apply({ topics: { t: [{ replicas: [1, 2], leader: 2, leaderEpoch: 4 }] } });
    ok(pending, { sessionId: 9, partitions: [] });
    expect(fetches(f)).toEqual([]);
    f.b.core.sim.runFor(10_000);
    expect(fetches(f)).toEqual([]);
    f.apply({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 5 }] } });
    const again = one(f);
    expect(again.req).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(again.req.partitions[0]).toMatchObject({ partition: 0, currentLeaderEpoch: 5 });
  });

  it('a partition followed again (a new leader epoch) is sent afresh from where its log is', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    const leaderLog = logWith([[3, 4]]);
    ok(one(f), {
      sessionId: 9,
      partitions: [part(0, { batches: leaderLog.allBatches(), highWatermark: 4 })],
    });
    const pending = one(f);
    f.apply({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 6 }] } });
    ok(pending, { sessionId: 9, partitions: [] });
    expect(one(f).req.partitions).toEqual([
      {
        topic: 't',
        partition: 0,
        fetchOffset: 4,
        lastFetchedEpoch: 3,
        currentLeaderEpoch: 6,
        partitionMaxBytes: 1_048_576,
      },
    ]);
  });

  it('ignores answers once reset, and answers for partitions it no longer follows from that leader', () => {
    const f = follower();
    const first = one(f);
    f.fetcher.reset();
    ok(first, {
      sessionId: 9,
      partitions: [part(0, { batches: logWith([[3, 2]]).allBatches(), highWatermark: 2 })],
    });
    expect(log(f, 0).logEndOffset).toBe(0);
    expect(fetches(f, 'broker-1')).toEqual([]);

    const g = follower();
    const fromOne = one(g);
    // t-2 is followed from broker 3: broker 1 answering for it is ignored.
    ok(fromOne, {
      sessionId: 9,
      partitions: [part(2, { batches: logWith([[5, 2]]).allBatches(), highWatermark: 2 }), part(7)],
    });
    expect(log(g, 2).logEndOffset).toBe(0);
  });
});

describe('ReplicaFetcher: answers', () => {
  it('truncates on a diverging epoch to where both logs agree, and appends nothing from that answer', () => {
    // The follower has epoch 1 (offsets 0-1) and epoch 2 (2-5); the leader has epoch 1 up to 2 then epoch 3.
    const mine = logWith([
      [1, 1],
      [1, 1],
      [2, 1],
      [2, 1],
      [2, 1],
      [2, 1],
    ]);
    const f = follower(
      { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } },
      { 'id-t:0': mine },
    );
    const first = one(f);
    expect(first.req.partitions[0]).toMatchObject({ fetchOffset: 6, lastFetchedEpoch: 2 });
    ok(first, {
      sessionId: 9,
      partitions: [
        part(0, { divergingEpoch: { epoch: 1, endOffset: 3 }, batches: logWith([[1, 9]]).allBatches() }),
      ],
    });
    // My epoch 1 ends at 2, before the leader's 3: both agree up to 2.
    expect(mine.logEndOffset).toBe(2);
    expect(mine.latestEpoch).toBe(1);
    expect(f.b.core.eventsOf('broker.truncate')).toEqual([{ topic: 't', partition: 0, from: 6, to: 2 }]);
    const next = one(f);
    expect(next.req.partitions[0]).toMatchObject({ fetchOffset: 2, lastFetchedEpoch: 1 });
  });

  it('truncates to the leader end offset when it is below its own end of that epoch', () => {
    const mine = logWith([
      [1, 1],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    const f = follower(
      { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } },
      { 'id-t:0': mine },
    );
    ok(one(f), { sessionId: 9, partitions: [part(0, { divergingEpoch: { epoch: 1, endOffset: 1 } })] });
    expect(mine.logEndOffset).toBe(1);
  });

  it('a leader with no epoch at or below the follower’s makes it truncate to the start', () => {
    const mine = logWith([
      [2, 1],
      [2, 1],
    ]);
    const f = follower(
      { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } },
      { 'id-t:0': mine },
    );
    ok(one(f), { sessionId: 9, partitions: [part(0, { divergingEpoch: { epoch: -1, endOffset: -1 } })] });
    expect(mine.logEndOffset).toBe(0);
    expect(mine.latestEpoch).toBe(-1);
  });

  it("a complete truncation takes the leader's high watermark, capped at its new end and never lowering its own", () => {
    // Epoch 1 holds 0-3 here (high watermark 1); the leader's epoch 1 ends at 3: both logs agree up to 3.
    const hwAfter = (leaderHw: number) => {
      const mine = logWith([
        [1, 1],
        [1, 1],
        [1, 1],
        [1, 1],
      ]);
      mine.highWatermark = 1;
      const f = follower(
        { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } },
        { 'id-t:0': mine },
      );
      ok(one(f), {
        sessionId: 9,
        partitions: [part(0, { divergingEpoch: { epoch: 1, endOffset: 3 }, highWatermark: leaderHw })],
      });
      expect(mine.logEndOffset).toBe(3);
      return mine.highWatermark;
    };
    expect(hwAfter(2)).toBe(2);
    expect(hwAfter(5)).toBe(3);
    expect(hwAfter(0)).toBe(1);
  });

  it("an incomplete truncation (the follower lacks the leader's epoch) keeps its own high watermark", () => {
    // Epochs 1 (0-1) and 3 (2-3) here; the leader answers with its epoch 2, which this log never had: it truncates
    // to the end of its epoch 1 and asks again, and the leader's high watermark says nothing yet about 0-1 here.
    const mine = logWith([
      [1, 1],
      [1, 1],
      [3, 1],
      [3, 1],
    ]);
    const f = follower(
      { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 4 }] } },
      { 'id-t:0': mine },
    );
    ok(one(f), {
      sessionId: 9,
      partitions: [part(0, { divergingEpoch: { epoch: 2, endOffset: 4 }, highWatermark: 4 })],
    });
    expect(mine.logEndOffset).toBe(2);
    expect(mine.highWatermark).toBe(0);
    expect(one(f).req.partitions[0]).toMatchObject({ fetchOffset: 2, lastFetchedEpoch: 1 });
  });

  it('backs a partition in error off for replica.fetch.backoff.ms, then sends it afresh', () => {
    const f = follower();
    f.b.core.config['replica.fetch.backoff.ms'] = 700;
    ok(one(f), {
      sessionId: 9,
      partitions: [
        part(0, { errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code, batches: logWith([[3, 2]]).allBatches() }),
        part(1),
      ],
    });
    expect(log(f, 0).logEndOffset).toBe(0);
    const during = one(f);
    expect(named(during.req)).toEqual([]);
    f.b.core.sim.runFor(700);
    ok(during, { sessionId: 9, partitions: [] });
    const after = one(f);
    expect(named(after.req)).toEqual([0]);
  });

  it('while every partition backs off it sleeps until the first back-off ends; a new partition wakes it', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    const first = one(f);
    f.b.core.sim.runFor(300);
    ok(first, { sessionId: 9, partitions: [part(0, { errorCode: Errors.UNKNOWN_LEADER_EPOCH.code })] });
    f.b.core.sim.runFor(999); // backing off until 1300
    expect(fetches(f)).toEqual([]);
    f.b.core.sim.runFor(1);
    expect(named(one(f).req)).toEqual([0]);

    const g = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    ok(one(g), { sessionId: 9, partitions: [part(0, { errorCode: Errors.UNKNOWN_LEADER_EPOCH.code })] });
    g.b.core.sim.runFor(100);
    expect(fetches(g)).toEqual([]);
    g.apply({
      topics: {
        t: [
          { replicas: [1, 2], leader: 1, leaderEpoch: 3 },
          { replicas: [1, 2], leader: 1, leaderEpoch: 3 },
        ],
      },
    });
    const woken = one(g);
    expect(named(woken.req)).toEqual([1]);
    // The sleep was cancelled: one fetch loop, not two.
    g.b.core.sim.runFor(2000);
    expect(fetches(g)).toEqual([]);
  });

  it('a throttled follower asks for a tenth of the rate per fetch and paces its fetches to the rate', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    f.b.core.config['follower.replication.throttled.rate'] = 1000; // bytes/s
    const first = one(f);
    expect(first.req.partitions[0]!.partitionMaxBytes).toBe(100);
    f.b.core.sim.runFor(5000);
    ok(first, { sessionId: 9, partitions: [] });
    const second = one(f); // leaves at 5000
    f.b.core.sim.runFor(50);
    // 200 bytes at 1000 B/s take 200 ms, 50 of which the fetch took.
    ok(second, {
      sessionId: 9,
      partitions: [part(0, { batches: logWith([[3, 2]]).allBatches(), highWatermark: 2 })],
    });
    f.b.core.sim.runFor(149);
    expect(fetches(f)).toEqual([]);
    f.b.core.sim.runFor(1);
    const third = one(f);
    ok(third, { sessionId: 9, partitions: [] });
    expect(fetches(f)).toHaveLength(1); // nothing copied: no pause
  });

  it('a throttle changed during a session sends every partition again with its new byte limit', () => {
    const f = follower();
    ok(one(f), { sessionId: 9, partitions: [] });
    const idle = one(f);
    expect(idle.req.partitions).toEqual([]);
    f.b.core.config['follower.replication.throttled.rate'] = 5000;
    ok(idle, { sessionId: 9, partitions: [] });
    const next = one(f);
    expect(next.req.partitions.map((p) => [p.partition, p.partitionMaxBytes])).toEqual([
      [0, 500],
      [1, 500],
    ]);
  });

  it('an epoch dropped at the log end by a truncation is sent again although the offset stayed', () => {
    // The follower led epoch 4 without appending (its epoch cache ends with 4 at offset 2); the leader's epoch
    // 3 ends at 2: it truncates nothing but forgets epoch 4, and must say so in its next fetch.
    const mine = logWith([
      [3, 1],
      [3, 1],
    ]);
    mine.assignEpochStart(4);
    const f = follower(
      { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 5 }] } },
      { 'id-t:0': mine },
    );
    const first = one(f);
    expect(first.req.partitions[0]).toMatchObject({ fetchOffset: 2, lastFetchedEpoch: 4 });
    ok(first, { sessionId: 9, partitions: [part(0, { divergingEpoch: { epoch: 3, endOffset: 2 } })] });
    expect(mine.latestEpoch).toBe(3);
    expect(one(f).req.partitions).toEqual([
      {
        topic: 't',
        partition: 0,
        fetchOffset: 2,
        lastFetchedEpoch: 3,
        currentLeaderEpoch: 5,
        partitionMaxBytes: 1_048_576,
      },
    ]);
  });

  it('labels its events broker.replica-fetch', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    f.b.core.config['follower.replication.throttled.rate'] = 1000;
    ok(one(f), {
      sessionId: 9,
      partitions: [part(0, { batches: logWith([[3, 2]]).allBatches(), highWatermark: 2 })],
    });
    f.b.core.sim.runFor(1000);
    ok(one(f), { errorCode: Errors.FETCH_SESSION_ID_NOT_FOUND.code, partitions: [] });
    one(f).answer({ ok: false, error: 'timeout' });
    f.b.core.sim.runFor(100);
    ok(one(f), { sessionId: 9, partitions: [part(0, { errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code })] });
    f.b.core.sim.runFor(100);
    f.apply({
      topics: {
        t: [
          { replicas: [1, 2], leader: 1, leaderEpoch: 3 },
          { replicas: [1, 2], leader: 1, leaderEpoch: 3 },
        ],
      },
    });
    const g = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    ok(one(g), { sessionId: 9, partitions: [] });
    expect([...f.b.core.labels, ...g.b.core.labels].filter((l) => l !== 'broker.replica-fetch')).toEqual([]);
    expect(f.b.core.labels.size).toBe(1);
  });

  it('a throttle below ten bytes a second still asks for one byte per fetch', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    f.b.core.config['follower.replication.throttled.rate'] = 5;
    expect(one(f).req.partitions[0]!.partitionMaxBytes).toBe(1);
  });

  it('an unthrottled follower fetches again at once after copying data', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    const first = one(f);
    f.b.core.sim.runFor(50);
    ok(first, {
      sessionId: 9,
      partitions: [part(0, { batches: logWith([[3, 2]]).allBatches(), highWatermark: 2 })],
    });
    expect(fetches(f)).toHaveLength(1);
  });
});

describe('ReplicaFetcher: what the next fetch looks at', () => {
  const two = {
    topics: {
      t: [
        { replicas: [1, 2], leader: 1, leaderEpoch: 3 },
        { replicas: [1, 2], leader: 1, leaderEpoch: 3 },
      ],
    },
  };

  it('a partition changed twice before the next fetch is named in it once', () => {
    const f = follower(two);
    ok(one(f), { sessionId: 9, partitions: [] });
    const pending = one(f);
    f.apply({ topics: { t: [...two.topics.t, { replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    f.fetcher.changed(f.b.rm.findReplica('t', 2)!); // e.g. its ISR changed too
    ok(pending, { sessionId: 9, partitions: [] });
    expect(named(one(f).req)).toEqual([2]);
  });

  it('a partition backing off and followed again in a new leader epoch is fetched at once, alone or not', () => {
    const f = follower({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } });
    f.b.core.config['replica.fetch.backoff.ms'] = 1000;
    ok(one(f), { sessionId: 9, partitions: [part(0, { errorCode: Errors.FENCED_LEADER_EPOCH.code })] });
    f.b.core.sim.runFor(10);
    expect(fetches(f)).toEqual([]); // sleeping: its only partition backs off
    f.apply({ topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 4 }] } });
    const next = one(f);
    expect(next.req.partitions.map((p) => [p.partition, p.currentLeaderEpoch])).toEqual([[0, 4]]);
  });

  it('a partition that stops being followed while it backs off does not hold up the others', () => {
    const f = follower(two);
    f.b.core.config['replica.fetch.backoff.ms'] = 1000;
    ok(one(f), {
      sessionId: 9,
      partitions: [part(0, { errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code }), part(1)],
    });
    const pending = one(f);
    // This broker becomes t-0's leader.
    f.apply({
      topics: { t: [{ replicas: [1, 2], leader: 2, leaderEpoch: 4 }, two.topics.t[1]!] },
    });
    ok(pending, { sessionId: 9, partitions: [] });
    // t-1 is still followed from broker 1: the loop goes on now, not when t-0's back-off would have ended.
    const next = one(f);
    expect(next.req).toMatchObject({ sessionId: 9 });
    expect(named(next.req)).toEqual([]);
  });

  it('a full fetch after a session error names every partition, changed or not', () => {
    const f = follower(two);
    ok(one(f), { sessionId: 9, partitions: [] });
    ok(one(f), { sessionId: 9, partitions: [] });
    ok(one(f), { errorCode: Errors.FETCH_SESSION_ID_NOT_FOUND.code, partitions: [] });
    const again = one(f);
    expect(again.req).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(named(again.req)).toEqual([0, 1]);
  });
});

describe('ReplicaFetcher: the leader’s log start', () => {
  const single = { topics: { t: [{ replicas: [1, 2], leader: 1, leaderEpoch: 3 }] } };

  it('out of range below the leader’s log start (retention deleted it there): starts the log over at it', () => {
    const f = follower(single);
    log(f, 0).appendAsFollower(logWith([[3, 4]]).allBatches()); // 0..3
    ok(one(f), {
      sessionId: 9,
      partitions: [
        part(0, { errorCode: Errors.OFFSET_OUT_OF_RANGE.code, logStartOffset: 10, highWatermark: 12 }),
      ],
    });
    expect(f.b.core.eventsOf('broker.truncate-fully')).toEqual([
      { topic: 't', partition: 0, from: 4, to: 10 },
    ]);
    expect([log(f, 0).logStartOffset, log(f, 0).logEndOffset, log(f, 0).batchCount]).toEqual([10, 10, 0]);
    // And fetches from there at once, without a back-off.
    expect(one(f).req.partitions.map((p) => [p.partition, p.fetchOffset])).toEqual([[0, 10]]);
  });

  it('out of range with the leader’s log start at or below its end is an error like any other: back off, no truncation', () => {
    const f = follower(single);
    f.b.core.config['replica.fetch.backoff.ms'] = 1000;
    log(f, 0).appendAsFollower(logWith([[3, 4]]).allBatches());
    const first = one(f);
    f.b.core.sim.runFor(5);
    ok(first, {
      sessionId: 9,
      partitions: [
        part(0, { errorCode: Errors.OFFSET_OUT_OF_RANGE.code, logStartOffset: 4, highWatermark: 8 }),
      ],
    });
    expect(f.b.core.eventsOf('broker.truncate-fully')).toEqual([]);
    expect([log(f, 0).logStartOffset, log(f, 0).logEndOffset]).toEqual([0, 4]);
    expect(fetches(f)).toEqual([]); // its only partition backs off
  });

  it('follows the leader’s log start forward, as far as its own high watermark, never back', () => {
    const f = follower(single);
    const leaderLog = logWith([[3, 6]]); // 0..5
    ok(one(f), {
      sessionId: 9,
      partitions: [part(0, { batches: leaderLog.allBatches(), highWatermark: 4, logStartOffset: 2 })],
    });
    expect(log(f, 0).logStartOffset).toBe(2);
    // The leader's start past this log's high watermark (4): only up to the high watermark.
    ok(one(f), { sessionId: 9, partitions: [part(0, { highWatermark: 4, logStartOffset: 5 })] });
    expect(log(f, 0).logStartOffset).toBe(4);
    // A leader's start below this log's: nothing moves back.
    ok(one(f), { sessionId: 9, partitions: [part(0, { highWatermark: 4, logStartOffset: 1 })] });
    expect(log(f, 0).logStartOffset).toBe(4);
  });
});
