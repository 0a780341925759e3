/**
 * Kafka's ReplicatedCounter (the workload of RaftEventSimulationTest and the test server's verifiable
 * producer): the leader appends the next integer, and every node checks that each committed value is exactly
 * the previous one plus one. Because a leader only claims (and starts counting from the committed value) after
 * committing its epoch start, any lost, duplicated or reordered committed record shows up as a broken sequence.
 */
import type { RaftClient } from './raft-client.ts';
import type { RaftStateMachine } from './raft-node.ts';

export class ReplicatedCounter implements RaftStateMachine {
  /** The last committed value. */
  committed = 0;
  #uncommitted = 0;
  #nextOffset = 0;
  #claimedEpoch: number | undefined;
  /** The first broken sequence seen, for the `ReplicatedCounter` invariant. */
  violation: string | undefined;

  constructor(readonly client: RaftClient<number>) {
    client.onCommit(() => this.#readCommitted());
    client.onLeaderChange((leader) => {
      this.#claimedEpoch = leader.leaderId === client.nodeId ? leader.epoch : undefined;
      this.#uncommitted = this.committed;
    });
  }

  /** A restart: the counter rebuilds from the log. */
  reset(): void {
    this.committed = 0;
    this.#uncommitted = 0;
    this.#nextOffset = 0;
    this.#claimedEpoch = undefined;
  }

  get isWritable(): boolean {
    return (
      this.#claimedEpoch !== undefined && this.#claimedEpoch === this.client.epoch && this.client.isLeader
    );
  }

  /** Leader only: appends the next `count` values (one batch). */
  increment(count = 1): void {
    const values: number[] = [];
    for (let i = 0; i < count; i++) values.push(++this.#uncommitted);
    this.client.append(values);
  }

  #readCommitted(): void {
    this.client.forEachCommitted(this.#nextOffset, (offset, record) => {
      this.#nextOffset = offset + 1;
      if (record === undefined) return;
      if (record !== this.committed + 1 && this.violation === undefined) {
        this.violation =
          `node ${this.client.nodeId}: expected the next committed value to be ${this.committed + 1}, ` +
          `but found ${record} at offset ${offset}`;
      }
      this.committed = record;
    });
  }
}
