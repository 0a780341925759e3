// The invariants are not vacuous: each one catches the breakage it names.
import { describe, expect, it } from 'vitest';
import {
  ConsistentCommittedData,
  type QuorumMember,
  type RaftClient,
  RaftQuorum,
  ReplicatedCounter,
  SIMULATION_TEST_QUORUM_CONFIG,
} from '../../../models/raft/index.ts';
import { InvariantViolation, Simulation } from '../../../models/sim/index.ts';

function running(): RaftQuorum {
  const q = new RaftQuorum({ seed: 3, voters: 3, config: SIMULATION_TEST_QUORUM_CONFIG });
  q.startAll();
  q.runUntil(() => q.hasConsistentLeader() && q.allReachedHighWatermark(10), 'a leader and some data');
  return q;
}

function violation(q: RaftQuorum): InvariantViolation {
  try {
    q.sim.runFor('1s');
  } catch (e) {
    expect(e).toBeInstanceOf(InvariantViolation);
    return e as InvariantViolation;
  }
  throw new Error('no violation');
}

describe('Raft invariants', () => {
  it('SingleLeader: two stored leaders of one epoch', () => {
    const q = running();
    const leader = q.leader()!;
    const other = q.running().find((n) => n !== leader)!;
    const state = leader.raft.electionState!;
    other.disk.set('raft/quorum-state', { ...state, leaderId: other.replicaId });
    const v = violation(q);
    expect(v.invariant).toBe('SingleLeader');
    expect(v.detail).toContain(`epoch ${state.epoch} has two leaders`);
  });

  it('MonotonicEpoch: a stored epoch that goes back', () => {
    const q = running();
    const node = q.running()[0]!;
    node.crash();
    node.disk.set('raft/quorum-state', { epoch: 0, leaderId: undefined, votedId: undefined });
    const v = violation(q);
    expect(v.invariant).toBe('MonotonicEpoch');
    expect(v.detail).toMatch(/stored epoch went back from \d+ to 0/);
  });

  it('MajorityReachedHighWatermark: the high watermark is on fewer than a majority of voter logs', () => {
    const q = running();
    const leader = q.leader()!;
    for (const n of q.running()) if (n !== leader) n.killAndDeletePersistentState();
    const v = violation(q);
    expect(v.invariant).toBe('MajorityReachedHighWatermark');
    expect(v.detail).toMatch(/only 1 of 3 voters/);
  });

  it('ConsistentCommittedData: a committed offset whose record differs between nodes', () => {
    const sim = new Simulation();
    const member = (replicaId: number, records: number[]): QuorumMember => ({
      replicaId,
      up: true,
      raft: {
        highWatermark: records.length,
        forEachCommitted: (from: number, fn: (offset: number, record: number) => void) => {
          for (let offset = from; offset < records.length; offset++) fn(offset, records[offset]!);
        },
      } as unknown as RaftClient<unknown>,
    });
    const members = [member(0, [1, 2, 3]), member(1, [1, 2])];
    const check = new ConsistentCommittedData(sim, () => members);
    check.validate();
    members.push(member(2, [1, 7]));
    expect(() => check.validate()).toThrow(
      /ConsistentCommittedData violated: committed record at offset 1 changed on node 2: 2 -> 7/,
    );
  });

  it('ReplicatedCounter: a committed value that is not the previous one plus one', () => {
    let onCommit: (hw: number) => void = () => {};
    const values = [1, 2, 4];
    const client = {
      nodeId: 0,
      onCommit: (l: (hw: number) => void) => {
        onCommit = l;
      },
      onLeaderChange: () => {},
      forEachCommitted: (from: number, fn: (offset: number, record: number) => void) => {
        for (let offset = from; offset < values.length; offset++) fn(offset, values[offset]!);
      },
    } as unknown as RaftClient<number>;
    const counter = new ReplicatedCounter(client);
    onCommit(3);
    expect(counter.violation).toBe(
      'node 0: expected the next committed value to be 3, but found 4 at offset 2',
    );
  });
});
