/**
 * AlterPartition (KIP-497): a partition leader asks to change the ISR. Checks and their order are Kafka's
 * `ReplicationControlManager.validateAlterPartitionData` (request version > 1): a newer epoch than the
 * controller's means this controller is stale (NOT_CONTROLLER); an older leader epoch is FENCED_LEADER_EPOCH;
 * a request from a non-leader or with an ISR that is not a subset of the replicas or lacks the leader is
 * INVALID_REQUEST; an older partition epoch is INVALID_UPDATE_VERSION; only active brokers may join
 * (INELIGIBLE_REPLICA). An ISR change that completes a reassignment may move the leader; the requester then gets
 * NEW_LEADER_ELECTED although the change was written.
 */

import { type MetadataImage, topicById } from '../metadata/index.ts';
import type { AlterPartitionRequest, AlterPartitionResponse } from '../protocol/index.ts';
import { type ControlContext, type ControlResult, errorResult, NO_ERROR } from './control-context.ts';
import { electionFor, traceChange } from './leadership.ts';
import { buildPartitionChange } from './partition-change.ts';

/** Kafka answers partition-level AlterPartition errors with a code only, which clients show with the default text. */
function rejected(
  name: Parameters<typeof errorResult>[0],
  message?: string,
): ControlResult<AlterPartitionResponse> {
  return {
    records: [],
    response: { ...errorResult(name, message), leader: -1, leaderEpoch: -1, partitionEpoch: -1, isr: [] },
  };
}

/** Kafka's ClusterControlManager.checkBrokerEpoch; undefined when the epoch is current. */
export function checkBrokerEpoch(
  image: MetadataImage,
  brokerId: number,
  brokerEpoch: number,
): { errorCode: number; errorMessage: string } | undefined {
  const registration = Object.hasOwn(image.brokers, brokerId) ? image.brokers[brokerId] : undefined;
  if (!registration) {
    return errorResult('STALE_BROKER_EPOCH', `No broker registration found for broker id ${brokerId}`);
  }
  if (registration.brokerEpoch !== brokerEpoch) {
    return errorResult(
      'STALE_BROKER_EPOCH',
      `Expected broker epoch ${registration.brokerEpoch}, but got broker epoch ${brokerEpoch}`,
    );
  }
  return undefined;
}

function ineligibleReason(image: MetadataImage, brokerId: number): string | undefined {
  const b = Object.hasOwn(image.brokers, brokerId) ? image.brokers[brokerId] : undefined;
  if (!b) return 'not registered';
  if (b.inControlledShutdown) return 'shutting down';
  if (b.fenced) return 'fenced';
  return undefined;
}

export function alterPartition(
  ctx: ControlContext,
  req: AlterPartitionRequest,
): ControlResult<AlterPartitionResponse> {
  const image = ctx.image;
  const where = { topicId: req.topicId, partition: req.partition, brokerId: req.brokerId };
  // The detail goes to the trace for learners; the response carries Kafka's default message.
  const reject = (name: Parameters<typeof errorResult>[0], detail?: string) => {
    ctx.emit('controller.alter-partition', { ...where, newIsr: [...req.newIsr], error: name, detail });
    return rejected(name);
  };
  const epochError = checkBrokerEpoch(image, req.brokerId, req.brokerEpoch);
  if (epochError) {
    const result = rejected('STALE_BROKER_EPOCH', epochError.errorMessage);
    ctx.emit('controller.alter-partition', { ...where, error: 'STALE_BROKER_EPOCH', ...epochError });
    return result;
  }
  const topic = topicById(image, req.topicId);
  if (!topic) return reject('UNKNOWN_TOPIC_ID');
  const p = topic.partitions[req.partition];
  if (!p) return reject('UNKNOWN_TOPIC_OR_PARTITION');
  if (req.leaderEpoch > p.leaderEpoch || req.partitionEpoch > p.partitionEpoch)
    return reject('NOT_CONTROLLER');
  if (req.leaderEpoch < p.leaderEpoch) {
    return reject(
      'FENCED_LEADER_EPOCH',
      `The leader epoch in the request (${req.leaderEpoch}) is older than the controller's (${p.leaderEpoch}).`,
    );
  }
  if (req.brokerId !== p.leader) {
    return reject(
      'INVALID_REQUEST',
      `Broker ${req.brokerId} is not the leader of ${topic.name}-${req.partition}; the leader is ${p.leader}.`,
    );
  }
  if (req.partitionEpoch < p.partitionEpoch) {
    return reject(
      'INVALID_UPDATE_VERSION',
      `The partition epoch in the request (${req.partitionEpoch}) is older than the controller's (${p.partitionEpoch}).`,
    );
  }
  const unique = new Set(req.newIsr);
  if (unique.size !== req.newIsr.length || req.newIsr.some((r) => !p.replicas.includes(r))) {
    return reject(
      'INVALID_REQUEST',
      `The new ISR ${JSON.stringify(req.newIsr)} is not a set of the replicas ${JSON.stringify(p.replicas)}.`,
    );
  }
  if (!req.newIsr.includes(p.leader)) {
    return reject(
      'INVALID_REQUEST',
      `The new ISR ${JSON.stringify(req.newIsr)} does not include the leader ${p.leader}.`,
    );
  }
  const ineligible = req.newIsr.flatMap((id) => {
    const reason = ineligibleReason(image, id);
    return reason ? [`${id} (${reason})`] : [];
  });
  if (ineligible.length > 0) {
    return reject(
      'INELIGIBLE_REPLICA',
      `The new ISR ${JSON.stringify(req.newIsr)} contains ineligible replicas: ${ineligible.join(', ')}.`,
    );
  }
  const change = buildPartitionChange({
    topicId: topic.topicId,
    partitionId: req.partition,
    partition: p,
    election: electionFor(ctx, topic.name),
    targetIsr: req.newIsr,
    isAcceptableLeader: (id) => ineligibleReason(image, id) === undefined,
  });
  const after = change?.after ?? p;
  if (change) {
    traceChange(ctx, topic.name, p, change, `AlterPartition:${req.brokerId}`);
    if (change.completedReassignment) {
      ctx.emit('controller.reassign', {
        topic: topic.name,
        partition: req.partition,
        mode: ctx.storageMode,
        phase: 'complete',
        from: [...p.replicas],
        replicas: [...after.replicas],
        leader: after.leader,
      });
    }
  }
  if (change?.leaderChanged && after.leader !== req.brokerId) {
    return {
      records: [change.record],
      response: {
        ...errorResult('NEW_LEADER_ELECTED'),
        leader: after.leader,
        leaderEpoch: after.leaderEpoch,
        partitionEpoch: after.partitionEpoch,
        isr: [...after.isr],
      },
    };
  }
  return {
    records: change ? [change.record] : [],
    response: {
      ...NO_ERROR,
      leader: after.leader,
      leaderEpoch: after.leaderEpoch,
      partitionEpoch: after.partitionEpoch,
      isr: [...after.isr],
    },
  };
}
