// A Java consumer's incremental fetch sessions (KIP-227, Kafka's FetchSessionHandler): the first fetch to a broker
// is full and opens a session; later ones name only partitions whose position moved, and the broker answers only
// partitions with news, so an idle partition costs nothing per fetch. A broker that lost the session (a restart)
// answers FETCH_SESSION_ID_NOT_FOUND and the consumer starts over with a full fetch. librdkafka has no sessions.
import { describe, expect, it } from 'vitest';
import type { Consumer } from '../../../models/clients/index.ts';
import { Errors, type FetchRequest, type FetchResponse } from '../../../models/protocol/index.ts';
import type { RequestOutcome } from '../../../models/sim/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

interface Seen {
  req: FetchRequest;
  res: FetchResponse | undefined;
  /** When the answer came. */
  at: number;
}

/** Records every Fetch `consumer` sends, with its answer. */
function tapFetches(consumer: Consumer, now: () => number): Seen[] {
  const seen: Seen[] = [];
  const node = consumer as unknown as {
    request: (to: string, payload: unknown, cb: (o: RequestOutcome<unknown>) => void, t?: number) => void;
  };
  const original = node.request.bind(consumer);
  node.request = (to, payload, cb, t) => {
    const req = payload as FetchRequest;
    if (req.type !== 'Fetch') return original(to, payload, cb, t);
    const s: Seen = { req, res: undefined, at: -1 };
    seen.push(s);
    original(
      to,
      payload,
      (o) => {
        if (o.ok) s.res = o.response as FetchResponse;
        s.at = now();
        cb(o);
      },
      t,
    );
  };
  return seen;
}

function setup(flavour: 'java' | 'librdkafka', slots?: number, assigned = 12) {
  const c = createCluster({
    seed: 11,
    brokers: 3,
    storage: 'kafka',
    ...(slots ? { brokerConfig: { 'max.incremental.fetch.session.cache.slots': slots } } : {}),
  });
  c.admin.createTopic({ name: 't', partitions: 12, replicationFactor: 3 });
  c.runFor('1s');
  const consumer = c.consumer('reader', { flavour, config: { 'auto.offset.reset': 'earliest' } });
  const seen = tapFetches(consumer, () => c.now);
  consumer.assign(Array.from({ length: assigned }, (_, partition) => ({ topic: 't', partition })));
  c.runFor('3s');
  return { c, consumer, seen };
}

const named = (list: Seen[]) => list.flatMap((s) => s.req.partitions.map((q) => q.partition));

describe('consumer fetch sessions (KIP-227)', () => {
  it('Java: a full fetch opens the session, later ones name only what changed, idle ones name nothing', () => {
    const { c, consumer, seen } = setup('java');
    const full = seen.filter((s) => s.req.sessionEpoch === 0);
    // One full fetch per leader, each opening a session; every partition is named once (when its offset reset
    // gave it a position), never again while idle.
    expect(full.length).toBe(3);
    for (const s of full) expect(s.res?.sessionId).toBeGreaterThan(0);
    expect(named(seen).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    const idle = seen.filter((s) => s.res).slice(-6);
    for (const s of idle) {
      expect(s.req.sessionEpoch).toBeGreaterThan(1);
      expect(s.req.partitions).toEqual([]);
      expect(s.res?.partitions).toEqual([]);
    }
    // Records to one partition: its leader's session answers it, the next fetch names it at its new position.
    const p = c.producer('p');
    for (let i = 0; i < 50; i++) p.send({ topic: 't', partition: 5, value: `v${i}` });
    const before = seen.length;
    const sentAt = c.now;
    c.runFor('1s');
    expect(consumer.recordsConsumed).toBe(50);
    const after = seen.slice(before);
    const answered = seen.filter((s) => s.at >= sentAt && s.res?.partitions.length);
    expect(answered.length).toBeGreaterThan(0);
    for (const s of answered) expect(s.res!.partitions.map((pr) => pr.partition)).toEqual([5]);
    const naming = after.filter((s) => s.req.partitions.length > 0);
    expect(naming.length).toBe(answered.length);
    for (const s of naming) expect(named([s])).toEqual([5]);
    expect(naming.at(-1)!.req.partitions[0]!.fetchOffset).toBe(50);
  });

  it('Java: a seek is sent in the session and the records come again; an unassigned partition is forgotten', () => {
    const { c, consumer, seen } = setup('java');
    const p = c.producer('p');
    for (let i = 0; i < 30; i++) p.send({ topic: 't', partition: 2, value: `v${i}` });
    c.runFor('1s');
    expect(consumer.recordsConsumed).toBe(30);
    const before = seen.length;
    consumer.seek({ topic: 't', partition: 2 }, 10);
    c.runFor('1s');
    expect(consumer.recordsConsumed).toBe(50);
    expect(
      seen.slice(before).some((s) => s.req.partitions.some((q) => q.partition === 2 && q.fetchOffset === 10)),
    ).toBe(true);
    const mark = seen.length;
    consumer.assign(Array.from({ length: 11 }, (_, partition) => ({ topic: 't', partition })));
    c.runFor('1s');
    const forgetting = seen.slice(mark).filter((s) => s.req.forgotten?.length);
    expect(forgetting.map((s) => s.req.forgotten)).toEqual([[{ topic: 't', partition: 11 }]]);
    // Forgotten on the broker too: records to it are not answered.
    for (let i = 0; i < 5; i++) p.send({ topic: 't', partition: 11, value: 'x' });
    c.runFor('1s');
    expect(consumer.recordsConsumed).toBe(50);
    expect(seen.slice(mark).some((s) => s.res?.partitions.some((pr) => pr.partition === 11))).toBe(false);
  });

  it('Java: a session evicted by a larger one answers FETCH_SESSION_ID_NOT_FOUND; without a slot every fetch is full', () => {
    // Three slots per broker: two followers' sessions and one consumer's; the first consumer reads one partition
    // from each broker.
    const { c, consumer, seen } = setup('java', 3, 3);
    const resets: unknown[] = [];
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'consumer.fetch-session-reset') resets.push(e);
    });
    expect(seen.filter((s) => s.req.sessionEpoch === 0).length).toBe(3);
    // A consumer of every partition evicts the first one's sessions (FetchSessionCache.tryEvict: more partitions).
    const big = c.consumer('big', { config: { 'auto.offset.reset': 'earliest' } });
    big.assign(Array.from({ length: 12 }, (_, partition) => ({ topic: 't', partition })));
    const mark = seen.length;
    c.runFor('3s');
    const notFound = seen
      .slice(mark)
      .filter((s) => s.res?.errorCode === Errors.FETCH_SESSION_ID_NOT_FOUND.code);
    expect(notFound.length).toBe(3);
    expect(resets.length).toBe(3);
    // Then full fetches without an id, which the cache does not keep (the other session is larger): every later
    // fetch names all its partitions, and records still arrive.
    const later = seen.slice(seen.indexOf(notFound.at(-1)!) + 1).filter((s) => s.res);
    expect(later.length).toBeGreaterThan(3);
    for (const s of later) {
      expect(s.req.sessionId).toBe(0);
      expect(s.req.sessionEpoch).toBe(0);
      expect(s.req.partitions.length).toBe(1);
      expect(s.res?.sessionId).toBe(0);
    }
    const p = c.producer('p');
    for (let i = 0; i < 120; i++) p.send({ topic: 't', partition: i % 12, value: `v${i}` });
    c.runFor('2s');
    expect(consumer.recordsConsumed).toBe(30);
    expect(big.recordsConsumed).toBe(120);
  });

  it('Java: a partition moved off its broker is answered NOT_LEADER_OR_FOLLOWER in the session, not left silent', () => {
    // AutoMQ's move: the owner drops the partition at once (no leader change on it first).
    const c = createCluster({ seed: 5, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'm', assignments: [[0]] });
    c.runFor('1s');
    const consumer = c.consumer('reader', { config: { 'auto.offset.reset': 'earliest' } });
    const seen = tapFetches(consumer, () => c.now);
    consumer.assign([{ topic: 'm', partition: 0 }]);
    const p = c.producer('p');
    for (let i = 0; i < 10; i++) p.send({ topic: 'm', partition: 0, value: `a${i}` });
    c.runFor('2s');
    expect(consumer.recordsConsumed).toBe(10);
    // The partition moves to broker 1: broker 0 drops the replica the consumer's session there holds, settled.
    c.admin.alterPartitionReassignments([{ topic: 'm', partition: 0, replicas: [1] }]);
    c.runFor('3s');
    expect(c.image.topics.m!.partitions[0]!.leader).not.toBe(0);
    for (let i = 0; i < 10; i++) p.send({ topic: 'm', partition: 0, value: `b${i}` });
    c.runFor('2s');
    // Well before metadata.max.age.ms (5 min) would have told the consumer of the new leader.
    expect(consumer.recordsConsumed).toBe(20);
    expect(
      seen.some((s) => s.res?.partitions.some((pr) => pr.errorCode === Errors.NOT_LEADER_OR_FOLLOWER.code)),
    ).toBe(true);
  });

  it('librdkafka: no session, every fetch names every partition of its broker', () => {
    const { consumer, seen } = setup('librdkafka');
    expect(consumer.recordsConsumed).toBe(0);
    const last = seen.slice(-9);
    expect(last.length).toBe(9);
    for (const s of seen) expect(s.req.sessionEpoch).toBeUndefined();
    for (const s of last) expect(s.req.partitions.length).toBe(4);
  });
});
