// The group coordinator's error answers: what a request gets when the coordinator cannot take it (not the
// coordinator, still loading, no group id), how an append error to __consumer_offsets reaches the client, and the
// consumer protocol's offset commit check (GroupMetadataManager / OffsetMetadataManager error mapping,
// ConsumerGroup.validateOffsetCommit).
import { type ErrorName, Errors, type GroupRequest, type OffsetCommitRequest } from '../protocol/index.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import { heartbeatErrorResponse } from './consumer-group-heartbeat.ts';

const code = (name: ErrorName) => Errors[name].code;

/** How append errors reach the client (GroupMetadataManager / OffsetMetadataManager error mapping). */
export function commitErrorOf(appendError: number): number {
  switch (appendError) {
    case 0:
      return 0;
    case Errors.UNKNOWN_TOPIC_OR_PARTITION.code:
    case Errors.NOT_ENOUGH_REPLICAS.code:
    case Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code:
    case Errors.REQUEST_TIMED_OUT.code:
      return code('COORDINATOR_NOT_AVAILABLE');
    case Errors.NOT_LEADER_OR_FOLLOWER.code:
      return code('NOT_COORDINATOR');
    default:
      return code('UNKNOWN_SERVER_ERROR');
  }
}

/**
 * ConsumerGroup.validateOffsetCommit: a member commits at its current epoch, else STALE_MEMBER_EPOCH, or
 * ILLEGAL_GENERATION for a classic-protocol member (its generation is its member epoch).
 */
export function consumerGroupCommitDecision(g: ConsumerGroup, req: OffsetCommitRequest): ErrorName | 'NONE' {
  if (req.generationId < 0 && g.members.size === 0) return 'NONE';
  const member = g.members.get(req.memberId);
  if (!member) return 'UNKNOWN_MEMBER_ID';
  if (req.generationId === member.memberEpoch) return 'NONE';
  return member.classicMemberMetadata !== null ? 'ILLEGAL_GENERATION' : 'STALE_MEMBER_EPOCH';
}

/** The answer to a request the coordinator cannot take, shaped as that request's response. */
export function errorResponse(req: GroupRequest, errorCode: number): unknown {
  switch (req.type) {
    case 'ConsumerGroupHeartbeat':
      return { ...heartbeatErrorResponse('NONE', null), errorCode };
    case 'JoinGroup':
      return {
        errorCode,
        generationId: -1,
        protocolName: null,
        leader: '',
        memberId: req.memberId,
        members: [],
      };
    case 'SyncGroup':
      return { errorCode, protocolName: null, assignment: [] };
    case 'LeaveGroup':
      return { errorCode, members: [] };
    case 'OffsetCommit':
      return { partitions: req.offsets.map((o) => ({ topic: o.topic, partition: o.partition, errorCode })) };
    case 'OffsetFetch':
      return { errorCode, partitions: [] };
    default:
      return { errorCode };
  }
}
