// The role machine alone, with a recording environment, on the kernel clock.
import { describe, expect, it } from 'vitest';
import {
  type ElectionState,
  type QuorumConfig,
  type QuorumEnvironment,
  type QuorumInput,
  type QuorumRole,
  quorumMachine,
  resolveQuorumConfig,
  roleOf,
} from '../../../models/raft/index.ts';
import { createSimActor, Simulation } from '../../../models/sim/index.ts';

interface World {
  sim: Simulation;
  persisted: ElectionState[];
  entered: { role: QuorumRole; epoch: number; at: number }[];
  fetchDeadline: number;
  checkQuorumDeadline: number;
  shuttingDown: boolean;
  beginQuorumSends: number[];
  actor: ReturnType<typeof createSimActor<typeof quorumMachine>>;
  role(): string;
  ctx(): ReturnType<World['actor']['getSnapshot']>['context'];
}

function world(
  options: {
    localId?: number;
    voters?: number[];
    config?: Partial<QuorumConfig>;
    initial?: QuorumInput['initial'];
    election?: ElectionState;
    draws?: number;
  } = {},
): World {
  const sim = new Simulation();
  const w = {
    sim,
    persisted: [],
    entered: [],
    fetchDeadline: 0,
    checkQuorumDeadline: 0,
    shuttingDown: false,
    beginQuorumSends: [],
  } as unknown as World;
  const env: QuorumEnvironment = {
    localId: options.localId ?? 1,
    voters: options.voters ?? [1, 2, 3],
    config: resolveQuorumConfig(options.config),
    now: () => sim.now,
    // Deterministic draws: a fixed fraction of the bound.
    nextInt: (bound) => Math.floor(bound * (options.draws ?? 0.5)),
    persist: (s) => w.persisted.push(s),
    enter: (role, c) => w.entered.push({ role, epoch: c.epoch, at: sim.now }),
    fetchTimeoutRemainingMs: () => w.fetchDeadline - sim.now,
    checkQuorumRemainingMs: () => w.checkQuorumDeadline - sim.now,
    successors: () => [3, 2],
    isShuttingDown: () => w.shuttingDown,
    sendBeginQuorumEpoch: () => w.beginQuorumSends.push(sim.now),
  };
  w.actor = createSimActor(sim, quorumMachine, {
    input: {
      env,
      initial: options.initial ?? 'unattached',
      election: options.election ?? { epoch: 0, leaderId: undefined, votedId: undefined },
    },
  });
  w.role = () => roleOf(w.actor.getSnapshot().value);
  w.ctx = () => w.actor.getSnapshot().context;
  w.actor.start();
  return w;
}

describe('quorum machine', () => {
  it('an unattached voter becomes candidate after a random election timeout in [T, 2T), voting for itself', () => {
    const w = world({ draws: 0.25 });
    expect(w.role()).toBe('unattached');
    w.sim.runFor(1249);
    expect(w.role()).toBe('unattached');
    w.sim.runFor(1);
    expect(w.role()).toBe('candidate');
    expect(w.ctx().epoch).toBe(1);
    // The quorum-state file says so before the candidate acts.
    expect(w.persisted.at(-1)).toEqual({ epoch: 1, leaderId: undefined, votedId: 1 });
    expect(w.entered.at(-1)).toEqual({ role: 'candidate', epoch: 1, at: 1250 });
  });

  it('observers never start an election', () => {
    const w = world({ localId: 9 });
    w.sim.runFor('1h');
    expect(w.role()).toBe('unattached');
    expect(w.entered).toHaveLength(1);
  });

  it('a candidate with a majority of votes leads; persisted as leader of its epoch', () => {
    const w = world();
    w.sim.runFor(1500);
    expect(w.role()).toBe('candidate');
    w.actor.send({ type: 'VOTE_RESULT', epoch: 1, from: 3, granted: true, preVote: false });
    expect(w.role()).toBe('leader');
    expect(w.persisted.at(-1)).toEqual({ epoch: 1, leaderId: 1, votedId: undefined });
    // Votes of another epoch do not count.
    const w2 = world();
    w2.sim.runFor(1500);
    w2.actor.send({ type: 'VOTE_RESULT', epoch: 0, from: 3, granted: true, preVote: false });
    expect(w2.role()).toBe('candidate');
  });

  it('a candidate rejected by a majority backs off, then runs again in the next epoch', () => {
    const w = world({ voters: [1, 2, 3] });
    w.sim.runFor(1500);
    w.actor.send({ type: 'VOTE_RESULT', epoch: 1, from: 2, granted: false, preVote: false });
    expect(w.actor.getSnapshot().value).toEqual({ candidate: 'electing' });
    w.actor.send({ type: 'VOTE_RESULT', epoch: 1, from: 3, granted: false, preVote: false });
    expect(w.actor.getSnapshot().value).toEqual({ candidate: 'backingOff' });
    // retries 1: 100 * rand(2) with the 0.5 draw = 100 ms.
    expect(w.ctx().backoffMs).toBe(100);
    w.sim.runFor(100);
    expect(w.ctx().epoch).toBe(2);
    expect(w.actor.getSnapshot().value).toEqual({ candidate: 'electing' });
  });

  it('the only voter leads at once', () => {
    const w = world({ voters: [1] });
    expect(w.role()).toBe('leader');
    expect(w.ctx().epoch).toBe(1);
    expect(w.actor.getSnapshot().value).toMatchObject({ leader: { checkQuorum: 'off' } });
  });

  it('a larger epoch with a leader makes any node a follower; without one, unattached', () => {
    const w = world();
    w.actor.send({ type: 'OBSERVE', epoch: 4, leaderId: 2 });
    expect(w.role()).toBe('follower');
    expect(w.persisted.at(-1)).toEqual({ epoch: 4, leaderId: 2, votedId: undefined });
    w.actor.send({ type: 'OBSERVE', epoch: 6, leaderId: undefined });
    expect(w.role()).toBe('unattached');
    expect(w.ctx().epoch).toBe(6);
    // A stale epoch changes nothing.
    w.actor.send({ type: 'OBSERVE', epoch: 5, leaderId: 3 });
    expect(w.ctx().epoch).toBe(6);
  });

  it('a voter grants one vote per epoch, persisted, and its election timer restarts', () => {
    const w = world();
    w.sim.runFor(500);
    w.actor.send({ type: 'GRANT_VOTE', candidateId: 2 });
    expect(w.persisted.at(-1)).toEqual({ epoch: 0, leaderId: undefined, votedId: 2 });
    w.actor.send({ type: 'GRANT_VOTE', candidateId: 3 });
    expect(w.ctx().votedId).toBe(2);
    // The timer restarted at 500 ms: no election before 500 + 1500.
    w.sim.runFor(1499);
    expect(w.role()).toBe('unattached');
    w.sim.runFor(1);
    expect(w.role()).toBe('candidate');
  });

  it('moving to a larger epoch keeps the running election timer of an unattached voter', () => {
    const w = world();
    w.sim.runFor(1000);
    w.actor.send({ type: 'OBSERVE', epoch: 3, leaderId: undefined });
    // Still due at 1500 ms, not 1000 + a new draw.
    w.sim.runFor(499);
    expect(w.role()).toBe('unattached');
    w.sim.runFor(1);
    expect(w.role()).toBe('candidate');
    expect(w.ctx().epoch).toBe(4);
  });

  it('a follower starts an election only once its fetch deadline has really passed (lazy timer)', () => {
    const w = world();
    w.fetchDeadline = 2000;
    w.actor.send({ type: 'OBSERVE', epoch: 1, leaderId: 2 });
    w.sim.runFor(1500);
    // Successful fetches move the deadline without telling the machine.
    w.fetchDeadline = 3500;
    w.sim.runFor(1000);
    expect(w.role()).toBe('follower');
    w.sim.runFor(1000);
    expect(w.role()).toBe('candidate');
    expect(w.entered.at(-1)?.at).toBe(3500);
  });

  it('an earlier fetch deadline (EndQuorumEpoch) re-arms the timer', () => {
    const w = world();
    w.fetchDeadline = 2000;
    w.actor.send({ type: 'OBSERVE', epoch: 1, leaderId: 2 });
    w.sim.runFor(100);
    w.fetchDeadline = 100;
    w.actor.send({ type: 'FETCH_DEADLINE_CHANGED' });
    expect(w.role()).toBe('follower');
    w.sim.runFor(0);
    expect(w.role()).toBe('candidate');
    expect(w.entered.at(-1)?.at).toBe(100);
  });

  it('a leader without majority fetches resigns at its check-quorum deadline, naming successors', () => {
    const w = world();
    w.sim.runFor(1500);
    w.checkQuorumDeadline = 1500 + 3000;
    w.actor.send({ type: 'VOTE_RESULT', epoch: 1, from: 2, granted: true, preVote: false });
    w.sim.runFor(2000);
    w.checkQuorumDeadline = 1500 + 5000;
    w.sim.runFor(2999);
    expect(w.role()).toBe('leader');
    w.sim.runFor(1);
    expect(w.role()).toBe('resigned');
    expect(w.ctx().preferredSuccessors).toEqual([3, 2]);
    // BeginQuorumEpoch went out every fetch.timeout.ms / 2 while leading.
    expect(w.beginQuorumSends).toEqual([2500, 3500, 4500, 5500]);
    // Resigned is not durable: the file still says leader.
    expect(w.persisted.at(-1)).toEqual({ epoch: 1, leaderId: 1, votedId: undefined });
    w.sim.runFor(1500);
    expect(w.role()).toBe('candidate');
    expect(w.ctx().epoch).toBe(2);
  });

  it('restarts: Resigned when it led the stored epoch, Candidate in the same epoch when it voted for itself', () => {
    const led = world({ initial: 'resigned', election: { epoch: 5, leaderId: 1, votedId: undefined } });
    expect(led.role()).toBe('resigned');
    expect(led.ctx().epoch).toBe(5);
    const voted = world({ initial: 'candidate', election: { epoch: 5, leaderId: undefined, votedId: 1 } });
    expect(voted.role()).toBe('candidate');
    expect(voted.ctx().epoch).toBe(5);
  });

  describe('with pre-vote (KIP-996)', () => {
    const config = { 'kafkasim.raft.pre.vote.enable': true };

    it('an election timeout leads to Prospective in the same epoch; a majority of pre-votes to Candidate', () => {
      const w = world({ config });
      w.sim.runFor(1500);
      expect(w.role()).toBe('prospective');
      expect(w.ctx().epoch).toBe(0);
      w.actor.send({ type: 'VOTE_RESULT', epoch: 0, from: 2, granted: true, preVote: true });
      expect(w.role()).toBe('candidate');
      expect(w.ctx().epoch).toBe(1);
    });

    it('a lost pre-vote goes back to Follower when the leader is known, else Unattached, same epoch', () => {
      const w = world({ config });
      w.fetchDeadline = 0;
      w.actor.send({ type: 'OBSERVE', epoch: 3, leaderId: 2 });
      w.sim.runFor(0);
      expect(w.role()).toBe('prospective');
      w.actor.send({ type: 'VOTE_RESULT', epoch: 3, from: 2, granted: false, preVote: true });
      w.actor.send({ type: 'VOTE_RESULT', epoch: 3, from: 3, granted: false, preVote: true });
      expect(w.role()).toBe('follower');
      expect(w.ctx().epoch).toBe(3);
      const u = world({ config });
      u.sim.runFor(1500);
      u.sim.runFor(1500);
      expect(u.role()).toBe('unattached');
      expect(u.ctx().epoch).toBe(0);
    });
  });
});
