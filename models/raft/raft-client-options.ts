/**
 * How a RaftClient is set up, what it tells its listeners, and the error `append` throws off the leader.
 */

import type { NodeId } from '../sim/index.ts';
import { ExitCode, KafkasimError } from '../sim/index.ts';
import type { QuorumConfig } from './config.ts';

export interface RaftClientOptions {
  /** This replica's id (`node.id` in Kafka). */
  nodeId: number;
  /** The voter ids; when absent, read from `controller.quorum.voters`. */
  voters?: readonly number[];
  config?: Partial<QuorumConfig>;
  /** The network node of a replica. Default `raft-<id>`. */
  addressOf?: (replicaId: number) => NodeId;
  /** Prefix of the disk keys (`<prefix>/log`, `<prefix>/quorum-state`). Default `raft`. */
  diskKey?: string;
  /**
   * Observers flush after each append too (Kafka's followersAlwaysFlush: true for controllers, false for
   * brokers). Voters always flush when the flush guarantees are on. Default false.
   */
  followersAlwaysFlush?: boolean;
}

export interface LeaderAndEpoch {
  readonly epoch: number;
  readonly leaderId: number | undefined;
}

/** Thrown by `append` on a node that is not the leader (Kafka's NotLeaderException). */
export class NotLeaderError extends KafkasimError {
  readonly code = 'NOT_LEADER';
  readonly exitCode = ExitCode.internal;
  override name = 'NotLeaderError';
  constructor(
    readonly epoch: number,
    readonly leaderId: number | undefined,
  ) {
    super(
      `This node is not the leader of the metadata quorum (epoch ${epoch}, leader ${leaderId ?? 'unknown'}).`,
    );
  }
}
