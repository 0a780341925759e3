/**
 * The KRaft RPCs between quorum members, as plain data on the simulated network: Vote (with KIP-996's
 * PreVote flag), BeginQuorumEpoch, EndQuorumEpoch and Fetch on `__cluster_metadata`. Shapes follow Kafka's
 * request schemas trimmed to one partition; every response carries the responder's epoch and leader, which is
 * how nodes learn of elections. Errors travel as Kafka error codes.
 */

/** A log position: an offset and the epoch of the batch that holds it (Kafka's `OffsetAndEpoch`). */
export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/** KRaft's LeaderChange control record (`LeaderChangeMessage.json`): written by a new leader at its epoch start. */
export interface LeaderChangeMessage {
  readonly type: 'LeaderChange';
  readonly leaderId: number;
  readonly voters: readonly number[];
}

/** A record batch: data records of one epoch, or one control record (`records` is then empty). */
export interface RaftBatch<T> {
  readonly baseOffset: number;
  readonly epoch: number;
  readonly records: readonly T[];
  readonly control?: LeaderChangeMessage;
}

/** The metadata log's topic name; Fetch requests name it so they are never mistaken for a broker's Fetch. */
export const METADATA_TOPIC = '__cluster_metadata';

/** `leaderId` on the wire when there is no known leader. */
export const NO_LEADER_ID = -1;

export interface VoteRequest {
  readonly type: 'Vote';
  /** The candidate's epoch (already bumped); for a pre-vote, the prospective's current epoch. */
  readonly candidateEpoch: number;
  readonly candidateId: number;
  readonly lastOffsetEpoch: number;
  /** The candidate's log end offset. */
  readonly lastOffset: number;
  readonly preVote: boolean;
}

export interface QuorumResponse {
  readonly errorCode: number;
  readonly leaderEpoch: number;
  /** NO_LEADER_ID when unknown. */
  readonly leaderId: number;
}

export interface VoteResponse extends QuorumResponse {
  readonly voteGranted: boolean;
}

export interface BeginQuorumEpochRequest {
  readonly type: 'BeginQuorumEpoch';
  readonly leaderEpoch: number;
  readonly leaderId: number;
}

export interface EndQuorumEpochRequest {
  readonly type: 'EndQuorumEpoch';
  readonly leaderEpoch: number;
  readonly leaderId: number;
  /** The other voters, most up to date first: the first starts an election at once. */
  readonly preferredSuccessors: readonly number[];
}

export interface QuorumFetchRequest {
  readonly type: 'Fetch';
  readonly topic: typeof METADATA_TOPIC;
  readonly replicaId: number;
  readonly currentLeaderEpoch: number;
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
  readonly maxWaitMs: number;
}

export interface QuorumFetchResponse<T = unknown> extends QuorumResponse {
  /** -1 when the leader has no high watermark yet. */
  readonly highWatermark: number;
  /** Whole batches from the fetch offset. */
  readonly records: readonly RaftBatch<T>[];
  /** Set when the fetcher's log diverges: truncate to this (offset, epoch) and fetch again. */
  readonly divergingEpoch?: OffsetAndEpoch;
}

export type RaftRequest = VoteRequest | BeginQuorumEpochRequest | EndQuorumEpochRequest | QuorumFetchRequest;

/** True for the quorum RPCs, so that a host node can hand them to its Raft client. */
export function isRaftRequest(payload: unknown): payload is RaftRequest {
  if (typeof payload !== 'object' || payload === null) return false;
  const type = (payload as { type?: unknown }).type;
  if (type === 'Vote' || type === 'BeginQuorumEpoch' || type === 'EndQuorumEpoch') return true;
  return type === 'Fetch' && (payload as { topic?: unknown }).topic === METADATA_TOPIC;
}
