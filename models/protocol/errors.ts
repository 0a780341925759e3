/**
 * Kafka's protocol error codes: the numbers on the wire, Kafka's names for them, whether the Java client
 * treats them as retriable, the Java exception each maps to, and that exception's default message.
 *
 * Facts: codes, names, exception classes and default messages are from
 * `clients/src/main/java/org/apache/kafka/common/protocol/Errors.java` (apache/kafka, 3.7–3.9 era; the same
 * text is published as https://kafka.apache.org/39/generated/protocol_errors.html). `retriable` is that page's
 * Retriable column: true when the exception extends `RetriableException`. `invalidMetadata` is true when it
 * extends `InvalidMetadataException`, which makes the producer's Sender request a metadata update
 * (`Sender.completeBatch`). Only the codes the simulator can produce are listed; Kafka has more.
 */

/** [code, retriable, invalidMetadata, Java exception simple name, default message]. */
type Row = readonly [number, boolean, boolean, string | null, string | null];

const ROWS = {
  UNKNOWN_SERVER_ERROR: [
    -1,
    false,
    false,
    'UnknownServerException',
    'The server experienced an unexpected error when processing the request.',
  ],
  NONE: [0, false, false, null, null],
  OFFSET_OUT_OF_RANGE: [
    1,
    false,
    false,
    'OffsetOutOfRangeException',
    'The requested offset is not within the range of offsets maintained by the server.',
  ],
  CORRUPT_MESSAGE: [
    2,
    true,
    false,
    'CorruptRecordException',
    'This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.',
  ],
  UNKNOWN_TOPIC_OR_PARTITION: [
    3,
    true,
    true,
    'UnknownTopicOrPartitionException',
    'This server does not host this topic-partition.',
  ],
  INVALID_FETCH_SIZE: [4, false, false, 'InvalidFetchSizeException', 'The requested fetch size is invalid.'],
  LEADER_NOT_AVAILABLE: [
    5,
    true,
    true,
    'LeaderNotAvailableException',
    'There is no leader for this topic-partition as we are in the middle of a leadership election.',
  ],
  NOT_LEADER_OR_FOLLOWER: [
    6,
    true,
    true,
    'NotLeaderOrFollowerException',
    'For requests intended only for the leader, this error indicates that the broker is not the current leader. ' +
      'For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.',
  ],
  REQUEST_TIMED_OUT: [7, true, false, 'TimeoutException', 'The request timed out.'],
  BROKER_NOT_AVAILABLE: [8, false, false, 'BrokerNotAvailableException', 'The broker is not available.'],
  REPLICA_NOT_AVAILABLE: [
    9,
    true,
    true,
    'ReplicaNotAvailableException',
    'The replica is not available for the requested topic-partition. Produce/Fetch requests and other requests ' +
      'intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the broker is not a replica of the topic-partition.',
  ],
  MESSAGE_TOO_LARGE: [
    10,
    false,
    false,
    'RecordTooLargeException',
    'The request included a message larger than the max message size the server will accept.',
  ],
  STALE_CONTROLLER_EPOCH: [
    11,
    false,
    false,
    'ControllerMovedException',
    'The controller moved to another broker.',
  ],
  OFFSET_METADATA_TOO_LARGE: [
    12,
    false,
    false,
    'OffsetMetadataTooLarge',
    'The metadata field of the offset request was too large.',
  ],
  NETWORK_EXCEPTION: [
    13,
    true,
    true,
    'NetworkException',
    'The server disconnected before a response was received.',
  ],
  COORDINATOR_LOAD_IN_PROGRESS: [
    14,
    true,
    false,
    'CoordinatorLoadInProgressException',
    "The coordinator is loading and hence can't process requests.",
  ],
  COORDINATOR_NOT_AVAILABLE: [
    15,
    true,
    false,
    'CoordinatorNotAvailableException',
    'The coordinator is not available.',
  ],
  NOT_COORDINATOR: [16, true, false, 'NotCoordinatorException', 'This is not the correct coordinator.'],
  INVALID_TOPIC_EXCEPTION: [
    17,
    false,
    false,
    'InvalidTopicException',
    'The request attempted to perform an operation on an invalid topic.',
  ],
  RECORD_LIST_TOO_LARGE: [
    18,
    false,
    false,
    'RecordBatchTooLargeException',
    'The request included message batch larger than the configured segment size on the server.',
  ],
  NOT_ENOUGH_REPLICAS: [
    19,
    true,
    false,
    'NotEnoughReplicasException',
    'Messages are rejected since there are fewer in-sync replicas than required.',
  ],
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: [
    20,
    true,
    false,
    'NotEnoughReplicasAfterAppendException',
    'Messages are written to the log, but to fewer in-sync replicas than required.',
  ],
  INVALID_REQUIRED_ACKS: [
    21,
    false,
    false,
    'InvalidRequiredAcksException',
    'Produce request specified an invalid value for required acks.',
  ],
  ILLEGAL_GENERATION: [
    22,
    false,
    false,
    'IllegalGenerationException',
    'Specified group generation id is not valid.',
  ],
  INCONSISTENT_GROUP_PROTOCOL: [
    23,
    false,
    false,
    'InconsistentGroupProtocolException',
    "The group member's supported protocols are incompatible with those of existing members " +
      'or first group member tried to join with empty protocol type or empty protocol list.',
  ],
  INVALID_GROUP_ID: [24, false, false, 'InvalidGroupIdException', 'The configured groupId is invalid.'],
  UNKNOWN_MEMBER_ID: [
    25,
    false,
    false,
    'UnknownMemberIdException',
    'The coordinator is not aware of this member.',
  ],
  INVALID_SESSION_TIMEOUT: [
    26,
    false,
    false,
    'InvalidSessionTimeoutException',
    'The session timeout is not within the range allowed by the broker ' +
      '(as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).',
  ],
  REBALANCE_IN_PROGRESS: [
    27,
    false,
    false,
    'RebalanceInProgressException',
    'The group is rebalancing, so a rejoin is needed.',
  ],
  INVALID_COMMIT_OFFSET_SIZE: [
    28,
    false,
    false,
    'InvalidCommitOffsetSizeException',
    'The committing offset data size is not valid.',
  ],
  TOPIC_AUTHORIZATION_FAILED: [
    29,
    false,
    false,
    'TopicAuthorizationException',
    'Topic authorization failed.',
  ],
  GROUP_AUTHORIZATION_FAILED: [
    30,
    false,
    false,
    'GroupAuthorizationException',
    'Group authorization failed.',
  ],
  CLUSTER_AUTHORIZATION_FAILED: [
    31,
    false,
    false,
    'ClusterAuthorizationException',
    'Cluster authorization failed.',
  ],
  INVALID_TIMESTAMP: [
    32,
    false,
    false,
    'InvalidTimestampException',
    'The timestamp of the message is out of acceptable range.',
  ],
  UNSUPPORTED_VERSION: [
    35,
    false,
    false,
    'UnsupportedVersionException',
    'The version of API is not supported.',
  ],
  TOPIC_ALREADY_EXISTS: [36, false, false, 'TopicExistsException', 'Topic with this name already exists.'],
  INVALID_PARTITIONS: [37, false, false, 'InvalidPartitionsException', 'Number of partitions is below 1.'],
  INVALID_REPLICATION_FACTOR: [
    38,
    false,
    false,
    'InvalidReplicationFactorException',
    'Replication factor is below 1 or larger than the number of available brokers.',
  ],
  INVALID_REPLICA_ASSIGNMENT: [
    39,
    false,
    false,
    'InvalidReplicaAssignmentException',
    'Replica assignment is invalid.',
  ],
  INVALID_CONFIG: [40, false, false, 'InvalidConfigurationException', 'Configuration is invalid.'],
  NOT_CONTROLLER: [
    41,
    true,
    false,
    'NotControllerException',
    'This is not the correct controller for this cluster.',
  ],
  INVALID_REQUEST: [
    42,
    false,
    false,
    'InvalidRequestException',
    'This most likely occurs because of a request being malformed by the client library or the message was ' +
      'sent to an incompatible broker. See the broker logs for more details.',
  ],
  POLICY_VIOLATION: [
    44,
    false,
    false,
    'PolicyViolationException',
    'Request parameters do not satisfy the configured policy.',
  ],
  OUT_OF_ORDER_SEQUENCE_NUMBER: [
    45,
    false,
    false,
    'OutOfOrderSequenceException',
    'The broker received an out of order sequence number.',
  ],
  DUPLICATE_SEQUENCE_NUMBER: [
    46,
    false,
    false,
    'DuplicateSequenceException',
    'The broker received a duplicate sequence number.',
  ],
  INVALID_PRODUCER_EPOCH: [
    47,
    false,
    false,
    'InvalidProducerEpochException',
    'Producer attempted to produce with an old epoch.',
  ],
  KAFKA_STORAGE_ERROR: [
    56,
    true,
    true,
    'KafkaStorageException',
    'Disk error when trying to access log file on the disk.',
  ],
  UNKNOWN_PRODUCER_ID: [
    59,
    false,
    false,
    'UnknownProducerIdException',
    'This exception is raised by the broker if it could not locate the producer metadata associated with the ' +
      "producerId in question. This could happen if, for instance, the producer's records were deleted because " +
      'their retention time had elapsed. Once the last records of the producerId are removed, the ' +
      "producer's metadata is removed from the broker, and future appends by the producer will return this exception.",
  ],
  REASSIGNMENT_IN_PROGRESS: [
    60,
    false,
    false,
    'ReassignmentInProgressException',
    'A partition reassignment is in progress.',
  ],
  NON_EMPTY_GROUP: [68, false, false, 'GroupNotEmptyException', 'The group is not empty.'],
  GROUP_ID_NOT_FOUND: [69, false, false, 'GroupIdNotFoundException', 'The group id does not exist.'],
  FETCH_SESSION_ID_NOT_FOUND: [
    70,
    true,
    false,
    'FetchSessionIdNotFoundException',
    'The fetch session ID was not found.',
  ],
  INVALID_FETCH_SESSION_EPOCH: [
    71,
    true,
    false,
    'InvalidFetchSessionEpochException',
    'The fetch session epoch is invalid.',
  ],
  FENCED_LEADER_EPOCH: [
    74,
    true,
    true,
    'FencedLeaderEpochException',
    'The leader epoch in the request is older than the epoch on the broker.',
  ],
  UNKNOWN_LEADER_EPOCH: [
    75,
    true,
    false,
    'UnknownLeaderEpochException',
    'The leader epoch in the request is newer than the epoch on the broker.',
  ],
  STALE_BROKER_EPOCH: [77, false, false, 'StaleBrokerEpochException', 'Broker epoch has changed.'],
  OFFSET_NOT_AVAILABLE: [
    78,
    true,
    false,
    'OffsetNotAvailableException',
    'The leader high watermark has not caught up from a recent leader election so the offsets cannot be ' +
      'guaranteed to be monotonically increasing.',
  ],
  MEMBER_ID_REQUIRED: [
    79,
    false,
    false,
    'MemberIdRequiredException',
    'The group member needs to have a valid member id before actually entering a consumer group.',
  ],
  GROUP_MAX_SIZE_REACHED: [
    81,
    false,
    false,
    'GroupMaxSizeReachedException',
    'The consumer group has reached its max size.',
  ],
  FENCED_INSTANCE_ID: [
    82,
    false,
    false,
    'FencedInstanceIdException',
    'The broker rejected this static consumer since another consumer with the same group.instance.id has ' +
      'registered with a different member.id.',
  ],
  NO_REASSIGNMENT_IN_PROGRESS: [
    85,
    false,
    false,
    'NoReassignmentInProgressException',
    'No partition reassignment is in progress.',
  ],
  THROTTLING_QUOTA_EXCEEDED: [
    89,
    true,
    false,
    'ThrottlingQuotaExceededException',
    'The throttling quota has been exceeded.',
  ],
  INCONSISTENT_VOTER_SET: [
    94,
    false,
    false,
    'InconsistentVoterSetException',
    'Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters',
  ],
  INVALID_UPDATE_VERSION: [
    95,
    false,
    false,
    'InvalidUpdateVersionException',
    'The given update version was invalid.',
  ],
  UNKNOWN_TOPIC_ID: [100, true, true, 'UnknownTopicIdException', 'This server does not host this topic ID.'],
  DUPLICATE_BROKER_REGISTRATION: [
    101,
    false,
    false,
    'DuplicateBrokerRegistrationException',
    'This broker ID is already in use.',
  ],
  BROKER_ID_NOT_REGISTERED: [
    102,
    false,
    false,
    'BrokerIdNotRegisteredException',
    'The given broker ID was not registered.',
  ],
  INELIGIBLE_REPLICA: [
    107,
    false,
    false,
    'IneligibleReplicaException',
    'The new ISR contains at least one ineligible replica.',
  ],
  NEW_LEADER_ELECTED: [
    108,
    false,
    false,
    'NewLeaderElectedException',
    'The AlterPartition request successfully updated the partition state but the leader has changed.',
  ],
  FENCED_MEMBER_EPOCH: [
    110,
    false,
    false,
    'FencedMemberEpochException',
    'The member epoch is fenced by the group coordinator. The member must abandon all its partitions and rejoin.',
  ],
  UNRELEASED_INSTANCE_ID: [
    111,
    false,
    false,
    'UnreleasedInstanceIdException',
    'The instance ID is still used by another member in the consumer group. That member must leave first.',
  ],
  UNSUPPORTED_ASSIGNOR: [
    112,
    false,
    false,
    'UnsupportedAssignorException',
    'The assignor or its version range is not supported by the consumer group.',
  ],
  STALE_MEMBER_EPOCH: [
    113,
    false,
    false,
    'StaleMemberEpochException',
    'The member epoch is stale. The member must retry after receiving its updated member epoch via the ' +
      'ConsumerGroupHeartbeat API.',
  ],
} as const satisfies Record<string, Row>;

/** Kafka's name for an error code, e.g. `NOT_LEADER_OR_FOLLOWER`. */
export type ErrorName = keyof typeof ROWS;

/** Every error name that stands for an actual failure (all but `NONE`). */
export type FailureName = Exclude<ErrorName, 'NONE'>;

export interface ErrorEntry<N extends ErrorName = ErrorName> {
  readonly code: number;
  readonly name: N;
  /** Java client: the exception extends `RetriableException`. */
  readonly retriable: boolean;
  /** Java client: the exception extends `InvalidMetadataException`, so the client refreshes metadata. */
  readonly invalidMetadata: boolean;
  /** Simple name of the Java exception in `org.apache.kafka.common.errors`; null only for NONE. */
  readonly exceptionClass: N extends 'NONE' ? null : string;
  /** Kafka's default exception message; null only for NONE. */
  readonly message: N extends 'NONE' ? null : string;
}

/** Package of every Kafka ApiException, as Java's `Throwable.toString()` prints it. */
export const ERRORS_PACKAGE = 'org.apache.kafka.common.errors';

const entries = Object.entries(ROWS).map(
  ([name, [code, retriable, invalidMetadata, exceptionClass, message]]) =>
    Object.freeze({ code, name, retriable, invalidMetadata, exceptionClass, message }),
);

/** The error table by name: `Errors.NOT_LEADER_OR_FOLLOWER.code === 6`. */
export const Errors = Object.freeze(Object.fromEntries(entries.map((e) => [e.name, e]))) as {
  readonly [N in ErrorName]: ErrorEntry<N>;
};

const byCode = new Map<number, ErrorEntry>(entries.map((e) => [e.code, e as ErrorEntry]));

/**
 * The entry for a wire code. Like Java's `Errors.forCode`, a code this table does not know reads as
 * UNKNOWN_SERVER_ERROR, because that is what a client that does not know the code does with it.
 */
export function errorByCode(code: number): ErrorEntry {
  return byCode.get(code) ?? Errors.UNKNOWN_SERVER_ERROR;
}

/** True when this table has an entry for the code (errorByCode never fails, so callers that care ask first). */
export function isKnownErrorCode(code: number): boolean {
  return byCode.has(code);
}

/** A Kafka protocol error as the Java client raises it: the exception for a code, with a message. */
export class KafkaError<N extends FailureName = FailureName> extends Error {
  override readonly name: N;
  readonly code: number;
  readonly retriable: boolean;
  readonly invalidMetadata: boolean;
  readonly exceptionClass: string;

  constructor(errorName: N, message?: string) {
    const entry = Errors[errorName] as ErrorEntry<FailureName> | undefined;
    // Types already forbid these; the check guards callers that pass names from untyped input (YAML, HTTP).
    if (entry === undefined || entry.exceptionClass === null) {
      throw new TypeError(`${String(errorName)} is not a Kafka error name that raises an exception`);
    }
    // Java's Errors.exception(message): a null message means "use the default", an empty one is kept.
    super(message ?? entry.message);
    this.name = errorName;
    this.code = entry.code;
    this.retriable = entry.retriable;
    this.invalidMetadata = entry.invalidMetadata;
    this.exceptionClass = entry.exceptionClass;
  }

  /** Java's `Throwable.toString()`: fully qualified class name, then `: ` and the message. */
  override toString(): string {
    return `${ERRORS_PACKAGE}.${this.exceptionClass}: ${this.message}`;
  }
}

/** The error for a name, with Kafka's default message unless one is given. */
export function kafkaError<N extends FailureName>(name: N, message?: string): KafkaError<N> {
  return new KafkaError(name, message);
}
