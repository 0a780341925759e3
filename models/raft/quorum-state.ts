/**
 * The quorum-state file (Kafka's `quorum-state`, FileQuorumStateStore): the epoch, the elected leader and the
 * vote of this node. Kafka writes it, synchronously, before every durable transition, so that after a restart
 * a node never votes twice in one epoch and knows whether it led the epoch it stored. Here it lives in the
 * node's `disk`.
 */

export interface ElectionState {
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedId: number | undefined;
}

export const NO_ELECTION: ElectionState = Object.freeze({
  epoch: 0,
  leaderId: undefined,
  votedId: undefined,
});

/** The part of a node's disk the store needs. */
export interface Disk {
  get(key: string): unknown;
  set(key: string, value: unknown): unknown;
  delete(key: string): boolean;
}

export class QuorumStateStore {
  constructor(
    private readonly disk: Disk,
    readonly key: string,
  ) {}

  read(): ElectionState | undefined {
    return this.disk.get(this.key) as ElectionState | undefined;
  }

  write(state: ElectionState): void {
    const stored = this.read();
    if (
      stored &&
      stored.epoch === state.epoch &&
      stored.leaderId === state.leaderId &&
      stored.votedId === state.votedId
    )
      return;
    this.disk.set(this.key, Object.freeze({ ...state }));
  }

  clear(): void {
    this.disk.delete(this.key);
  }
}

/** Where a (re)started node begins, from its stored election state and its log (Kafka's QuorumState.initialize). */
export function initialState(
  stored: ElectionState,
  logEpoch: number,
  node: { readonly nodeId: number; readonly isVoter: boolean; readonly preVote: boolean },
): {
  readonly initial: 'unattached' | 'candidate' | 'prospective' | 'follower' | 'resigned';
  readonly election: ElectionState;
} {
  if (stored.epoch < logEpoch) {
    return {
      initial: 'unattached',
      election: { epoch: logEpoch, leaderId: undefined, votedId: undefined },
    };
  }
  // A node that led its stored epoch restarts Resigned in it: it must not vote again in that epoch, and its
  // (offset, epoch) pairs stay unique even though it may have lost unflushed data.
  if (stored.leaderId === node.nodeId) return { initial: 'resigned', election: stored };
  if (node.isVoter && stored.votedId === node.nodeId && stored.leaderId === undefined) {
    return { initial: node.preVote ? 'prospective' : 'candidate', election: stored };
  }
  if (stored.leaderId !== undefined) return { initial: 'follower', election: stored };
  return { initial: 'unattached', election: stored };
}
