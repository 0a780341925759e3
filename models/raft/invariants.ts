/**
 * The safety checks of Kafka's RaftEventSimulationTest (raft/src/test/java/org/apache/kafka/raft/), over the members
 * of one quorum: MonotonicHighWatermark, MonotonicEpoch, MajorityReachedHighWatermark and SingleLeader run after
 * every event (as kernel invariants); ConsistentCommittedData is a validation run at the end of each phase. They read
 * what a test harness may read: running clients, stored election states, and every voter's log on disk.
 */
import { InvariantViolation, type Simulation } from '../sim/index.ts';
import { majority } from './decisions.ts';
import type { ElectionState } from './quorum-state.ts';
import type { RaftClient } from './raft-client.ts';

export interface QuorumMember {
  readonly replicaId: number;
  /** The host is running. */
  readonly up: boolean;
  readonly raft: RaftClient<unknown>;
}

export const RAFT_INVARIANTS = [
  'MonotonicHighWatermark',
  'MonotonicEpoch',
  'MajorityReachedHighWatermark',
  'SingleLeader',
] as const;

/** KIP-996's extra check (off by default): the first elected (epoch, leader) never changes. */
export type RaftInvariantName = (typeof RAFT_INVARIANTS)[number] | 'StableLeadership';

/** The running leader with the largest epoch, if any (the test's `leaderHighWatermark` source). */
export function latestRunningLeader(members: Iterable<QuorumMember>): QuorumMember | undefined {
  let best: QuorumMember | undefined;
  for (const m of members) {
    if (!m.up || !m.raft.isLeader) continue;
    if (!best || m.raft.epoch > best.raft.epoch) best = m;
  }
  return best;
}

/** One invariant's check: a description of the violation, or undefined. */
export type QuorumCheck = () => string | undefined;

/**
 * What the invariants read, gathered once per event however many of them run (they all run after every
 * event, so this is the hot path of a simulation test).
 */
export class QuorumObservation {
  #at = -1;
  #members: readonly QuorumMember[] = [];
  leader: QuorumMember | undefined;
  readonly stored: (ElectionState | undefined)[] = [];

  constructor(
    private readonly clock: { readonly eventCount: number },
    private readonly source: () => Iterable<QuorumMember>,
  ) {}

  get members(): readonly QuorumMember[] {
    this.refresh();
    return this.#members;
  }

  refresh(): void {
    const at = this.clock.eventCount;
    if (at === this.#at) return;
    this.#at = at;
    const members = this.source();
    this.#members = Array.isArray(members) ? (members as QuorumMember[]) : [...members];
    this.leader = latestRunningLeader(this.#members);
    const stored = this.stored;
    stored.length = this.#members.length;
    for (let i = 0; i < this.#members.length; i++) stored[i] = this.#members[i]!.raft.electionState;
  }
}

export function monotonicHighWatermark(view: QuorumObservation): QuorumCheck {
  let highest = 0;
  return () => {
    view.refresh();
    const leader = view.leader;
    const hw = leader?.raft.highWatermark;
    if (hw === undefined) return undefined;
    if (hw < highest) {
      return `the high watermark went back from ${highest} to ${hw} (leader ${leader!.replicaId}, epoch ${leader!.raft.epoch})`;
    }
    highest = hw;
    return undefined;
  };
}

export function monotonicEpoch(view: QuorumObservation): QuorumCheck {
  const epochs = new Map<number, number>();
  return () => {
    const members = view.members;
    for (let i = 0; i < members.length; i++) {
      const stored = view.stored[i];
      if (!stored) continue;
      const m = members[i]!;
      const old = epochs.get(m.replicaId) ?? 0;
      if (stored.epoch < old)
        return `node ${m.replicaId}: stored epoch went back from ${old} to ${stored.epoch}`;
      if (stored.epoch !== old) epochs.set(m.replicaId, stored.epoch);
      if (m.up && m.raft.role !== 'down' && m.raft.epoch !== stored.epoch)
        return `node ${m.replicaId}: runs in epoch ${m.raft.epoch} but stored epoch ${stored.epoch}`;
    }
    return undefined;
  };
}

export function majorityReachedHighWatermark(
  view: QuorumObservation,
  voters: readonly number[],
): QuorumCheck {
  const need = majority(voters.length);
  const isVoter = new Set(voters);
  return () => {
    view.refresh();
    const hw = view.leader?.raft.highWatermark;
    if (hw === undefined) return undefined;
    let reached = 0;
    for (const m of view.members) if (isVoter.has(m.replicaId) && m.raft.log.endOffset >= hw) reached++;
    return reached >= need
      ? undefined
      : `only ${reached} of ${voters.length} voters have a log end offset >= the high watermark ${hw}`;
  };
}

export function singleLeader(view: QuorumObservation): QuorumCheck {
  let epoch = 0;
  let leaderId: number | undefined;
  return () => {
    const members = view.members;
    for (let i = 0; i < members.length; i++) {
      const stored = view.stored[i];
      if (!stored || stored.leaderId === undefined || stored.epoch < epoch) continue;
      if (stored.epoch === epoch && leaderId !== undefined) {
        if (stored.leaderId !== leaderId)
          return `epoch ${epoch} has two leaders: ${leaderId} and ${stored.leaderId} (stored by node ${members[i]!.replicaId})`;
      } else {
        epoch = stored.epoch;
        leaderId = stored.leaderId;
      }
    }
    return undefined;
  };
}

export function stableLeadership(view: QuorumObservation): QuorumCheck {
  let first: { epoch: number; leaderId: number } | undefined;
  return () => {
    const members = view.members;
    for (let i = 0; i < members.length; i++) {
      const stored = view.stored[i];
      if (!stored || stored.leaderId === undefined) continue;
      if (!first) first = { epoch: stored.epoch, leaderId: stored.leaderId };
      else if (stored.epoch !== first.epoch || stored.leaderId !== first.leaderId)
        return `leadership moved from ${first.leaderId} (epoch ${first.epoch}) to ${stored.leaderId} (epoch ${stored.epoch})`;
    }
    return undefined;
  };
}

/**
 * Registers the named invariants (default: all four) with the simulation, prefixed by `scope` when given;
 * returns the function that removes them.
 */
export function registerRaftInvariants(
  sim: Simulation,
  members: () => Iterable<QuorumMember>,
  voters: readonly number[],
  options: { names?: readonly RaftInvariantName[]; scope?: string } = {},
): () => void {
  const view = new QuorumObservation(sim, members);
  const factories: Record<RaftInvariantName, () => QuorumCheck> = {
    MonotonicHighWatermark: () => monotonicHighWatermark(view),
    MonotonicEpoch: () => monotonicEpoch(view),
    MajorityReachedHighWatermark: () => majorityReachedHighWatermark(view, voters),
    SingleLeader: () => singleLeader(view),
    StableLeadership: () => stableLeadership(view),
  };
  const removers = (options.names ?? RAFT_INVARIANTS).map((name) =>
    sim.addInvariant(options.scope ? `${options.scope}.${name}` : name, factories[name]()),
  );
  return () => {
    for (const r of removers) r();
  };
}

/**
 * ConsistentCommittedData: every running node's data records below its high watermark map offset -> value
 * identically across nodes and over time. Throws InvariantViolation when they do not.
 */
export class ConsistentCommittedData {
  readonly #committed = new Map<number, unknown>();

  constructor(
    private readonly sim: Simulation,
    private readonly members: () => Iterable<QuorumMember>,
    private readonly equals: (a: unknown, b: unknown) => boolean = Object.is,
  ) {}

  validate(): void {
    for (const m of this.members()) {
      if (!m.up) continue;
      const hw = m.raft.highWatermark;
      if (hw === undefined) continue;
      m.raft.forEachCommitted(0, (offset, record) => {
        if (record === undefined) return;
        if (!this.#committed.has(offset)) {
          this.#committed.set(offset, record);
          return;
        }
        const seen = this.#committed.get(offset);
        if (!this.equals(seen, record)) {
          throw new InvariantViolation(
            'ConsistentCommittedData',
            `committed record at offset ${offset} changed on node ${m.replicaId}: ${JSON.stringify(seen)} -> ${JSON.stringify(record)}`,
            this.sim.context(),
          );
        }
      });
    }
  }
}
