// The Raft client inside real simulated nodes: elections, replication, flush, restarts and the RPC errors.

import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import {
  METADATA_TOPIC,
  NotLeaderError,
  type QuorumConfig,
  type QuorumFetchRequest,
  type QuorumFetchResponse,
  RaftNode,
  SIMULATION_TEST_QUORUM_CONFIG,
  type VoteResponse,
} from '../../../models/raft/index.ts';
import {
  constant,
  type NodeId,
  type RequestOutcome,
  SimNode,
  Simulation,
} from '../../../models/sim/index.ts';

class Peer extends SimNode {
  ask<R>(to: NodeId, payload: unknown): { outcome?: RequestOutcome<R>; at?: number } {
    const box: { outcome?: RequestOutcome<R>; at?: number } = {};
    this.request<R>(to, payload, (o) => {
      box.outcome = o;
      box.at = this.sim.now;
    });
    return box;
  }
}

interface World {
  sim: Simulation;
  nodes: RaftNode<string>[];
  peer: Peer;
  leader(): RaftNode<string> | undefined;
  node(id: number): RaftNode<string>;
  electLeader(): RaftNode<string>;
}

function world(
  options: { voters?: number; observers?: number; config?: Partial<QuorumConfig>; seed?: number } = {},
): World {
  const sim = new Simulation({ seed: options.seed ?? 7, defaultLatency: constant(1) });
  const voters = Array.from({ length: options.voters ?? 3 }, (_, i) => i);
  const ids = [...voters, ...Array.from({ length: options.observers ?? 0 }, (_, i) => voters.length + i)];
  const nodes = ids.map(
    (id) => new RaftNode<string>(sim, { nodeId: id, voters, config: options.config ?? {} }),
  );
  const peer = new Peer(sim, 'peer');
  peer.start();
  for (const n of nodes) n.start();
  const w: World = {
    sim,
    nodes,
    peer,
    leader: () => nodes.find((n) => n.up && n.raft.isLeader),
    node: (id) => nodes[id]!,
    electLeader: () => {
      sim.runUntil(() => w.leader() !== undefined && w.leader()!.raft.highWatermark !== undefined, {
        timeout: '30s',
        description: 'a leader with a high watermark',
      });
      return w.leader()!;
    },
  };
  return w;
}

const fetch = (fields: Partial<QuorumFetchRequest>): QuorumFetchRequest => ({
  type: 'Fetch',
  topic: METADATA_TOPIC,
  replicaId: 99,
  currentLeaderEpoch: 1,
  fetchOffset: 0,
  lastFetchedEpoch: 0,
  maxWaitMs: 0,
  ...fields,
});

describe('RaftClient', () => {
  it('elects one leader that writes LeaderChange at its epoch start and commits it before anything else', () => {
    const w = world();
    const leader = w.electLeader();
    const start = leader.raft.epochStartOffset!;
    expect(leader.raft.log.entry(start)?.control).toEqual({
      type: 'LeaderChange',
      leaderId: leader.replicaId,
      voters: [0, 1, 2],
    });
    expect(leader.raft.highWatermark).toBe(start + 1);
    const states = w.nodes.map((n) => n.raft.electionState);
    expect(new Set(states.map((s) => `${s?.epoch}/${s?.leaderId}`)).size).toBe(1);
    expect(w.nodes.filter((n) => n.raft.isLeader)).toHaveLength(1);
  });

  it('the leader appends after append.linger.ms, and records commit once a majority has fetched them', () => {
    const w = world();
    const leader = w.electLeader();
    w.sim.runFor(100);
    const before = leader.raft.log.endOffset;
    const t0 = w.sim.now;
    const { baseOffset, lastOffset } = leader.raft.append(['a', 'b']);
    expect([baseOffset, lastOffset]).toEqual([before, before + 1]);
    w.sim.runFor(24.9);
    expect(leader.raft.log.endOffset).toBe(before);
    w.sim.runFor(0.1);
    expect(leader.raft.log.endOffset).toBe(before + 2);
    // Flushed with the append: the leader counts itself up to its flushed offset.
    expect(leader.raft.log.flushedOffset).toBe(before + 2);
    const committedAt = w.sim.runUntil(() => (leader.raft.highWatermark ?? 0) > lastOffset, {
      timeout: '1s',
    });
    // The parked fetches return the new records at once (1 ms) and the followers' next fetches report them (1 ms).
    expect(committedAt - t0).toBeCloseTo(25 + 1 + 1, 5);
    expect(leader.raft.readCommitted(baseOffset).map((e) => e.record)).toEqual(['a', 'b']);
  });

  it('voter followers flush after each append; observers do not', () => {
    const w = world({ voters: 3, observers: 1 });
    const leader = w.electLeader();
    leader.raft.append(['x']);
    w.sim.runFor(200);
    const voterFollower = w.nodes.find((n) => n.replicaId < 3 && !n.raft.isLeader)!;
    const observer = w.node(3);
    expect(voterFollower.raft.log.endOffset).toBe(leader.raft.log.endOffset);
    expect(voterFollower.raft.log.flushedOffset).toBe(voterFollower.raft.log.endOffset);
    expect(observer.raft.log.endOffset).toBe(leader.raft.log.endOffset);
    expect(observer.raft.log.flushedOffset).toBe(0);
    // Observers never vote and never count for the high watermark.
    expect(observer.raft.role).toBe('follower');
    expect(leader.raft.describeQuorum()?.observers.map((o) => o.replicaId)).toEqual([3]);
  });

  it('without the flush guarantees, the leader counts unflushed data and a crash loses it', () => {
    const config = { 'kafkasim.raft.flush.enable': false };
    const w = world({ config });
    const leader = w.electLeader();
    leader.raft.append(['u1', 'u2']);
    w.sim.runFor(200);
    expect(leader.raft.log.flushedOffset).toBeLessThan(leader.raft.log.endOffset);
    const self = leader.raft.describeQuorum()!.voters.find((v) => v.replicaId === leader.replicaId)!;
    expect(self.endOffset).toBe(leader.raft.log.endOffset);
    // Committed, yet on no disk.
    expect(leader.raft.highWatermark).toBe(leader.raft.log.endOffset);
    const follower = w.nodes.find((n) => !n.raft.isLeader)!;
    const end = follower.raft.log.endOffset;
    const lost: unknown[] = [];
    w.sim.trace.subscribe((e) => e.kind === 'raft.unflushed-lost' && lost.push(e));
    follower.crash();
    expect(follower.raft.log.endOffset).toBe(follower.raft.log.flushedOffset);
    expect(lost).toEqual([expect.objectContaining({ entries: end - follower.raft.log.endOffset })]);
    // The OS flusher wakes every kafkasim.raft.os.writeback.ms (5 s) but writes back only pages dirty for
    // kafkasim.raft.os.dirty.expire.ms (30 s, vm.dirty_expire_centisecs): after 25 s the records are still only in
    // memory, by 35 s the leader's log is durable.
    w.sim.runFor('25s');
    expect(leader.raft.log.flushedOffset).toBeLessThan(leader.raft.log.endOffset);
    w.sim.runFor('10s');
    expect(leader.raft.log.flushedOffset).toBe(leader.raft.log.endOffset);
  });

  it('with the flush guarantees a crash loses nothing that was fetched or appended', () => {
    const w = world();
    const leader = w.electLeader();
    leader.raft.append(['d']);
    w.sim.runFor(200);
    for (const n of w.nodes) {
      const end = n.raft.log.endOffset;
      n.crash();
      expect(n.raft.log.endOffset).toBe(end);
    }
  });

  it('a node that led its stored epoch restarts Resigned in it, and does not vote in that epoch again', () => {
    const w = world();
    const leader = w.electLeader();
    const epoch = leader.raft.epoch;
    leader.crash();
    expect(leader.raft.electionState).toMatchObject({ epoch, leaderId: leader.replicaId });
    leader.start();
    expect(leader.raft.role).toBe('resigned');
    expect(leader.raft.epoch).toBe(epoch);
    const vote = w.peer.ask<VoteResponse>(leader.id, {
      type: 'Vote',
      candidateEpoch: epoch,
      candidateId: (leader.replicaId + 1) % 3,
      lastOffsetEpoch: epoch,
      lastOffset: 1000,
      preVote: false,
    });
    w.sim.runFor(5);
    expect(vote.outcome).toMatchObject({ ok: true, response: { voteGranted: false, leaderEpoch: epoch } });
  });

  it('a vote is persisted before it is granted: after a restart the voter does not vote for another candidate', () => {
    const w = world({ voters: 3, config: { 'controller.quorum.election.timeout.ms': 100_000 } });
    const voter = w.node(0);
    const ask = (candidateId: number) =>
      w.peer.ask<VoteResponse>(voter.id, {
        type: 'Vote',
        candidateEpoch: 5,
        candidateId,
        lastOffsetEpoch: 0,
        lastOffset: 0,
        preVote: false,
      });
    const first = ask(1);
    w.sim.runFor(5);
    expect(first.outcome).toMatchObject({ ok: true, response: { voteGranted: true, leaderEpoch: 5 } });
    expect(voter.raft.electionState).toEqual({ epoch: 5, leaderId: undefined, votedId: 1 });
    voter.crash();
    voter.start();
    const second = ask(2);
    const again = ask(1);
    w.sim.runFor(5);
    expect(second.outcome).toMatchObject({ ok: true, response: { voteGranted: false } });
    expect(again.outcome).toMatchObject({ ok: true, response: { voteGranted: true } });
    // A candidate whose log is behind gets no vote either.
    const w2 = world({ voters: 3 });
    const l2 = w2.electLeader();
    w2.sim.runFor(100);
    const behind = w2.peer.ask<VoteResponse>(w2.nodes.find((n) => n !== l2)!.id, {
      type: 'Vote',
      candidateEpoch: l2.raft.epoch + 1,
      candidateId: l2.replicaId,
      lastOffsetEpoch: 0,
      lastOffset: 0,
      preVote: false,
    });
    w2.sim.runFor(5);
    expect(behind.outcome).toMatchObject({ ok: true, response: { voteGranted: false } });
  });

  it('answers a Fetch of an older epoch FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH, and a non-leader NOT_LEADER_OR_FOLLOWER', () => {
    const w = world();
    const leader = w.electLeader();
    const epoch = leader.raft.epoch;
    const follower = w.nodes.find((n) => n !== leader)!;
    const old = w.peer.ask<QuorumFetchResponse>(leader.id, fetch({ currentLeaderEpoch: epoch - 1 }));
    const future = w.peer.ask<QuorumFetchResponse>(leader.id, fetch({ currentLeaderEpoch: epoch + 1 }));
    const wrong = w.peer.ask<QuorumFetchResponse>(follower.id, fetch({ currentLeaderEpoch: epoch }));
    w.sim.runFor(5);
    expect(old.outcome).toMatchObject({
      ok: true,
      response: {
        errorCode: Errors.FENCED_LEADER_EPOCH.code,
        leaderEpoch: epoch,
        leaderId: leader.replicaId,
      },
    });
    expect(future.outcome).toMatchObject({
      ok: true,
      response: { errorCode: Errors.UNKNOWN_LEADER_EPOCH.code },
    });
    expect(wrong.outcome).toMatchObject({
      ok: true,
      response: { errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code, leaderId: leader.replicaId },
    });
  });

  it('parks an empty Fetch up to its max wait, and answers it as soon as the log grows', () => {
    const w = world({ config: { 'controller.quorum.append.linger.ms': 0 } });
    const leader = w.electLeader();
    w.sim.runFor(50);
    const end = leader.raft.log.endOffset;
    const request = fetch({
      currentLeaderEpoch: leader.raft.epoch,
      fetchOffset: end,
      lastFetchedEpoch: leader.raft.epoch,
      maxWaitMs: 300,
    });
    const t0 = w.sim.now;
    const idle = w.peer.ask<QuorumFetchResponse>(leader.id, request);
    w.sim.runFor(302);
    expect(idle.at! - t0).toBeCloseTo(1 + 300 + 1, 5);
    expect(idle.outcome).toMatchObject({ ok: true, response: { errorCode: 0, records: [] } });
    const t1 = w.sim.now;
    const busy = w.peer.ask<QuorumFetchResponse>(leader.id, { ...request });
    w.sim.runFor(100);
    leader.raft.append(['new']);
    w.sim.runFor(10);
    // Answered when the append drains (linger 0), not at the end of the wait.
    expect(busy.at! - t1).toBeCloseTo(100 + 1, 5);
    expect(busy.outcome).toMatchObject({
      ok: true,
      response: { records: [expect.objectContaining({ records: ['new'] })] },
    });
  });

  it('an old leader with uncommitted entries truncates them when it follows the new leader (diverging epoch)', () => {
    const w = world({ config: SIMULATION_TEST_QUORUM_CONFIG });
    const old = w.electLeader();
    w.sim.network.isolate(old.id);
    old.raft.append(['lost-1', 'lost-2']);
    w.sim.runFor(10);
    const uncommitted = old.raft.log.endOffset;
    const truncations: unknown[] = [];
    w.sim.trace.subscribe((e) => e.kind === 'raft.truncate' && truncations.push(e));
    w.sim.runUntil(
      () => w.nodes.some((n) => n !== old && n.raft.isLeader && n.raft.highWatermark !== undefined),
      {
        timeout: '30s',
      },
    );
    const leader = w.nodes.find((n) => n !== old && n.raft.isLeader)!;
    leader.raft.append(['kept']);
    w.sim.network.heal();
    w.sim.runUntil(
      () =>
        old.raft.role === 'follower' &&
        old.raft.log.endOffset === leader.raft.log.endOffset &&
        old.raft.highWatermark === leader.raft.highWatermark,
      {
        timeout: '30s',
      },
    );
    expect(truncations).toEqual([expect.objectContaining({ node: old.id, from: uncommitted })]);
    const records = (n: RaftNode<string>) => n.raft.log.read(0).map((e) => e.record ?? `control@${e.epoch}`);
    expect(records(old)).toEqual(records(leader));
    expect(records(old)).not.toContain('lost-1');
    expect(records(old)).toContain('kept');
  });

  it('a leader that hears from no majority resigns within 1.5 x fetch timeout', () => {
    const w = world({ config: SIMULATION_TEST_QUORUM_CONFIG });
    const leader = w.electLeader();
    w.sim.runFor(500);
    const isolatedAt = w.sim.now;
    w.sim.network.isolate(leader.id);
    let resignedAt: number | undefined;
    w.sim.trace.subscribe((e) => {
      if (e.kind === 'raft.resign' && e.node === leader.id) resignedAt = e.t;
    });
    w.sim.runUntil(() => resignedAt !== undefined, { timeout: '10s' });
    const fetchTimeout = SIMULATION_TEST_QUORUM_CONFIG['controller.quorum.fetch.timeout.ms']!;
    const maxWait = SIMULATION_TEST_QUORUM_CONFIG['kafkasim.raft.fetch.max.wait.ms']!;
    // Fetches count when they arrive and again when a parked one completes (LeaderState.updateReplicaState), so
    // the last one the leader saw is at most a parked-fetch wait from the isolation, either way.
    expect(resignedAt! - isolatedAt).toBeLessThanOrEqual(1.5 * fetchTimeout + maxWait);
    expect(resignedAt! - isolatedAt).toBeGreaterThan(1.5 * fetchTimeout - maxWait - 10);
    expect(leader.raft.role).toBe('resigned');
  });

  it('a graceful shutdown hands leadership to the most up-to-date follower at once (EndQuorumEpoch)', () => {
    const w = world({ config: SIMULATION_TEST_QUORUM_CONFIG });
    const leader = w.electLeader();
    w.sim.runFor(200);
    const t0 = w.sim.now;
    leader.shutdown(500);
    w.sim.runUntil(() => w.nodes.some((n) => n !== leader && n.raft.isLeader), { timeout: '10s' });
    // Far sooner than a fetch timeout (3 s) plus an election timeout.
    expect(w.sim.now - t0).toBeLessThan(50);
    w.sim.runFor(100);
    expect(leader.up).toBe(false);
    expect(leader.status).toBe('stopped');
  });

  it('refuses appends on a node that is not the leader', () => {
    const w = world();
    const leader = w.electLeader();
    const follower = w.nodes.find((n) => n !== leader)!;
    expect(() => follower.raft.append(['no'])).toThrow(NotLeaderError);
    expect(() => follower.raft.append(['no'])).toThrow(`leader ${leader.replicaId}`);
  });

  it('draws its timeouts from the seed: same seed, same run; another seed, another run', () => {
    const run = (seed: number) => {
      const w = world({ seed, voters: 5 });
      w.electLeader();
      w.sim.runFor('2s');
      return { hash: w.sim.trace.hash, leader: w.leader()!.replicaId, at: w.sim.eventCount };
    };
    expect(run(11)).toEqual(run(11));
    const hashes = new Set([11, 12, 13, 14].map((s) => run(s).hash));
    expect(hashes.size).toBe(4);
  });
});
