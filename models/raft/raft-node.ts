/**
 * A standalone quorum member: a simulated node whose only job is Raft, like Kafka's TestRaftServer or a node
 * of RaftEventSimulationTest. Hosts that do more (the QuorumController) embed a RaftClient the same way.
 */

import { Errors } from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation } from '../sim/index.ts';
import { RaftClient, type RaftClientOptions } from './raft-client.ts';

/** Volatile state built on the log (a replicated counter, a metadata image) that a restart rebuilds. */
export interface RaftStateMachine {
  reset(): void;
}

export interface RaftNodeOptions extends RaftClientOptions {
  /** The node's network id. Default `addressOf(nodeId)`, or `raft-<nodeId>`. */
  address?: NodeId;
  stateMachine?: RaftStateMachine;
}

export class RaftNode<T = unknown> extends SimNode {
  readonly raft: RaftClient<T>;
  readonly replicaId: number;
  stateMachine: RaftStateMachine | undefined;

  constructor(sim: Simulation, options: RaftNodeOptions) {
    super(sim, options.address ?? options.addressOf?.(options.nodeId) ?? `raft-${options.nodeId}`);
    this.replicaId = options.nodeId;
    this.raft = new RaftClient<T>(this, options);
    this.stateMachine = options.stateMachine;
  }

  protected override onStart(): void {
    this.stateMachine?.reset();
    this.raft.start();
  }

  protected override onCrash(): void {
    this.raft.crash();
  }

  protected override onStop(): void {
    this.raft.close();
  }

  protected override onRequest(from: NodeId, payload: unknown, reply: (response: unknown) => void): void {
    if (!this.raft.handleRequest(from, payload, reply)) {
      reply({ errorCode: Errors.INVALID_REQUEST.code, errorMessage: 'not a quorum request' });
    }
  }

  /** Kafka's graceful shutdown: a leader resigns first; the node stops once a new leader is known, or after the timeout. */
  shutdown(timeoutMs = 500): void {
    if (!this.up) return;
    this.raft.shutdown(timeoutMs, () => this.stop());
  }

  /** Kills the node and deletes its log and quorum-state file (a lost disk). */
  killAndDeletePersistentState(): void {
    this.crash();
    this.disk.clear();
  }
}
