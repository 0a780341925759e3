/**
 * What the state of one Raft role (LeaderState, FollowerState, NomineeState, ResignedState, UnattachedState) may
 * use of the RaftClient that holds it: the host node (timers, requests, trace, random streams), the log, the
 * role machine, and the few client operations every role shares. A role's state is created when the role is
 * entered and dropped when it is left, as Kafka's QuorumState replaces its EpochState; `generation` changes on
 * every role change and crash, so a callback of an earlier role (a response, a retry timer) can tell it is stale.
 */

import type { QuorumFetchRequest, QuorumFetchResponse, QuorumResponse } from '../protocol/index.ts';
import type { NodeId, SimNode } from '../sim/index.ts';
import type { QuorumConfig } from './config.ts';
import type { QuorumRole } from './decisions.ts';
import type { LeaderState } from './leader-state.ts';
import type { QuorumContext, QuorumEvent } from './quorum-machine.ts';
import type { RaftLog } from './raft-log.ts';

export interface RoleIo<T> {
  readonly nodeId: number;
  readonly voters: readonly number[];
  readonly config: QuorumConfig;
  /** The node the client runs on: its timers, requests, trace and random streams. */
  readonly host: SimNode;
  /** `kafkasim.raft.flush.enable`: the KAFKA-10533 flush guarantees are on. */
  readonly flushEnabled: boolean;
  /** Observers flush after each append too (voters always do when flushing is on). */
  readonly followerFlushes: boolean;
  readonly majority: number;
  readonly log: RaftLog<T>;
  /** The epoch this node is in (the stored one while it is down). */
  readonly epoch: number;
  /** Changes on every role change and crash. */
  readonly generation: number;
  readonly role: QuorumRole | 'down';
  /** The role machine's context as of the last role change. */
  readonly context: QuorumContext | undefined;
  /** The current leader's state (undefined unless this node leads). */
  readonly leader: LeaderState<T> | undefined;
  readonly highWatermark: number | undefined;
  /**
   * The follower's fetch deadline (virtual ms). The client keeps it, not the FollowerState: the role machine
   * computes its fetch timer when it enters the follower role, before the new FollowerState exists, and then reads
   * the deadline the previous follower role (or the node before a restart) left.
   */
  fetchDeadline: number;
  addressOf(replicaId: number): NodeId;
  /**
   * The role machine is running: false while it enters its first state (a node that restarts as Candidate
   * sends its first votes only after that election times out) and while the node is down.
   */
  readonly machineRunning: boolean;
  /** Sends an event to the role machine (dropped while it is not running). */
  send(event: QuorumEvent): void;
  /** The votes the machine has counted in this election (read outside a transition; needs machineRunning). */
  votes(): { readonly granted: readonly number[]; readonly rejected: readonly number[] };
  /** Runs `fn`, turning an exception into a failure of the next kernel event (xstate would swallow it). */
  guarded(fn: () => void): void;
  /** The error code and the epoch and leader this node knows, as every quorum response carries them. */
  quorumResponse(errorCode: number): QuorumResponse;
  /** KafkaRaftClient.maybeHandleCommonResponse: true when the response needs no further handling. */
  handleCommonResponse(response: QuorumResponse): boolean;
  /** Serves a Fetch from the top (epoch and role checks first): a parked fetch is answered this way. */
  handleFetch(from: NodeId, request: QuorumFetchRequest, reply: (r: QuorumFetchResponse) => void): void;
  /** Moves the high watermark and tells the commit listeners. */
  setHighWatermark(highWatermark: number): void;
  /** Tells the leader-change listeners when the (epoch, leader) they know changed. */
  maybeFireLeaderChange(): void;
}
