// The classic group's states and, per state, what each request gets: pure decision tables the coordinator
// applies before it touches a group. Facts: Kafka's ClassicGroupState.validPreviousStates;
// GroupMetadataManager validateSyncGroup, validateClassicGroupHeartbeat, ClassicGroup.validateOffsetCommit).

export type ClassicGroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** ClassicGroupState.validPreviousStates: a transition to `to` is legal only from one of these. */
export const validPreviousStates: Readonly<Record<ClassicGroupState, readonly ClassicGroupState[]>> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** Who is asking: whether the coordinator knows the member id and whether the generation is current. */
export interface MemberCheck {
  known: boolean;
  generationMatches: boolean;
}

export type HeartbeatDecision = ErrorName;

/** Heartbeat: Dead → COORDINATOR_NOT_AVAILABLE; unknown → UNKNOWN_MEMBER_ID; stale → ILLEGAL_GENERATION. */
export function heartbeatDecision(state: ClassicGroupState, m: MemberCheck): HeartbeatDecision {
  if (state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  if (state === 'Empty' || !m.known) return 'UNKNOWN_MEMBER_ID';
  if (!m.generationMatches) return 'ILLEGAL_GENERATION';
  // The session timer is reset in every live state; only a rebalance in progress asks the member to rejoin.
  return state === 'PreparingRebalance' ? 'REBALANCE_IN_PROGRESS' : 'NONE';
}

/** SyncGroup: park until the leader's assignment (CompletingRebalance), answer with it (Stable), or an error. */
export type SyncDecision = ErrorName | 'park' | 'current-assignment';

export function syncGroupDecision(state: ClassicGroupState, m: MemberCheck): SyncDecision {
  if (state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  if (!m.known) return 'UNKNOWN_MEMBER_ID';
  if (!m.generationMatches) return 'ILLEGAL_GENERATION';
  switch (state) {
    case 'Empty':
      return 'UNKNOWN_MEMBER_ID';
    case 'PreparingRebalance':
      return 'REBALANCE_IN_PROGRESS';
    case 'CompletingRebalance':
      return 'park';
    default:
      return 'current-assignment';
  }
}

export interface CommitIdentity {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

/** ClassicGroup.validateOffsetCommit (non-transactional). */
export function offsetCommitDecision(
  state: ClassicGroupState,
  who: CommitIdentity,
  m: MemberCheck,
): ErrorName {
  if (state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  // generation -1 while Empty: the admin client or a consumer that does not use group management.
  if (who.generationId < 0 && state === 'Empty') return 'NONE';
  if (who.generationId >= 0 || who.memberId !== '' || who.groupInstanceId !== null) {
    if (!m.known) return 'UNKNOWN_MEMBER_ID';
    if (!m.generationMatches) return 'ILLEGAL_GENERATION';
  } else if (state !== 'Empty') {
    return 'UNKNOWN_MEMBER_ID';
  }
  // The member got the new generation from its JoinGroup response but has not synced: let it finish first.
  if (state === 'CompletingRebalance') return 'REBALANCE_IN_PROGRESS';
  return 'NONE';
}

/**
 * JoinGroup from a member that already has an id, by state: park it for the rebalance, answer with the current
 * generation (a follower whose subscription did not change, e.g. one that lost the response), or rebalance.
 */
export type JoinDecision = ErrorName | 'park' | 'current-generation' | 'rebalance';

export function joinGroupDecision(
  state: ClassicGroupState,
  m: { known: boolean; pending: boolean; isLeader: boolean; metadataChanged: boolean },
): JoinDecision {
  if (state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  if (m.pending) return 'park'; // got MEMBER_ID_REQUIRED and is now joining with that id
  if (!m.known) return 'UNKNOWN_MEMBER_ID';
  switch (state) {
    case 'PreparingRebalance':
      return 'park';
    case 'CompletingRebalance':
      return m.metadataChanged ? 'rebalance' : 'current-generation';
    case 'Stable':
      return m.isLeader || m.metadataChanged ? 'rebalance' : 'current-generation';
    default:
      // A known member of an Empty group cannot exist; Kafka answers as for an unknown one.
      return 'UNKNOWN_MEMBER_ID';
  }
}

import type { ErrorName } from '../protocol/index.ts';
