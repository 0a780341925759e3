// Incremental fetch sessions (KIP-227): followers fetch in sessions (a full fetch, then only what changed, and
// the leader answers only partitions with news); session ids and epochs are checked; the cache evicts by Kafka's
// rules; and an idle partition's follower stays in the ISR although its partition is no longer read.
import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/errors.ts';
import { brokerNodeId, type FetchRequest, type FetchResponse } from '../../../models/protocol/index.ts';
import { type RequestOutcome, SimNode } from '../../../models/sim/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';

/** A bare client node that sends the test's own requests. */
class Probe extends SimNode {}

function fetchRequest(over: Partial<FetchRequest>): FetchRequest {
  return {
    type: 'Fetch',
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1 << 20,
    partitions: [],
    ...over,
  };
}

describe('incremental fetch sessions', () => {
  it('followers send only changed partitions, leaders answer only partitions with news, idle ISRs hold', () => {
    const c = createCluster({ seed: 5, brokers: 3 });
    c.admin.createTopic({ name: 't', partitions: 12, replicationFactor: 3 });
    c.runFor('2s');
    const requests: FetchRequest[] = [];
    const answers: FetchResponse[] = [];
    const network = c.sim.network;
    const request = network.request.bind(network);
    network.request = ((from, to, payload, cb, timeout) => {
      const fetch = payload as FetchRequest;
      if (fetch.type !== 'Fetch' || fetch.replicaId < 0) return request(from, to, payload, cb, timeout);
      requests.push(fetch);
      return request(
        from,
        to,
        payload,
        (o: RequestOutcome<FetchResponse>) => {
          if (o.ok) answers.push(o.response);
          (cb as (o: RequestOutcome<FetchResponse>) => void)(o);
        },
        timeout,
      );
    }) as typeof network.request;
    const isrChanges: unknown[] = [];
    c.sim.trace.subscribe((e) => {
      if (e.kind === 'broker.alter-isr') isrChanges.push(e);
    });
    // Idle for longer than replica.lag.time.max.ms (30 s): every fetch is incremental and names nothing.
    c.runFor('45s');
    expect(requests.length).toBeGreaterThan(100);
    for (const r of requests) {
      expect(r.sessionId).toBeGreaterThan(0);
      expect(r.sessionEpoch).toBeGreaterThan(0);
      expect(r.partitions).toEqual([]);
    }
    for (const a of answers) expect(a.partitions).toEqual([]);
    // No partition was read, yet no follower fell out of the ISR: caught up as of each session fetch.
    expect(isrChanges).toEqual([]);
    for (const p of c.image.topics.t!.partitions) expect(p.isr.length).toBe(3);
    // One partition gets data: only it travels, and only to and from its leader.
    requests.length = 0;
    answers.length = 0;
    const producer = c.producer('p');
    producer.send({ topic: 't', partition: 4, value: 'v' });
    c.runUntil(() => producer.recordsAcked === 1, { timeout: '5s', description: 'acked' });
    c.runFor('1s');
    const named = new Set(requests.flatMap((r) => r.partitions.map((p) => p.partition)));
    expect([...named]).toEqual([4]);
    const answered = new Set(answers.flatMap((a) => a.partitions.map((p) => p.partition)));
    expect([...answered]).toEqual([4]);
    const leader = c.brokers.get(c.image.topics.t!.partitions[4]!.leader)!;
    for (const b of c.brokers.values())
      expect(b.findReplica('t', 4)!.log.logEndOffset).toBe(leader.findReplica('t', 4)!.log.logEndOffset);
  });

  it('a follower that stops following a partition forgets it in its session; a new follower names it', () => {
    const c = createCluster({ seed: 7, brokers: 4 });
    // Enough partitions that the leaving broker follows others from the same leader (its session goes on).
    c.admin.createTopic({ name: 't', partitions: 24, replicationFactor: 2 });
    c.runFor('2s');
    const reg = c.image.topics.t!.partitions[0]!;
    const leader = reg.leader;
    const leaving = reg.replicas.find((id) => id !== leader)!;
    const joining = [0, 1, 2, 3].find((id) => !reg.replicas.includes(id))!;
    const sent: { from: string; to: string; req: FetchRequest }[] = [];
    const network = c.sim.network;
    const request = network.request.bind(network);
    network.request = ((from, to, payload, cb, timeout) => {
      const fetch = payload as FetchRequest;
      if (fetch.type === 'Fetch' && fetch.replicaId >= 0) sent.push({ from, to, req: fetch });
      return request(from, to, payload, cb, timeout);
    }) as typeof network.request;
    c.admin.alterPartitionReassignments([{ topic: 't', partition: 0, replicas: [leader, joining] }]);
    c.runUntil(
      () =>
        c.image.topics.t!.partitions[0]!.replicas.length === 2 &&
        !c.image.topics.t!.partitions[0]!.replicas.includes(leaving),
      {
        timeout: '10s',
        description: 'reassigned',
      },
    );
    c.runFor('2s');
    const toLeader = sent.filter((s) => s.to === brokerNodeId(leader));
    const forgot = toLeader.filter(
      (s) =>
        s.from === brokerNodeId(leaving) &&
        s.req.forgotten?.some((f) => f.topic === 't' && f.partition === 0),
    );
    expect(forgot).toHaveLength(1);
    // After forgetting it, the leaving broker never names it again.
    const after = toLeader
      .slice(toLeader.indexOf(forgot[0]!) + 1)
      .filter((s) => s.from === brokerNodeId(leaving));
    for (const s of after)
      expect(s.req.partitions.some((p) => p.topic === 't' && p.partition === 0)).toBe(false);
    expect(
      toLeader.some(
        (s) =>
          s.from === brokerNodeId(joining) &&
          s.req.partitions.some((p) => p.topic === 't' && p.partition === 0),
      ),
    ).toBe(true);
    expect(c.brokers.get(leaving)!.findReplica('t', 0)).toBeUndefined();
    expect(c.brokers.get(joining)!.findReplica('t', 0)?.role).toBe('follower');
  });

  it('refuses an unknown session id and a wrong epoch; the right epoch goes on', () => {
    const c = createCluster({ seed: 5, brokers: 1 });
    c.admin.createTopic({ name: 't', partitions: 2 });
    c.runFor('1s');
    const probe = new Probe(c.sim, 'probe');
    probe.start();
    const send = (req: FetchRequest): FetchResponse => {
      let out: FetchResponse | undefined;
      probe.request<FetchResponse>(brokerNodeId(0), req, (o) => {
        if (o.ok) out = o.response;
      });
      c.runUntil(() => out !== undefined, { timeout: '2s', description: 'fetch answered' });
      return out!;
    };
    const partitions = [0, 1].map((partition) => ({
      topic: 't',
      partition,
      fetchOffset: 0,
      partitionMaxBytes: 1000,
    }));
    expect(send(fetchRequest({ sessionId: 12345, sessionEpoch: 1, partitions })).errorCode).toBe(
      Errors.FETCH_SESSION_ID_NOT_FOUND.code,
    );
    const full = send(fetchRequest({ sessionId: 0, sessionEpoch: 0, partitions }));
    expect(full.sessionId).toBeGreaterThan(0);
    expect(full.partitions.map((p) => p.partition)).toEqual([0, 1]);
    const id = full.sessionId!;
    expect(send(fetchRequest({ sessionId: id, sessionEpoch: 2 })).errorCode).toBe(
      Errors.INVALID_FETCH_SESSION_EPOCH.code,
    );
    const next = send(fetchRequest({ sessionId: id, sessionEpoch: 1 }));
    expect(next.errorCode).toBe(0);
    expect(next.partitions).toEqual([]);
    // Closing it (epoch -1) makes a sessionless full fetch; the id is gone.
    expect(send(fetchRequest({ sessionId: id, sessionEpoch: -1, partitions })).partitions).toHaveLength(2);
    expect(send(fetchRequest({ sessionId: id, sessionEpoch: 2 })).errorCode).toBe(
      Errors.FETCH_SESSION_ID_NOT_FOUND.code,
    );
  });

  it('evicts by Kafka rules when the cache is full: a larger session evicts a smaller one, not the reverse', () => {
    const c = createCluster({
      seed: 5,
      brokers: 1,
      brokerConfig: { 'max.incremental.fetch.session.cache.slots': 1 },
    });
    c.admin.createTopic({ name: 't', partitions: 3 });
    c.runFor('1s');
    const probe = new Probe(c.sim, 'probe');
    probe.start();
    const open = (n: number): number => {
      let out: FetchResponse | undefined;
      const partitions = [...Array(n).keys()].map((partition) => ({
        topic: 't',
        partition,
        fetchOffset: 0,
        partitionMaxBytes: 1000,
      }));
      probe.request<FetchResponse>(
        brokerNodeId(0),
        fetchRequest({ sessionId: 0, sessionEpoch: 0, partitions }),
        (o) => {
          if (o.ok) out = o.response;
        },
      );
      c.runUntil(() => out !== undefined, { timeout: '2s', description: 'fetch answered' });
      return out!.sessionId!;
    };
    const small = open(1);
    expect(small).toBeGreaterThan(0);
    const large = open(3);
    expect(large).toBeGreaterThan(0);
    // A consumer's session with no more partitions than the cached one, still in use: not cached (id 0).
    expect(open(2)).toBe(0);
    // Once the cached one is unused for min.incremental.fetch.session.eviction.ms (120 s), any new one takes it.
    c.runFor('121s');
    expect(open(1)).toBeGreaterThan(0);
  });
});
