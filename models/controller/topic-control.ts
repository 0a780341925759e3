/**
 * CreateTopics, DeleteTopics and CreatePartitions, as Kafka's `ReplicationControlManager` (createTopics, createTopic,
 * deleteTopics, createPartitions, validateManualPartitionAssignment) and `ControllerApis` (duplicate names). Error
 * codes and messages are Kafka's (Errors.java, and ReplicationControlManager's messages); in shared mode (AutoMQ) a
 * partition has exactly one replica.
 */

import {
  configMap,
  isActiveBroker,
  type MetadataImage,
  type MetadataRecord,
  type PartitionRecord,
  topicByName,
} from '../metadata/index.ts';
import type {
  CreatePartitionsRequest,
  CreatePartitionsResponse,
  CreateTopicsRequest,
  CreateTopicsResponse,
  DeleteTopicsRequest,
  DeleteTopicsResponse,
} from '../protocol/index.ts';
import { effectiveTopicConfigs, validateTopicConfigs } from './config.ts';
import {
  type ControlContext,
  type ControlResult,
  catchKafkaError,
  errorResult,
  fail,
  NO_ERROR,
  partitionKey,
} from './control-context.ts';
import { placeReplicas, ReplicaPlacementError, type UsableBroker } from './replica-placer.ts';
import { collidingTopic, invalidTopicNameReason } from './topic-name.ts';

/** Registered brokers not in controlled shutdown, as Kafka's `usableBrokers()`, for the placer. */
export function usableBrokers(image: MetadataImage): UsableBroker[] {
  return Object.values(image.brokers)
    .filter((b) => !b.inControlledShutdown)
    .map((b) => ({ id: b.brokerId, rack: b.rack, fenced: b.fenced }));
}

/**
 * Kafka's validateManualPartitionAssignment: not empty, every broker registered and unfenced, no broker twice,
 * and as many replicas as `replicationFactor` when given. Brokers are checked in ascending order.
 */
export function validateManualAssignment(
  image: MetadataImage,
  replicas: readonly number[],
  replicationFactor?: number,
): void {
  if (replicas.length === 0) {
    fail('INVALID_REPLICA_ASSIGNMENT', 'The manual partition assignment includes an empty replica list.');
  }
  const sorted = [...replicas].sort((a, b) => a - b);
  let previous: number | undefined;
  for (const id of sorted) {
    const registration = Object.hasOwn(image.brokers, id) ? image.brokers[id] : undefined;
    if (!registration) {
      fail(
        'INVALID_REPLICA_ASSIGNMENT',
        `The manual partition assignment includes broker ${id}, but no such broker is registered.`,
      );
    }
    if (registration.fenced) {
      fail(
        'INVALID_REPLICA_ASSIGNMENT',
        `The manual partition assignment includes broker ${id}, but this broker is currently fenced.`,
      );
    }
    if (id === previous) {
      fail(
        'INVALID_REPLICA_ASSIGNMENT',
        `The manual partition assignment includes the broker ${id} more than once.`,
      );
    }
    previous = id;
  }
  if (replicationFactor !== undefined && sorted.length !== replicationFactor) {
    fail(
      'INVALID_REPLICA_ASSIGNMENT',
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not ` +
        `consistent with previous partitions, which have ${replicationFactor} replica(s).`,
    );
  }
}

function sharedModeReplicationFactorError(replicationFactor: number): never {
  fail(
    'INVALID_REPLICATION_FACTOR',
    `Replication factor must be 1 in shared storage mode: each partition has one replica and shared storage ` +
      `keeps the data durable (got ${replicationFactor}).`,
  );
}

function partitionRecord(topicId: string, partitionId: number, replicas: readonly number[], isr: number[]) {
  const record: PartitionRecord = {
    type: 'PartitionRecord',
    topicId,
    partitionId,
    replicas: [...replicas],
    isr,
    removingReplicas: [],
    addingReplicas: [],
    leader: isr[0]!,
    leaderEpoch: 0,
    partitionEpoch: 0,
  };
  return record;
}

/** Names that appear more than once in a request: Kafka's ControllerApis fails every copy. */
function duplicates(names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return dup;
}

const DUPLICATE = () => errorResult('INVALID_REQUEST', 'Duplicate topic name.');

export function createTopics(
  ctx: ControlContext,
  req: CreateTopicsRequest,
): ControlResult<CreateTopicsResponse> {
  const image = ctx.image;
  const validateOnly = req.validateOnly === true;
  const dup = duplicates(req.topics.map((t) => t.name));
  const records: MetadataRecord[] = [];
  const results: CreateTopicsResponse['topics'] = [];
  const existing = Object.keys(image.topics);
  for (const topic of req.topics) {
    const failed = (error: { errorCode: number; errorMessage?: string }) => {
      results.push({
        name: topic.name,
        topicId: null,
        numPartitions: -1,
        replicationFactor: -1,
        configs: {},
        ...error,
      });
      ctx.emit('controller.create-topics', { topic: topic.name, validateOnly, ...error });
    };
    if (dup.has(topic.name)) {
      failed(DUPLICATE());
      continue;
    }
    const outcome = catchKafkaError(() => planTopic(ctx, topic, existing));
    if (!outcome.ok) {
      failed(outcome.error);
      continue;
    }
    const { assignment, isrs, configs } = outcome.value;
    const replicationFactor = assignment[0]!.length;
    const topicId = validateOnly ? null : ctx.newTopicId();
    if (topicId !== null) {
      records.push({ type: 'TopicRecord', name: topic.name, topicId });
      // ConfigRecords go after the TopicRecord and before the PartitionRecords, as Kafka writes them.
      for (const [name, value] of Object.entries(configs)) {
        records.push({ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: topic.name, name, value });
      }
      assignment.forEach((replicas, p) => {
        records.push(partitionRecord(topicId, p, replicas, isrs[p]!));
      });
    }
    results.push({
      name: topic.name,
      // Kafka draws an id even for validateOnly; kafkasim answers null because no such topic will exist.
      topicId,
      numPartitions: assignment.length,
      replicationFactor,
      configs: effectiveTopicConfigs(ctx.config, configs),
      ...NO_ERROR,
    });
    ctx.emit('controller.create-topics', {
      topic: topic.name,
      topicId,
      validateOnly,
      numPartitions: assignment.length,
      replicationFactor,
      explicitAssignment: (topic.assignments?.length ?? 0) > 0,
      assignment,
      leaders: isrs.map((isr) => isr[0]),
      configs,
    });
  }
  return { records, response: { topics: results } };
}

/** Validates one CreatableTopic against the image and decides its placement; throws KafkaError. */
function planTopic(
  ctx: ControlContext,
  topic: CreateTopicsRequest['topics'][number],
  existing: readonly string[],
): { assignment: number[][]; isrs: number[][]; configs: Record<string, string> } {
  const image = ctx.image;
  const shared = ctx.storageMode === 'shared';
  const invalidName = invalidTopicNameReason(topic.name);
  if (invalidName) fail('INVALID_TOPIC_EXCEPTION', invalidName);
  // Kafka checks collisions first but then overwrites the error of an existing name with this one.
  if (topicByName(image, topic.name)) fail('TOPIC_ALREADY_EXISTS', `Topic '${topic.name}' already exists.`);
  const collides = collidingTopic(topic.name, existing);
  if (collides !== undefined) {
    fail('INVALID_TOPIC_EXCEPTION', `Topic '${topic.name}' collides with existing topic: ${collides}`);
  }

  const configs = configMap(topic.configs ?? {});
  const nulls = Object.keys(configs).filter((k) => configs[k] === null || configs[k] === undefined);
  if (nulls.length > 0)
    fail('INVALID_CONFIG', `Null value not supported for topic configs: ${nulls.join(',')}`);
  const configError = validateTopicConfigs(configs);
  if (configError) throw configError;
  // AutoMQ forces min.insync.replicas to 1 on create, since a partition has a single replica.
  if (shared) configs['min.insync.replicas'] = '1';

  const assignments = topic.assignments ?? [];
  if (assignments.length > 0) {
    if (topic.replicationFactor !== -1) {
      fail(
        'INVALID_REQUEST',
        'A manual partition assignment was specified, but replication factor was not set to -1.',
      );
    }
    if (topic.numPartitions !== -1) {
      fail(
        'INVALID_REQUEST',
        'A manual partition assignment was specified, but numPartitions was not set to -1.',
      );
    }
    const isrs: number[][] = [];
    let replicationFactor: number | undefined;
    assignments.forEach((replicas, p) => {
      validateManualAssignment(image, replicas, replicationFactor);
      replicationFactor = replicas.length;
      const isr = replicas.filter((id) => isActiveBroker(image, id));
      if (isr.length === 0) {
        fail(
          'INVALID_REPLICA_ASSIGNMENT',
          `All brokers specified in the manual partition assignment for partition ${p} are fenced or in controlled shutdown.`,
        );
      }
      isrs.push(isr);
    });
    if (shared && replicationFactor !== 1) sharedModeReplicationFactorError(replicationFactor!);
    return { assignment: assignments.map((r) => [...r]), isrs, configs };
  }
  if (topic.replicationFactor < -1 || topic.replicationFactor === 0) {
    fail(
      'INVALID_REPLICATION_FACTOR',
      'Replication factor must be larger than 0, or -1 to use the default value.',
    );
  }
  if (topic.numPartitions < -1 || topic.numPartitions === 0) {
    fail('INVALID_PARTITIONS', 'Number of partitions was set to an invalid non-positive value.');
  }
  const numPartitions = topic.numPartitions === -1 ? ctx.config['num.partitions'] : topic.numPartitions;
  // In shared mode the only replication factor is 1, so -1 means 1 whatever the configured default.
  const replicationFactor =
    topic.replicationFactor === -1
      ? shared
        ? 1
        : ctx.config['default.replication.factor']
      : topic.replicationFactor;
  if (shared && replicationFactor !== 1) sharedModeReplicationFactorError(replicationFactor);
  const assignment = place(ctx, numPartitions, replicationFactor, (reason) =>
    fail(
      'INVALID_REPLICATION_FACTOR',
      `Unable to replicate the partition ${replicationFactor} time(s): ${reason}`,
    ),
  );
  const isrs = assignment.map((replicas) => replicas.filter((id) => isActiveBroker(image, id)));
  if (isrs.some((isr) => isr.length === 0)) {
    fail(
      'INVALID_REPLICATION_FACTOR',
      `Unable to replicate the partition ${replicationFactor} time(s): All brokers are currently fenced or in controlled shutdown.`,
    );
  }
  return { assignment, isrs, configs };
}

function place(
  ctx: ControlContext,
  numPartitions: number,
  replicationFactor: number,
  onError: (reason: string) => never,
): number[][] {
  try {
    return placeReplicas(usableBrokers(ctx.image), numPartitions, replicationFactor, ctx.random);
  } catch (e) {
    if (e instanceof ReplicaPlacementError) onError(e.message);
    throw e;
  }
}

export function deleteTopics(
  ctx: ControlContext,
  req: DeleteTopicsRequest,
): ControlResult<DeleteTopicsResponse> {
  const dup = duplicates(req.topics);
  const records: MetadataRecord[] = [];
  const settled: string[] = [];
  const topics: DeleteTopicsResponse['topics'] = [];
  for (const name of req.topics) {
    const topic = topicByName(ctx.image, name);
    const error = dup.has(name) ? DUPLICATE() : topic ? NO_ERROR : errorResult('UNKNOWN_TOPIC_OR_PARTITION');
    topics.push({ name, ...error });
    if (error.errorCode !== 0 || !topic) {
      ctx.emit('controller.delete-topics', { topic: name, ...error });
      continue;
    }
    records.push({ type: 'RemoveTopicRecord', topicId: topic.topicId });
    for (const p of topic.partitions) settled.push(partitionKey(topic.topicId, p.partition));
    ctx.emit('controller.delete-topics', {
      topic: name,
      topicId: topic.topicId,
      partitions: topic.partitions.length,
    });
  }
  return { records, response: { topics }, settledElections: settled };
}

export function createPartitions(
  ctx: ControlContext,
  req: CreatePartitionsRequest,
): ControlResult<CreatePartitionsResponse> {
  const validateOnly = req.validateOnly === true;
  const dup = duplicates(req.topics.map((t) => t.name));
  const records: MetadataRecord[] = [];
  const topics: CreatePartitionsResponse['topics'] = [];
  for (const request of req.topics) {
    if (dup.has(request.name)) {
      const error = DUPLICATE();
      topics.push({ name: request.name, ...error });
      ctx.emit('controller.create-partitions', { topic: request.name, ...error });
      continue;
    }
    const outcome = catchKafkaError(() => planPartitions(ctx, request));
    if (!outcome.ok) {
      topics.push({ name: request.name, ...outcome.error });
      ctx.emit('controller.create-partitions', { topic: request.name, validateOnly, ...outcome.error });
      continue;
    }
    const { topicId, start, assignment, isrs } = outcome.value;
    if (!validateOnly) {
      assignment.forEach((replicas, i) => {
        records.push(partitionRecord(topicId, start + i, replicas, isrs[i]!));
      });
    }
    topics.push({ name: request.name, ...NO_ERROR });
    ctx.emit('controller.create-partitions', {
      topic: request.name,
      validateOnly,
      previousCount: start,
      count: request.count,
      assignment,
      leaders: isrs.map((isr) => isr[0]),
    });
  }
  return { records, response: { topics } };
}

function planPartitions(
  ctx: ControlContext,
  request: CreatePartitionsRequest['topics'][number],
): { topicId: string; start: number; assignment: number[][]; isrs: number[][] } {
  const image = ctx.image;
  const topic = topicByName(image, request.name);
  if (!topic) fail('UNKNOWN_TOPIC_OR_PARTITION');
  const current = topic.partitions.length;
  if (request.count === current) fail('INVALID_PARTITIONS', `Topic already has ${current} partition(s).`);
  if (request.count < current) {
    fail(
      'INVALID_PARTITIONS',
      `The topic ${request.name} currently has ${current} partition(s); ${request.count} would not be an increase.`,
    );
  }
  const additional = request.count - current;
  if (request.assignments && request.assignments.length !== additional) {
    fail(
      'INVALID_REPLICA_ASSIGNMENT',
      `Attempted to add ${additional} additional partition(s), but only ${request.assignments.length} assignment(s) were specified.`,
    );
  }
  const first = topic.partitions[0];
  if (!first)
    fail('UNKNOWN_SERVER_ERROR', `Invalid state: topic ${request.name} appears to have no partitions.`);
  const replicationFactor = first.replicas.length;
  let assignment: number[][];
  if (request.assignments) {
    assignment = request.assignments.map((replicas, i) => {
      validateManualAssignment(image, replicas, replicationFactor);
      if (!replicas.some((id) => isActiveBroker(image, id))) {
        fail(
          'INVALID_REPLICA_ASSIGNMENT',
          `All brokers specified in the manual partition assignment for partition ${current + i} are fenced or in controlled shutdown.`,
        );
      }
      return [...replicas];
    });
  } else {
    // Kafka lets the placer's own message through here, without the "Unable to replicate" prefix.
    assignment = place(ctx, additional, replicationFactor, (reason) =>
      fail('INVALID_REPLICATION_FACTOR', reason),
    );
  }
  const isrs = assignment.map((replicas) => replicas.filter((id) => isActiveBroker(image, id)));
  if (isrs.some((isr) => isr.length === 0)) {
    fail(
      'INVALID_REPLICATION_FACTOR',
      `Unable to replicate the partition ${replicationFactor} time(s): All brokers are currently fenced or in controlled shutdown.`,
    );
  }
  return { topicId: topic.topicId, start: current, assignment, isrs };
}
