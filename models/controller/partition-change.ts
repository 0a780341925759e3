/**
 * One partition's next state as a PartitionChangeRecord, as Kafka's `PartitionChangeBuilder`
 * (metadata/src/main/java/org/apache/kafka/controller/PartitionChangeBuilder.java):
 *
 * 1. finish a reassignment if the target ISR allows it;
 * 2. elect: keep the current leader if it is in the target ISR and acceptable, else the first replica (replica
 *    order) in the target ISR that is acceptable; PREFERRED tries the first replica before that; UNCLEAN falls
 *    back to the first acceptable replica outside the ISR and makes it the whole ISR; none means leader -1;
 * 3. bump the leader epoch when a replica is removed (a removed replica must not keep fetching);
 * 4. never write an empty ISR (without ELR Kafka keeps the last member).
 *
 * Left out: ELR, leader recovery state, directories, and the pre-3.6 epoch bump on ISR shrink.
 */
import {
  NO_LEADER,
  NO_LEADER_CHANGE,
  type PartitionChangeRecord,
  type PartitionRegistration,
} from '../metadata/index.ts';
import { maybeCompleteReassignment } from './reassignment.ts';

export type Election = 'PREFERRED' | 'ONLINE' | 'UNCLEAN';

export interface PartitionChangeSpec {
  readonly topicId: string;
  readonly partitionId: number;
  readonly partition: PartitionRegistration;
  /** May this broker lead? Usually "active" (unfenced, not shutting down). */
  readonly isAcceptableLeader: (brokerId: number) => boolean;
  readonly election?: Election;
  readonly targetIsr?: readonly number[];
  readonly targetReplicas?: readonly number[];
  readonly targetRemoving?: readonly number[];
  readonly targetAdding?: readonly number[];
}

export interface PartitionChange {
  readonly record: PartitionChangeRecord;
  /** The partition as it will be once the record is replayed. */
  readonly after: PartitionRegistration;
  readonly leaderChanged: boolean;
  readonly unclean: boolean;
  readonly completedReassignment: boolean;
}

const sameList = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Kafka's `PartitionRegistration.merge`: what a PartitionChangeRecord makes of a partition. */
export function mergePartitionChange(
  p: PartitionRegistration,
  record: PartitionChangeRecord,
): PartitionRegistration {
  const leaderChange = record.leader !== undefined && record.leader !== NO_LEADER_CHANGE;
  return {
    partition: p.partition,
    replicas: record.replicas ? [...record.replicas] : p.replicas,
    isr: record.isr ? [...record.isr] : p.isr,
    removingReplicas: record.removingReplicas ? [...record.removingReplicas] : p.removingReplicas,
    addingReplicas: record.addingReplicas ? [...record.addingReplicas] : p.addingReplicas,
    leader: leaderChange ? record.leader! : p.leader,
    leaderEpoch: leaderChange ? p.leaderEpoch + 1 : p.leaderEpoch,
    partitionEpoch: p.partitionEpoch + 1,
  };
}

/** The change record, or undefined when nothing would change. */
export function buildPartitionChange(spec: PartitionChangeSpec): PartitionChange | undefined {
  const p = spec.partition;
  let targetIsr = spec.targetIsr ?? p.isr;
  let targetReplicas = spec.targetReplicas ?? p.replicas;
  let targetRemoving = spec.targetRemoving ?? p.removingReplicas;
  let targetAdding = spec.targetAdding ?? p.addingReplicas;

  const completed = maybeCompleteReassignment(
    { replicas: targetReplicas, removing: targetRemoving, adding: targetAdding },
    targetIsr,
  );
  if (completed) {
    targetIsr = completed.isr;
    targetReplicas = completed.replicas;
    targetRemoving = [];
    targetAdding = [];
  }

  const election = spec.election ?? 'ONLINE';
  const accept = spec.isAcceptableLeader;
  const isValidLeader = (r: number) => targetIsr.includes(r) && accept(r);
  let leader = NO_LEADER;
  let unclean = false;
  if (election === 'PREFERRED' && targetReplicas.length > 0 && isValidLeader(targetReplicas[0]!)) {
    leader = targetReplicas[0]!;
  } else if (isValidLeader(p.leader)) {
    leader = p.leader;
  } else {
    const clean = targetReplicas.find(isValidLeader);
    if (clean !== undefined) leader = clean;
    else if (election === 'UNCLEAN') {
      const anyReplica = targetReplicas.find((r) => accept(r));
      if (anyReplica !== undefined) {
        leader = anyReplica;
        unclean = true;
      }
    }
  }

  const record: {
    -readonly [K in keyof PartitionChangeRecord]: PartitionChangeRecord[K];
  } = { type: 'PartitionChangeRecord', topicId: spec.topicId, partitionId: spec.partitionId };
  if (leader !== p.leader) {
    record.leader = leader;
    // An unclean leader may lack committed records; it alone is in sync with itself (data may be lost).
    if (unclean) record.isr = [leader];
  }
  if (record.leader === undefined && !p.replicas.every((r) => targetReplicas.includes(r))) {
    record.leader = p.leader;
  }
  if (record.isr === undefined && targetIsr.length > 0 && !sameList(targetIsr, p.isr)) {
    record.isr = [...targetIsr];
  }
  if (targetReplicas.length > 0 && !sameList(targetReplicas, p.replicas))
    record.replicas = [...targetReplicas];
  if (!sameList(targetRemoving, p.removingReplicas)) record.removingReplicas = [...targetRemoving];
  if (!sameList(targetAdding, p.addingReplicas)) record.addingReplicas = [...targetAdding];

  const noOp =
    record.leader === undefined &&
    record.isr === undefined &&
    record.replicas === undefined &&
    record.removingReplicas === undefined &&
    record.addingReplicas === undefined;
  if (noOp) return undefined;
  const after = mergePartitionChange(p, record);
  return {
    record,
    after,
    leaderChanged: after.leader !== p.leader,
    unclean,
    completedReassignment: completed !== undefined,
  };
}
