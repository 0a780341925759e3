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
