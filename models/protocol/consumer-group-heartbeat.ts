// The consumer group protocol's one RPC (KIP-848, `group.protocol=consumer`): ConsumerGroupHeartbeat, apiKey 68.
// Field names are Kafka's (clients/src/main/resources/common/message/ConsumerGroupHeartbeatRequest.json and
// ...Response.json), camelCased. A member joins with epoch 0, heartbeats with the epoch the coordinator last gave
// it, and leaves with -1 (-2: a static member that will come back). Fields marked "null if unchanged" are sent in
// full on a join and after an error, and as null otherwise; the coordinator answers with the assignment only when
// it changed or the request was full. Partitions travel by topic id, as on the wire.
// Left out: SubscribedTopicRegex (v1, KIP-848's regex subscriptions), throttling.

/** The member epoch that joins (or rejoins after a fence). */
export const JOIN_GROUP_MEMBER_EPOCH = 0;
/** The member epoch that leaves the group for good. */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
/** The member epoch a static member leaves with when it means to come back (its partitions wait for it). */
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface ConsumerGroupHeartbeatTopicPartitions {
  topicId: string;
  partitions: number[];
}

export interface ConsumerGroupHeartbeatRequest {
  type: 'ConsumerGroupHeartbeat';
  groupId: string;
  /** '' on the very first join: the coordinator answers with the id (Kafka 3.7-3.9; 4.0 clients make their own). */
  memberId: string;
  memberEpoch: number;
  /** group.instance.id; null if not provided or unchanged since the last heartbeat. */
  instanceId: string | null;
  /** client.rack; null if not provided or unchanged. */
  rackId: string | null;
  /** max.poll.interval.ms: how long the coordinator waits for a revocation; -1 if unchanged. */
  rebalanceTimeoutMs: number;
  /** null if unchanged since the last heartbeat. */
  subscribedTopicNames: string[] | null;
  /** v1+; kafkasim's coordinator answers INVALID_REQUEST to a non-null regex, as Kafka 3.9's does. */
  subscribedTopicRegex: string | null;
  /** group.remote.assignor; null if not used or unchanged. */
  serverAssignor: string | null;
  /** The partitions the member owns now; null if unchanged. */
  topicPartitions: ConsumerGroupHeartbeatTopicPartitions[] | null;
  /** From the request header / the connection (kafkasim: the client says them). */
  clientId: string;
  clientHost: string;
}

export interface ConsumerGroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** null if not provided; the partitions the member may use now otherwise. */
  assignment: { topicPartitions: ConsumerGroupHeartbeatTopicPartitions[] } | null;
}
