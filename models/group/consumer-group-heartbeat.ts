// The ConsumerGroupHeartbeat request checks and error answers of the consumer group protocol (KIP-848), before a
// group handles it: Kafka's GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid and the error
// response GroupCoordinatorService builds from the ApiException a heartbeat throws.
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type ErrorName,
  Errors,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
} from '../protocol/index.ts';
import type { ConsumerGroupConfig } from './consumer-group-config.ts';

/** An error a heartbeat answers with (Kafka throws ApiExceptions; the service maps them to the response). */
export class HeartbeatError extends Error {
  constructor(
    readonly errorName: ErrorName,
    message: string,
  ) {
    super(message);
  }
}

export const fail = (name: ErrorName, message: string): never => {
  throw new HeartbeatError(name, message);
};

/** ConsumerGroupHeartbeat request checks (throwIfConsumerGroupHeartbeatRequestIsInvalid). */
export function validateHeartbeat(req: ConsumerGroupHeartbeatRequest, config: ConsumerGroupConfig): void {
  const blank = (v: string | null) => v !== null && v.trim() === '';
  if (blank(req.groupId)) fail('INVALID_REQUEST', "GroupId can't be empty.");
  if (blank(req.instanceId)) fail('INVALID_REQUEST', "InstanceId can't be empty.");
  if (blank(req.rackId)) fail('INVALID_REQUEST', "RackId can't be empty.");
  if (req.subscribedTopicRegex !== null)
    fail('INVALID_REQUEST', 'SubscribedTopicRegex is not supported yet.');
  if (req.memberEpoch > 0 || req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    if (blank(req.memberId) || req.memberId === '') fail('INVALID_REQUEST', "MemberId can't be empty.");
  } else if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1)
      fail('INVALID_REQUEST', 'RebalanceTimeoutMs must be provided in first request.');
    if (req.topicPartitions === null || req.topicPartitions.length > 0)
      fail('INVALID_REQUEST', 'TopicPartitions must be empty when (re-)joining.');
    if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0)
      fail('INVALID_REQUEST', 'SubscribedTopicNames must be set in first request.');
  } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.memberId === '') fail('INVALID_REQUEST', "MemberId can't be empty.");
    if (req.instanceId === null) fail('INVALID_REQUEST', "InstanceId can't be null.");
  } else fail('INVALID_REQUEST', 'MemberEpoch is invalid.');
  if (req.serverAssignor !== null && !config['group.consumer.assignors'].includes(req.serverAssignor))
    fail(
      'UNSUPPORTED_ASSIGNOR',
      `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${config['group.consumer.assignors'].join(', ')}.`,
    );
}

/** The error response a heartbeat gets (every field at its default but the error). */
export function heartbeatErrorResponse(
  errorName: ErrorName,
  message: string | null,
): ConsumerGroupHeartbeatResponse {
  return {
    throttleTimeMs: 0,
    errorCode: Errors[errorName].code,
    errorMessage: message,
    memberId: null,
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}
