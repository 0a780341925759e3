// LogReader on its own (Kafka's ReplicaManager.readFromLog and DelayedFetch.tryComplete): a leader's checks per
// partition (known topic, leadership with the leader hint, the fetcher's leader epoch, a follower's diverging
// epoch, offsets in range), a follower's read recording its position and reading up to the log end, a consumer's
// bounded by the high watermark, and when a fetch answers now or waits.
import { describe, expect, it } from 'vitest';
import { LogReader } from '../../../models/broker/read-from-log.ts';
import type { FetchPartition, FetchRequest } from '../../../models/protocol/index.ts';
import { Errors } from '../../../models/protocol/index.ts';
import { logWith, type ManagedBroker, managedBroker } from './fakes.ts';

/** Broker 1 leads t-0 (epoch 3; epoch 1 holds offsets 0-1, epoch 3 offsets 2-4, 100 bytes a record) and follows t-1. */
function leader(): { b: ManagedBroker; reader: LogReader } {
  const b = managedBroker(1);
  b.logs.set(
    'id-t:0',
    logWith([
      [1, 2],
      [3, 3],
    ]),
  );
  b.apply({
    topics: {
      t: [
        { replicas: [1, 2, 3], leader: 1, leaderEpoch: 3 },
        { replicas: [1, 2, 3], leader: 2, leaderEpoch: 7 },
      ],
    },
  });
  return { b, reader: new LogReader(b.core, b.rm) };
}

function fetchOf(replicaId: number, partitions: Partial<FetchPartition>[], minBytes = 1): FetchRequest {
  return {
    type: 'Fetch',
    replicaId,
    maxWaitMs: 500,
    minBytes,
    maxBytes: 1 << 20,
    partitions: partitions.map((p) => ({
      topic: 't',
      partition: 0,
      fetchOffset: 0,
      partitionMaxBytes: 1 << 20,
      ...p,
    })),
  };
}

const r0 = (b: ManagedBroker) => b.rm.findReplica('t', 0)!;

describe('LogReader.readPartition: errors', () => {
  it('answers unknown topics and partitions it does not lead with no offsets, and the leader it knows', () => {
    const { reader } = leader();
    expect(reader.readPartition(-1, 'nope', 0, 0, undefined, undefined, 100)).toEqual({
      topic: 'nope',
      partition: 0,
      errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
      highWatermark: -1,
      logStartOffset: -1,
      batches: [],
    });
    expect(reader.readPartition(-1, 't', 1, 0, undefined, undefined, 100)).toEqual({
      topic: 't',
      partition: 1,
      errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      highWatermark: -1,
      logStartOffset: -1,
      batches: [],
      currentLeader: { leaderId: 2, leaderEpoch: 7 },
    });
    const none = reader.readPartition(-1, 't', 5, 0, undefined, undefined, 100);
    expect(none.errorCode).toBe(Errors.NOT_LEADER_OR_FOLLOWER.code);
    expect(none).not.toHaveProperty('currentLeader');
  });

  it("checks the fetcher's leader epoch (KIP-320): older is fenced, newer unknown, -1 or none not checked", () => {
    const { reader } = leader();
    const at = (epoch: number | undefined) => reader.readPartition(-1, 't', 0, 0, undefined, epoch, 1000);
    expect(at(0).errorCode).toBe(Errors.FENCED_LEADER_EPOCH.code);
    expect(at(2)).toMatchObject({
      errorCode: Errors.FENCED_LEADER_EPOCH.code,
      highWatermark: -1,
      logStartOffset: -1,
    });
    expect(at(4)).toMatchObject({
      errorCode: Errors.UNKNOWN_LEADER_EPOCH.code,
      highWatermark: -1,
      logStartOffset: -1,
    });
    for (const ok of [3, -1, undefined]) expect(at(ok).errorCode, String(ok)).toBe(0);
  });

  it('answers offsets outside the log with OFFSET_OUT_OF_RANGE and the log bounds', () => {
    const { b, reader } = leader();
    r0(b).log.highWatermark = 4;
    expect(reader.readPartition(-1, 't', 0, 6, undefined, undefined, 100)).toEqual({
      topic: 't',
      partition: 0,
      errorCode: Errors.OFFSET_OUT_OF_RANGE.code,
      highWatermark: 4,
      logStartOffset: 0,
      batches: [],
    });
    r0(b).log.incrementLogStartOffset(2);
    expect(reader.readPartition(-1, 't', 0, 1, undefined, undefined, 100).errorCode).toBe(
      Errors.OFFSET_OUT_OF_RANGE.code,
    );
    // The log end itself and the log start are in range.
    expect(reader.readPartition(-1, 't', 0, 5, undefined, undefined, 100).errorCode).toBe(0);
    expect(reader.readPartition(-1, 't', 0, 2, undefined, undefined, 100).errorCode).toBe(0);
  });
});

describe('LogReader.readPartition: followers and consumers', () => {
  it('tells a follower whose last epoch the leader lacks, or ends earlier, where it diverges', () => {
    const { b, reader } = leader();
    r0(b).log.highWatermark = 2;
    // Epoch 2 is not in the leader's log: the largest below it is 1, ending at 2.
    expect(reader.readPartition(2, 't', 0, 4, 2, 3, 1000)).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      highWatermark: 2,
      logStartOffset: 0,
      batches: [],
      divergingEpoch: { epoch: 1, endOffset: 2 },
    });
    // Epoch 1 ends at 2 in the leader's log, and the follower is at 3 in it.
    expect(reader.readPartition(2, 't', 0, 3, 1, 3, 1000).divergingEpoch).toEqual({ epoch: 1, endOffset: 2 });
    // Its epoch 2 is unknown to the leader even at an offset the leader's epoch 1 reaches.
    expect(reader.readPartition(2, 't', 0, 2, 2, 3, 1000).divergingEpoch).toEqual({ epoch: 1, endOffset: 2 });
    // Epoch 0 is below every epoch of the leader's log: no common epoch at all.
    expect(reader.readPartition(2, 't', 0, 1, 0, 3, 1000).divergingEpoch).toEqual({
      epoch: -1,
      endOffset: -1,
    });
    // Exactly at the end of epoch 1: no divergence, it reads from 2.
    const atEnd = reader.readPartition(2, 't', 0, 2, 1, 3, 1000);
    expect(atEnd.divergingEpoch).toBeUndefined();
    expect(atEnd.batches.map((x) => x.baseOffset)).toEqual([2]);
    // A divergence check records no fetch position.
    expect(r0(b).followers.get(2)!.leo).toBe(2);
    // Consumers and followers without an epoch are not checked.
    expect(reader.readPartition(-1, 't', 0, 1, 2, 3, 1000).divergingEpoch).toBeUndefined();
    expect(reader.readPartition(2, 't', 0, 1, -1, 3, 1000).divergingEpoch).toBeUndefined();
  });

  it('a follower reads up to the log end and its fetch moves the high watermark; a consumer reads up to it', () => {
    const { b, reader } = leader();
    const follower = reader.readPartition(2, 't', 0, 0, -1, 3, 1 << 20);
    expect(follower.batches.map((x) => x.baseOffset)).toEqual([0, 2]);
    expect(r0(b).followers.get(2)!.leo).toBe(0);
    expect(reader.readPartition(-1, 't', 0, 0, undefined, 3, 1 << 20).batches).toEqual([]);
    reader.readPartition(2, 't', 0, 5, 3, 3, 1 << 20);
    reader.readPartition(3, 't', 0, 2, 1, 3, 1 << 20);
    expect(r0(b).log.highWatermark).toBe(2);
    const consumer = reader.readPartition(-1, 't', 0, 0, undefined, 3, 1 << 20);
    expect(consumer).toEqual({
      topic: 't',
      partition: 0,
      errorCode: 0,
      highWatermark: 2,
      logStartOffset: 0,
      batches: r0(b).log.read(0, 2, 1 << 20),
    });
    expect(consumer.batches.map((x) => x.count)).toEqual([2]);
    // 500 bytes to follower 2, then 300 to follower 3, then 200 to the consumer.
    expect(r0(b).bytesOut).toBe(1000);
  });

  it('honours the partition byte limit (at least one batch)', () => {
    const { reader } = leader();
    expect(reader.readPartition(2, 't', 0, 0, -1, 3, 250).batches.map((x) => x.baseOffset)).toEqual([0]);
    expect(reader.readPartition(2, 't', 0, 0, -1, 3, 1).batches.map((x) => x.baseOffset)).toEqual([0]);
  });
});

describe('LogReader.tryFetch', () => {
  it('a consumer fetch waits until fetch.min.bytes are readable under the high watermark', () => {
    const { b, reader } = leader();
    const req = fetchOf(-1, [{ fetchOffset: 0, currentLeaderEpoch: 3 }], 300);
    expect(reader.tryFetch(req, false)).toBeUndefined();
    r0(b).log.highWatermark = 2; // 200 bytes readable
    expect(reader.tryFetch(req, false)).toBeUndefined();
    r0(b).log.highWatermark = 5; // 500
    const res = reader.tryFetch(req, false)!;
    expect(res.partitions[0]!.batches.map((x) => x.baseOffset)).toEqual([0, 2]);
    // Exactly min.bytes answers.
    r0(b).log.highWatermark = 2;
    expect(reader.tryFetch(fetchOf(-1, [{ fetchOffset: 0 }], 200), false)).toBeDefined();
    // Bytes of several partitions add up.
    expect(reader.tryFetch(fetchOf(-1, [{ fetchOffset: 0 }, { fetchOffset: 0 }], 400), false)).toBeDefined();
    expect(
      reader.tryFetch(fetchOf(-1, [{ fetchOffset: 0 }, { fetchOffset: 0 }], 401), false),
    ).toBeUndefined();
  });

  it('when final, a consumer fetch answers with what there is', () => {
    const { reader } = leader();
    const res = reader.tryFetch(fetchOf(-1, [{ fetchOffset: 0 }], 300), true)!;
    expect(res.partitions).toEqual([
      { topic: 't', partition: 0, errorCode: 0, highWatermark: 0, logStartOffset: 0, batches: [] },
    ]);
  });

  it('a consumer fetch with any partition in error answers at once', () => {
    const { reader } = leader();
    for (const p of [
      { topic: 'nope' },
      { partition: 1 },
      { partition: 4 },
      { currentLeaderEpoch: 2 },
      { fetchOffset: 9 },
    ] as Partial<FetchPartition>[]) {
      const res = reader.tryFetch(fetchOf(-1, [{ fetchOffset: 0 }, p], 1), false);
      expect(res, JSON.stringify(p)).toBeDefined();
      expect(res!.partitions[1]!.errorCode, JSON.stringify(p)).not.toBe(0);
    }
    const { b: b2, reader: reader2 } = leader();
    r0(b2).log.incrementLogStartOffset(2);
    expect(reader2.tryFetch(fetchOf(-1, [{ fetchOffset: 1 }], 1), false)!.partitions[0]!.errorCode).toBe(
      Errors.OFFSET_OUT_OF_RANGE.code,
    );
    // An epoch of -1 is not a mismatch: nothing readable, so it waits.
    expect(
      reader2.tryFetch(fetchOf(-1, [{ fetchOffset: 2, currentLeaderEpoch: -1 }], 1), false),
    ).toBeUndefined();
  });

  it('a follower fetch is read at every try (recording its position) and waits only without news', () => {
    const { b, reader } = leader();
    expect(
      reader.tryFetch(fetchOf(2, [{ fetchOffset: 5, lastFetchedEpoch: 3, currentLeaderEpoch: 3 }]), false),
    ).toBeUndefined();
    expect(r0(b).followers.get(2)!.leo).toBe(5);
    const res = reader.tryFetch(
      fetchOf(3, [{ fetchOffset: 2, lastFetchedEpoch: 1, currentLeaderEpoch: 3 }]),
      false,
    )!;
    expect(res.partitions[0]!.batches.map((x) => x.baseOffset)).toEqual([2]);
    // A diverging epoch answers at once although it carries no bytes.
    const div = reader.tryFetch(
      fetchOf(3, [{ fetchOffset: 4, lastFetchedEpoch: 2, currentLeaderEpoch: 3 }]),
      false,
    )!;
    expect(div.partitions[0]!.divergingEpoch).toEqual({ epoch: 1, endOffset: 2 });
  });
});

describe('LogReader.tryFetch: reads only what it sends', () => {
  it('a consumer fetch that cannot answer yet reads nothing: bytes out count only what is sent', () => {
    const { b, reader } = leader();
    r0(b).log.highWatermark = 2; // 200 bytes readable from the log start
    const tries: Partial<FetchPartition>[][] = [
      [{ fetchOffset: 0 }],
      [{ fetchOffset: 0, currentLeaderEpoch: 3 }],
      [{ fetchOffset: 0, currentLeaderEpoch: -1 }],
      // A caught-up partition first (nothing readable at the log end), then one with too little.
      [{ fetchOffset: 5 }, { fetchOffset: 0 }],
    ];
    for (const parts of tries)
      expect(reader.tryFetch(fetchOf(-1, parts, 300), false), JSON.stringify(parts)).toBeUndefined();
    expect(r0(b).bytesOut).toBe(0);
    // Once it can answer, what it sends is counted.
    expect(reader.tryFetch(fetchOf(-1, [{ fetchOffset: 0 }], 200), false)).toBeDefined();
    expect(r0(b).bytesOut).toBe(200);
  });

  it('a consumer fetch naming any stale leader epoch, 0 included, answers at once with FENCED_LEADER_EPOCH', () => {
    const { b, reader } = leader();
    r0(b).log.highWatermark = 2;
    for (const epoch of [0, 2]) {
      const res = reader.tryFetch(
        fetchOf(-1, [{ fetchOffset: 0, currentLeaderEpoch: epoch }], 1 << 20),
        false,
      );
      expect(res?.partitions[0]?.errorCode, `epoch ${epoch}`).toBe(Errors.FENCED_LEADER_EPOCH.code);
    }
  });

  it('a consumer fetch with fetch.min.bytes 0 answers at once, even naming no partition', () => {
    const { reader } = leader();
    expect(reader.tryFetch(fetchOf(-1, [], 0), false)).toEqual({ partitions: [] });
    expect(reader.tryFetch(fetchOf(-1, [], 1), false)).toBeUndefined();
    expect(reader.tryFetch(fetchOf(-1, [{ fetchOffset: 5 }], 0), false)!.partitions[0]!.errorCode).toBe(0);
  });

  it('broker 0 is a follower like any other: it reads past the high watermark and records its position', () => {
    const b = managedBroker(1);
    b.logs.set('id-t:0', logWith([[3, 3]]));
    b.apply({ brokers: [0, 1], topics: { t: [{ replicas: [0, 1], leader: 1, leaderEpoch: 3 }] } });
    const reader = new LogReader(b.core, b.rm);
    const res = reader.tryFetch(
      fetchOf(0, [{ fetchOffset: 0, lastFetchedEpoch: -1, currentLeaderEpoch: 3 }]),
      false,
    )!;
    expect(res.partitions[0]!.batches.map((x) => x.baseOffset)).toEqual([0]);
    expect(r0(b).followers.get(0)!.leo).toBe(0);
    expect(reader.readPartition(0, 't', 0, 3, 1, 3, 1000).divergingEpoch).toEqual({
      epoch: -1,
      endOffset: -1,
    });
    reader.readPartition(0, 't', 0, 3, 3, 3, 1000);
    expect(r0(b).log.highWatermark).toBe(3);
  });
});
