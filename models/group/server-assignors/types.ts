// The shape of a server-side assignor (KIP-848): the coordinator, not a client, computes the group's target
// assignment with one of these (Kafka's ConsumerGroupPartitionAssignor: GroupSpec in, GroupAssignment out).
// Partitions are named by topic id, as the coordinator names them.

/** topicId → its partitions, ascending; a topic with no partitions has no entry. Immutable. */
export type PartitionAssignment = Readonly<Record<string, readonly number[]>>;

export const EMPTY_ASSIGNMENT: PartitionAssignment = Object.freeze({});

export interface ServerAssignorMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  /** The subscribed topics that exist, by id. */
  readonly subscribedTopicIds: readonly string[];
  /** The member's current target assignment (what stickiness keeps). */
  readonly assignment: PartitionAssignment;
}

export interface GroupSpec {
  /** Every member, by member id ascending (Kafka iterates a HashMap; kafkasim fixes an order). */
  readonly members: readonly ServerAssignorMember[];
  /** All members subscribe to the same topics (ModernGroup.subscriptionType HOMOGENEOUS). */
  readonly homogeneous: boolean;
}

export interface ServerAssignor {
  /** What `group.remote.assignor` names: 'uniform' | 'range'. */
  readonly name: string;
  /** Every member of the spec is a key of the result. `numPartitions` is -1 for a topic that does not exist. */
  assign(spec: GroupSpec, numPartitions: (topicId: string) => number): Record<string, PartitionAssignment>;
}
