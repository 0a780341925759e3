// The error body every route answers with, `{"error_code": N, "message": "..."}`, and how Kafka errors map onto
// it. Facts: confluentinc/kafka-rest api/v3/openapi.yaml (the codes in its
// examples) and confluentinc/rest-utils
// `KafkaExceptionMapper` (TopicExists, InvalidReplicationFactor, InvalidPartitions, InvalidRequest, InvalidConfig
// -> 400/40002; UnknownTopicOrPartition -> 404/40403; BrokerNotAvailable -> 503/50302; other retriable errors ->
// 500/50003; any other Kafka error -> 500/50002).
import { KafkaError } from '../../models/protocol/index.ts';
import { toKafkaError } from '../cluster/index.ts';

export interface ErrorBody {
  error_code: number;
  message: string;
}

/** An answer other than success: the HTTP status and the body's error code. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly statusCode: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }

  body(): ErrorBody {
    return { error_code: this.errorCode, message: this.message };
  }
}

export const KAFKA_BAD_REQUEST = 40002;
export const UNKNOWN_TOPIC_PARTITION = 40403;
export const KAFKA_ERROR = 50002;
export const KAFKA_RETRIABLE_ERROR = 50003;
export const BROKER_NOT_AVAILABLE = 50302;

export const badRequest = (message: string): ApiError => new ApiError(400, 400, message);
export const kafkaBadRequest = (message: string): ApiError => new ApiError(400, KAFKA_BAD_REQUEST, message);
export const notFound = (message: string): ApiError => new ApiError(404, 404, message);
export const unknownTopicOrPartition = (): ApiError =>
  new ApiError(404, UNKNOWN_TOPIC_PARTITION, 'This server does not host this topic-partition.');
export const conflict = (message: string): ApiError => new ApiError(409, 409, message);
export const notImplemented = (message: string): ApiError => new ApiError(501, 501, message);

/**
 * Kafka errors that are the caller's mistake. Beyond the mapper's list, INVALID_REPLICA_ASSIGNMENT, INVALID_TOPIC,
 * REASSIGNMENT_IN_PROGRESS and NO_REASSIGNMENT_IN_PROGRESS are answered 400/40002 too (the real proxy answers
 * them 500/50002): a simulator's API must not answer bad input with a server error.
 */
const BAD_REQUEST_ERRORS = new Set<string>([
  'TOPIC_ALREADY_EXISTS',
  'INVALID_REPLICATION_FACTOR',
  'INVALID_PARTITIONS',
  'INVALID_REQUEST',
  'INVALID_CONFIG',
  'POLICY_VIOLATION',
  'UNKNOWN_SERVER_ERROR',
  'UNSUPPORTED_VERSION',
  'INVALID_REPLICA_ASSIGNMENT',
  'INVALID_TOPIC_EXCEPTION',
  'REASSIGNMENT_IN_PROGRESS',
  'NO_REASSIGNMENT_IN_PROGRESS',
]);

/** The REST answer for a Kafka error. */
export function restErrorOf(error: KafkaError): ApiError {
  const name: string = error.name;
  if (BAD_REQUEST_ERRORS.has(name)) return kafkaBadRequest(error.message);
  if (name === 'UNKNOWN_TOPIC_OR_PARTITION') return unknownTopicOrPartition();
  if (name === 'BROKER_NOT_AVAILABLE') return new ApiError(503, BROKER_NOT_AVAILABLE, error.message);
  if (error.retriable) return new ApiError(500, KAFKA_RETRIABLE_ERROR, error.message);
  return new ApiError(500, KAFKA_ERROR, error.message);
}

/** Kafka's code and message as they come back from a controller response. */
export function restErrorOfCode(fields: { errorCode: number; errorMessage?: string }): ApiError | undefined {
  const error = toKafkaError(fields);
  return error ? restErrorOf(error) : undefined;
}

export function isKafkaError(e: unknown): e is KafkaError {
  return e instanceof KafkaError;
}
