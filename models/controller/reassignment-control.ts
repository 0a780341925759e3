/**
 * AlterPartitionReassignments and ListPartitionReassignments, as Kafka's `ReplicationControlManager`
 * (alterPartitionReassignment, changePartitionReassignment, cancelPartitionReassignment,
 * listPartitionReassignments; KIP-455) and, in shared mode, AutoMQ's
 * `ReplicationControlManager.changePartitionReassignmentV2` (AutoMQ/automq, metadata/.../controller/).
 *
 * kafka mode: replicas = target + removing, adding and removing are recorded, and the move completes when a
 * later AlterPartition brings the ISR up to the target. Kafka only overwrites adding/removing when the new
 * lists are non-empty, which can leave stale entries when a reassignment replaces another; kafkasim always
 * writes both.
 * shared mode: one PartitionChangeRecord sets replicas and ISR to [dest] and the leader to -1; the old leader
 * closes the partition and asks for the election. If the old leader is gone the destination is elected at once.
 */

import {
  isActiveBroker,
  type MetadataImage,
  NO_LEADER,
  type PartitionChangeRecord,
  type PartitionRegistration,
  reassigningPartitions,
  topicByName,
} from '../metadata/index.ts';
import type {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../protocol/index.ts';
import {
  type ControlContext,
  type ControlResult,
  catchKafkaError,
  fail,
  NO_ERROR,
  type PendingElection,
  partitionKey,
} from './control-context.ts';
import { electionFor, traceChange } from './leadership.ts';
import { buildPartitionChange, type PartitionChange } from './partition-change.ts';
import { isReassignmentInProgress, reassignmentReplicas, revertReassignment } from './reassignment.ts';
import { validateManualAssignment } from './topic-control.ts';

interface Planned {
  change: PartitionChange | undefined;
  phase: string;
  awaiting?: PendingElection;
}

export function alterPartitionReassignments(
  ctx: ControlContext,
  req: AlterPartitionReassignmentsRequest,
  pending: ReadonlyMap<string, PendingElection> = new Map(),
): ControlResult<AlterPartitionReassignmentsResponse> {
  const records: PartitionChangeRecord[] = [];
  const awaiting: PendingElection[] = [];
  const settled: string[] = [];
  const changed = new Map<string, PartitionRegistration>();
  const partitions: AlterPartitionReassignmentsResponse['partitions'] = [];
  for (const target of req.partitions) {
    const where = { topic: target.topic, partition: target.partition };
    const outcome = catchKafkaError(() => {
      const topic = topicByName(ctx.image, target.topic);
      if (!topic) fail('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find a topic named ${target.topic}.`);
      const key = partitionKey(topic.topicId, target.partition);
      const current = changed.get(key) ?? topic.partitions[target.partition];
      if (!current) {
        fail('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition ${target.topic}:${target.partition}.`);
      }
      const planned =
        target.replicas === null
          ? cancel(ctx, topic.name, topic.topicId, current)
          : ctx.storageMode === 'shared'
            ? sharedMove(ctx, topic.name, topic.topicId, current, target.replicas, pending.get(key))
            : kafkaMove(ctx, topic.topicId, current, target.replicas);
      return { key, current, planned };
    });
    if (!outcome.ok) {
      partitions.push({ ...where, ...outcome.error });
      ctx.emit('controller.reassign', { ...where, mode: ctx.storageMode, ...outcome.error });
      continue;
    }
    const { key, current, planned } = outcome.value;
    partitions.push({ ...where, ...NO_ERROR });
    const after = planned.change?.after ?? current;
    ctx.emit('controller.reassign', {
      ...where,
      mode: ctx.storageMode,
      phase: planned.phase,
      target: target.replicas,
      from: [...current.replicas],
      replicas: [...after.replicas],
      addingReplicas: [...after.addingReplicas],
      removingReplicas: [...after.removingReplicas],
      leader: after.leader,
    });
    if (!planned.change) continue;
    changed.set(key, planned.change.after);
    records.push(planned.change.record);
    settled.push(key);
    if (planned.awaiting) awaiting.push(planned.awaiting);
    traceChange(ctx, target.topic, current, planned.change, 'reassignment');
  }
  return {
    records,
    response: { ...NO_ERROR, partitions },
    awaitingElection: awaiting,
    settledElections: settled,
  };
}

function kafkaMove(
  ctx: ControlContext,
  topicId: string,
  current: PartitionRegistration,
  target: readonly number[],
): Planned {
  validateManualAssignment(ctx.image, target);
  const r = reassignmentReplicas(current.replicas, target);
  const change = buildPartitionChange({
    topicId,
    partitionId: current.partition,
    partition: current,
    targetReplicas: r.replicas,
    targetRemoving: r.removing,
    targetAdding: r.adding,
    isAcceptableLeader: (id) => isActiveBroker(ctx.image, id),
  });
  if (!change) return { change, phase: 'noop' };
  const inProgress = isReassignmentInProgress({
    adding: change.after.addingReplicas,
    removing: change.after.removingReplicas,
  });
  return { change, phase: inProgress ? 'start' : 'complete' };
}

function cancel(
  ctx: ControlContext,
  topic: string,
  topicId: string,
  current: PartitionRegistration,
): Planned {
  if (!isReassignmentInProgress({ adding: current.addingReplicas, removing: current.removingReplicas })) {
    fail('NO_REASSIGNMENT_IN_PROGRESS');
  }
  const revert = revertReassignment(current);
  const election = electionFor(ctx, topic);
  if (revert.unclean && election !== 'UNCLEAN') {
    fail(
      'INVALID_REPLICA_ASSIGNMENT',
      `Unable to revert partition assignment for ${topic}:${current.partition} because it would require an unclean leader election.`,
    );
  }
  const change = buildPartitionChange({
    topicId,
    partitionId: current.partition,
    partition: current,
    election,
    targetIsr: revert.isr,
    targetReplicas: revert.replicas,
    targetRemoving: [],
    targetAdding: [],
    isAcceptableLeader: (id) => isActiveBroker(ctx.image, id),
  });
  return { change, phase: 'cancel' };
}

function sharedMove(
  ctx: ControlContext,
  topic: string,
  topicId: string,
  current: PartitionRegistration,
  target: readonly number[],
  waiting: PendingElection | undefined,
): Planned {
  if (target.length !== 1) {
    fail(
      'INVALID_REPLICA_ASSIGNMENT',
      `Shared storage mode supports exactly one replica per partition; partition ${topic}-${current.partition} ` +
        `was given replicas [${target.join(', ')}].`,
    );
  }
  validateManualAssignment(ctx.image, target);
  const dest = target[0]!;
  if (current.replicas.length === 1 && current.replicas[0] === dest)
    return { change: undefined, phase: 'noop' };
  // The broker that must close the partition first: the current leader, or the one an earlier move still
  // waits for. Without one that is alive, nobody will ask for the election, so elect now.
  const source = waiting?.source ?? current.leader;
  const electNow = source === NO_LEADER || !isActiveBroker(ctx.image, source) || source === dest;
  const change = buildPartitionChange({
    topicId,
    partitionId: current.partition,
    partition: current,
    targetReplicas: [dest],
    targetIsr: [dest],
    targetRemoving: [],
    targetAdding: [],
    isAcceptableLeader: (id) => electNow && id === dest && isActiveBroker(ctx.image, id),
  });
  if (!change) return { change, phase: 'noop' };
  if (electNow) return { change, phase: 'moved' };
  return {
    change,
    phase: 'await-election',
    awaiting: { topic, topicId, partition: current.partition, source },
  };
}

export function listPartitionReassignments(
  image: MetadataImage,
  req: ListPartitionReassignmentsRequest,
): ListPartitionReassignmentsResponse {
  const wanted = req.partitions;
  const found = wanted
    ? wanted.flatMap(({ topic, partition }) => {
        const t = topicByName(image, topic);
        const p = t?.partitions[partition];
        return t && p && isReassignmentInProgress({ adding: p.addingReplicas, removing: p.removingReplicas })
          ? [{ topic, partition, registration: p }]
          : [];
      })
    : reassigningPartitions(image);
  return {
    ...NO_ERROR,
    reassignments: found.map(({ topic, partition, registration }) => ({
      topic,
      partition,
      replicas: [...registration.replicas],
      addingReplicas: [...registration.addingReplicas],
      removingReplicas: [...registration.removingReplicas],
    })),
  };
}
