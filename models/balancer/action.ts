/**
 * What a goal proposes: AutoMQ's `Action`. Only MOVE exists in practice: SWAP is in AutoMQ's code but its
 * callers are commented out, and there is no leader-only action (`ActionType`, and the goals' and executor's callers).
 */

export interface Action {
  readonly type: 'MOVE';
  /** The partition's number in the snapshot the action was made for. */
  readonly partition: number;
  readonly topic: string;
  readonly partitionId: number;
  readonly srcBrokerId: number;
  readonly destBrokerId: number;
}

/** An action as the executor sends it: a topic-partition and the brokers it goes from and to. */
export interface PartitionMove {
  readonly topic: string;
  readonly partition: number;
  readonly srcBrokerId: number;
  readonly destBrokerId: number;
}

export const describeMove = (m: PartitionMove): string =>
  `${m.topic}-${m.partition}: ${m.srcBrokerId} -> ${m.destBrokerId}`;
