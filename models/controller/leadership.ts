/**
 * Leader and ISR changes driven by brokers coming and going, and by ElectLeaders: Kafka's
 * `ReplicationControlManager.generateLeaderAndIsrUpdates` and its callers (handleBrokerFenced,
 * handleBrokerUnfenced, handleBrokerInControlledShutdown, electLeader), with AutoMQ's shared-storage variants
 * (AutoMQ's ReplicationControlManager and LoadAwarePartitionLeaderSelector):
 *
 * - kafka mode: a fenced or shutting-down broker leaves every ISR (except as the last member) and its
 *   partitions elect new leaders; an unfenced broker may lead partitions that had none.
 * - shared mode: a partition has one replica; when its broker is fenced it moves to another active broker
 *   (same rack first, weighted by 1/load) and that broker leads at once, because the old one cannot close it;
 *   when its broker shuts down cleanly it moves with leader -1: the old broker closes it and releases its streams
 *   (CloseStreams), the new one opens it and asks for its own election (ElectLeaders).
 */

import {
  type BrokerRegistrationChangeRecord,
  FENCE,
  FENCING_UNCHANGED,
  isActiveBroker,
  type MetadataImage,
  NO_LEADER,
  type PartitionChangeRecord,
  type PartitionRegistration,
  type TopicImage,
  topicByName,
  UNFENCE,
} from '../metadata/index.ts';
import type { ElectLeadersRequest, ElectLeadersResponse } from '../protocol/index.ts';
import {
  type ControlContext,
  type ControlResult,
  errorResult,
  NO_ERROR,
  type PendingElection,
  partitionKey,
} from './control-context.ts';
import { LoadAwareLeaderSelector } from './leader-selector.ts';
import { buildPartitionChange, type Election, type PartitionChange } from './partition-change.ts';

/** ONLINE, or UNCLEAN when unclean election is enabled for the topic (override, cluster default, config). */
export function electionFor(ctx: ControlContext, topic: string): Election {
  const key = 'unclean.leader.election.enable';
  const own = ctx.image.configs.topic[topic];
  const value =
    (own && Object.hasOwn(own, key) ? own[key] : undefined) ??
    ctx.image.configs.broker['']?.[key] ??
    String(ctx.config[key]);
  return value.trim().toLowerCase() === 'true' ? 'UNCLEAN' : 'ONLINE';
}

/** Emits what a partition change decided: `controller.elect` if the leader moved, else `controller.isr`. */
export function traceChange(
  ctx: ControlContext,
  topic: string,
  before: PartitionRegistration,
  change: PartitionChange,
  reason: string,
): void {
  const after = change.after;
  const isrChanged = after.isr.join() !== before.isr.join();
  const common = { topic, partition: before.partition, reason };
  if (change.leaderChanged) {
    ctx.emit('controller.elect', {
      ...common,
      previousLeader: before.leader,
      leader: after.leader,
      leaderEpoch: after.leaderEpoch,
      previousIsr: [...before.isr],
      isr: [...after.isr],
      replicas: [...after.replicas],
      unclean: change.unclean,
    });
  } else if (isrChanged) {
    ctx.emit('controller.isr', {
      ...common,
      leader: after.leader,
      leaderEpoch: after.leaderEpoch,
      previousIsr: [...before.isr],
      isr: [...after.isr],
      partitionEpoch: after.partitionEpoch,
    });
  }
}

interface Located {
  readonly topic: TopicImage;
  readonly partition: PartitionRegistration;
}

function partitionsWhere(image: MetadataImage, test: (p: PartitionRegistration) => boolean): Located[] {
  const out: Located[] = [];
  for (const name of Object.keys(image.topics).sort()) {
    const topic = image.topics[name]!;
    for (const partition of topic.partitions) if (test(partition)) out.push({ topic, partition });
  }
  return out;
}

function changeRecord(
  brokerId: number,
  brokerEpoch: number,
  fenced: BrokerRegistrationChangeRecord['fenced'],
  inControlledShutdown?: 1,
): BrokerRegistrationChangeRecord {
  return inControlledShutdown === undefined
    ? { type: 'BrokerRegistrationChangeRecord', brokerId, brokerEpoch, fenced }
    : { type: 'BrokerRegistrationChangeRecord', brokerId, brokerEpoch, fenced, inControlledShutdown };
}

/** Moves a shared-storage partition to `target`; it leads at once when `electNow`, else waits (leader -1). */
function sharedMove(at: Located, target: number, electNow: boolean): PartitionChange | undefined {
  return buildPartitionChange({
    topicId: at.topic.topicId,
    partitionId: at.partition.partition,
    partition: at.partition,
    targetReplicas: [target],
    targetIsr: [target],
    targetRemoving: [],
    targetAdding: [],
    isAcceptableLeader: (id) => electNow && id === target,
  });
}

function elect(at: Located, election: Election, accept: (id: number) => boolean) {
  return buildPartitionChange({
    topicId: at.topic.topicId,
    partitionId: at.partition.partition,
    partition: at.partition,
    election,
    isAcceptableLeader: accept,
  });
}

/**
 * Records for fencing a broker: its partitions first (ISR removal and elections, or shared-mode moves), then
 * the BrokerRegistrationChangeRecord, in Kafka's order. `pending` are shared-mode moves still waiting for an
 * ElectLeaders; those whose old leader is this broker are elected now, since it will never send one.
 */
export function fenceBroker(
  ctx: ControlContext,
  brokerId: number,
  reason: string,
  pending: readonly PendingElection[] = [],
): ControlResult<undefined> {
  const image = ctx.image;
  const registration = image.brokers[brokerId];
  if (registration === undefined) throw new Error(`fenceBroker: broker ${brokerId} is not registered`);
  const records: (PartitionChangeRecord | BrokerRegistrationChangeRecord)[] = [];
  const settled: string[] = [];
  const affected = partitionsWhere(image, (p) => p.isr.includes(brokerId) || p.leader === brokerId);
  const reasonText = `broker-fenced:${reason}`;
  if (ctx.storageMode === 'shared') {
    const selector = new LoadAwareLeaderSelector(image, brokerId, ctx.random, ctx.clusterStats);
    for (const at of affected) {
      const target = selector.select({ topic: at.topic.name, partition: at.partition.partition });
      const change =
        target === undefined
          ? buildPartitionChange({
              topicId: at.topic.topicId,
              partitionId: at.partition.partition,
              partition: at.partition,
              targetIsr: at.partition.isr.filter((r) => r !== brokerId),
              isAcceptableLeader: () => false,
            })
          : sharedMove(at, target, true);
      settled.push(partitionKey(at.topic.topicId, at.partition.partition));
      if (!change) continue;
      records.push(change.record);
      if (target !== undefined) {
        ctx.emit('controller.reassign', {
          topic: at.topic.name,
          partition: at.partition.partition,
          mode: 'shared',
          phase: 'failover',
          from: [...at.partition.replicas],
          replicas: [target],
          reason: reasonText,
        });
      }
      traceChange(ctx, at.topic.name, at.partition, change, reasonText);
    }
    const handled = new Set(settled);
    for (const wait of pending) {
      const key = partitionKey(wait.topicId, wait.partition);
      if (wait.source !== brokerId || handled.has(key)) continue;
      settled.push(key);
      const topic = image.topics[wait.topic];
      const partition = topic?.topicId === wait.topicId ? topic.partitions[wait.partition] : undefined;
      if (!topic || !partition) continue;
      const change = elect(
        { topic, partition },
        'PREFERRED',
        (id) => id !== brokerId && isActiveBroker(image, id),
      );
      if (!change) continue;
      records.push(change.record);
      traceChange(ctx, topic.name, partition, change, 'source-fenced');
    }
  } else {
    for (const at of affected) {
      const change = buildPartitionChange({
        topicId: at.topic.topicId,
        partitionId: at.partition.partition,
        partition: at.partition,
        election: electionFor(ctx, at.topic.name),
        targetIsr: at.partition.isr.filter((r) => r !== brokerId),
        isAcceptableLeader: (id) => id !== brokerId && isActiveBroker(image, id),
      });
      if (!change) continue;
      records.push(change.record);
      traceChange(ctx, at.topic.name, at.partition, change, reasonText);
    }
  }
  records.push(changeRecord(brokerId, registration.brokerEpoch, FENCE));
  ctx.emit('controller.fence', {
    brokerId,
    brokerEpoch: registration.brokerEpoch,
    reason,
    partitionsChanged: records.length - 1,
  });
  return { records, response: undefined, settledElections: settled };
}

/**
 * Records for unfencing a broker: the change record, then elections for partitions without a leader (the
 * broker counts as active for them). In shared mode a leaderless partition whose replica is still gone moves to
 * this broker, as AutoMQ does; one waiting for its old leader's ElectLeaders is left alone.
 */
export function unfenceBroker(
  ctx: ControlContext,
  brokerId: number,
  brokerEpoch: number,
  pending: ReadonlySet<string> = new Set(),
): ControlResult<undefined> {
  const image = ctx.image;
  const records: (PartitionChangeRecord | BrokerRegistrationChangeRecord)[] = [
    changeRecord(brokerId, brokerEpoch, UNFENCE),
  ];
  const settled: string[] = [];
  const accept = (id: number) => id === brokerId || isActiveBroker(image, id);
  for (const at of partitionsWhere(image, (p) => p.leader === NO_LEADER)) {
    const key = partitionKey(at.topic.topicId, at.partition.partition);
    let change: PartitionChange | undefined;
    if (ctx.storageMode === 'shared') {
      if (pending.has(key)) continue;
      if (at.partition.replicas.some(accept)) change = elect(at, 'ONLINE', accept);
      else {
        change = sharedMove(at, brokerId, true);
        if (change) {
          ctx.emit('controller.reassign', {
            topic: at.topic.name,
            partition: at.partition.partition,
            mode: 'shared',
            phase: 'failover',
            from: [...at.partition.replicas],
            replicas: [brokerId],
            reason: 'broker-unfenced',
          });
        }
      }
    } else {
      change = elect(at, electionFor(ctx, at.topic.name), accept);
    }
    if (!change) continue;
    settled.push(key);
    records.push(change.record);
    traceChange(ctx, at.topic.name, at.partition, change, 'broker-unfenced');
  }
  ctx.emit('controller.unfence', { brokerId, brokerEpoch, partitionsChanged: records.length - 1 });
  return { records, response: undefined, settledElections: settled };
}

/**
 * Records for a broker entering controlled shutdown: the change record, then leadership moves away. Kafka mode
 * drops it from every ISR it is not the last member of; shared mode moves each partition it leads to another
 * broker with leader -1, to be elected when this broker has closed the partition (CloseStreams) and the new one
 * has opened it and asks for the election (ElectLeaders).
 */
export function beginControlledShutdown(
  ctx: ControlContext,
  brokerId: number,
  brokerEpoch: number,
): ControlResult<undefined> {
  const image = ctx.image;
  const records: (PartitionChangeRecord | BrokerRegistrationChangeRecord)[] = [];
  if (!image.brokers[brokerId]?.inControlledShutdown) {
    records.push(changeRecord(brokerId, brokerEpoch, FENCING_UNCHANGED, 1));
  }
  const awaiting: PendingElection[] = [];
  const accept = (id: number) => id !== brokerId && isActiveBroker(image, id);
  if (ctx.storageMode === 'shared') {
    const selector = new LoadAwareLeaderSelector(image, brokerId, ctx.random, ctx.clusterStats);
    for (const at of partitionsWhere(image, (p) => p.leader === brokerId)) {
      const target = selector.select({ topic: at.topic.name, partition: at.partition.partition });
      const change = target === undefined ? elect(at, 'ONLINE', () => false) : sharedMove(at, target, false);
      if (!change) continue;
      records.push(change.record);
      if (target !== undefined) {
        awaiting.push({
          topic: at.topic.name,
          topicId: at.topic.topicId,
          partition: at.partition.partition,
          source: brokerId,
        });
        ctx.emit('controller.reassign', {
          topic: at.topic.name,
          partition: at.partition.partition,
          mode: 'shared',
          phase: 'start',
          from: [...at.partition.replicas],
          replicas: [target],
          reason: 'controlled-shutdown',
        });
      }
      traceChange(ctx, at.topic.name, at.partition, change, 'controlled-shutdown');
    }
  } else {
    for (const at of partitionsWhere(image, (p) => p.isr.includes(brokerId) || p.leader === brokerId)) {
      const change = buildPartitionChange({
        topicId: at.topic.topicId,
        partitionId: at.partition.partition,
        partition: at.partition,
        election: electionFor(ctx, at.topic.name),
        targetIsr: at.partition.isr.filter((r) => r !== brokerId),
        isAcceptableLeader: accept,
      });
      if (!change) continue;
      records.push(change.record);
      traceChange(ctx, at.topic.name, at.partition, change, 'controlled-shutdown');
    }
  }
  ctx.emit('controller.controlled-shutdown', {
    brokerId,
    brokerEpoch,
    partitionsChanged: records.length - 1,
  });
  return { records, response: undefined, awaitingElection: awaiting };
}

/**
 * ElectLeaders (PREFERRED by default): the first replica leads if it is in the ISR and active, else the current
 * leader stays, else any ISR member that is active. A partition that already has the leader it would get is
 * answered with success (Kafka answers ELECTION_NOT_NEEDED, a code models/protocol does not carry).
 */
export function electLeaders(
  ctx: ControlContext,
  req: ElectLeadersRequest,
): ControlResult<ElectLeadersResponse> {
  const image = ctx.image;
  const electionType = req.electionType ?? 'PREFERRED';
  const records: PartitionChangeRecord[] = [];
  const settled: string[] = [];
  const results: ElectLeadersResponse['results'] = [];
  const changed = new Map<string, PartitionRegistration>();
  for (const { topic, partition: partitionId } of req.partitions) {
    const where = { topic, partition: partitionId };
    const topicImage = topicByName(image, topic);
    if (!topicImage) {
      results.push({ ...where, ...errorResult('UNKNOWN_TOPIC_OR_PARTITION', `No such topic as ${topic}`) });
      continue;
    }
    const key = partitionKey(topicImage.topicId, partitionId);
    const current = changed.get(key) ?? topicImage.partitions[partitionId];
    if (!current) {
      results.push({
        ...where,
        ...errorResult('UNKNOWN_TOPIC_OR_PARTITION', `No such partition as ${topic}-${partitionId}`),
      });
      continue;
    }
    const notNeeded =
      electionType === 'PREFERRED' ? current.leader === current.replicas[0] : current.leader !== NO_LEADER;
    if (notNeeded) {
      settled.push(key);
      results.push({ ...where, ...NO_ERROR });
      continue;
    }
    const change = elect({ topic: topicImage, partition: current }, electionType, (id) =>
      isActiveBroker(image, id),
    );
    if (!change) {
      // Kafka: PREFERRED_LEADER_NOT_AVAILABLE / ELIGIBLE_LEADERS_NOT_AVAILABLE (not in models/protocol).
      results.push({
        ...where,
        ...errorResult(
          'LEADER_NOT_AVAILABLE',
          `No eligible leader for ${topic}-${partitionId}: no replica in the ISR ${JSON.stringify(current.isr)} is active.`,
        ),
      });
      ctx.emit('controller.elect-failed', {
        ...where,
        isr: [...current.isr],
        replicas: [...current.replicas],
      });
      continue;
    }
    settled.push(key);
    changed.set(key, change.after);
    records.push(change.record);
    traceChange(ctx, topic, current, change, `ElectLeaders:${electionType}`);
    results.push({ ...where, ...NO_ERROR });
  }
  return { records, response: { results }, settledElections: settled };
}

/** Elects leaders for shared-mode moves that waited too long for their ElectLeaders. */
export function electPending(
  ctx: ControlContext,
  pending: readonly PendingElection[],
  reason: string,
): ControlResult<undefined> {
  const records: PartitionChangeRecord[] = [];
  const settled: string[] = [];
  for (const wait of pending) {
    const topic = topicByName(ctx.image, wait.topic);
    const partition = topic?.topicId === wait.topicId ? topic.partitions[wait.partition] : undefined;
    settled.push(partitionKey(wait.topicId, wait.partition));
    if (!topic || !partition || partition.leader !== NO_LEADER) continue;
    const change = elect({ topic, partition }, 'PREFERRED', (id) => isActiveBroker(ctx.image, id));
    if (!change) continue;
    records.push(change.record);
    traceChange(ctx, topic.name, partition, change, reason);
  }
  return { records, response: undefined, settledElections: settled };
}
