// CreateTopics, DeleteTopics, CreatePartitions, IncrementalAlterConfigs, AlterPartitionReassignments,
// ListPartitionReassignments: forwarded to the active controller (KIP-590) and answered with its result, Kafka's
// error codes and messages as the controller model produces them.
import type {
  AlterConfigOp,
  AlterPartitionReassignmentsResponse,
  CreatePartitionsResponse,
  CreateTopicsResponse,
  DeleteTopicsResponse,
  IncrementalAlterConfigsResponse,
  ListPartitionReassignmentsResponse,
} from '../../../models/protocol/index.ts';
import type { Message } from '../codec/message-codec.ts';
import type { AlterPartitionReassignmentsRequestData } from '../generated/alter-partition-reassignments-request.ts';
import type { CreatePartitionsRequestData } from '../generated/create-partitions-request.ts';
import type { CreateTopicsRequestData } from '../generated/create-topics-request.ts';
import type { DeleteTopicsRequestData } from '../generated/delete-topics-request.ts';
import type { IncrementalAlterConfigsRequestData } from '../generated/incremental-alter-configs-request.ts';
import type { ListPartitionReassignmentsRequestData } from '../generated/list-partition-reassignments-request.ts';
import { byTopic, controllerCall, type HandlerContext } from './context.ts';

const INVALID_REQUEST = 42;
const RESOURCE_TOPIC = 2;
const RESOURCE_BROKER = 4;

export function handleCreateTopics(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as CreateTopicsRequestData;
  controllerCall<CreateTopicsResponse>(
    ctx,
    {
      type: 'CreateTopics',
      validateOnly: req.validateOnly,
      topics: req.topics.map((t) => ({
        name: t.name,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        ...(t.assignments.length > 0
          ? {
              assignments: [...t.assignments]
                .sort((a, b) => a.partitionIndex - b.partitionIndex)
                .map((a) => a.brokerIds),
            }
          : {}),
        ...(t.configs.length > 0
          ? { configs: Object.fromEntries(t.configs.map((c) => [c.name, c.value ?? ''])) }
          : {}),
      })),
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        topics: res.topics.map((t) => ({
          name: t.name,
          topicId: t.topicId ?? 'AAAAAAAAAAAAAAAAAAAAAA',
          errorCode: t.errorCode,
          errorMessage: t.errorMessage ?? null,
          numPartitions: t.errorCode === 0 ? t.numPartitions : -1,
          replicationFactor: t.errorCode === 0 ? t.replicationFactor : -1,
          configs:
            t.errorCode === 0
              ? Object.entries(t.configs).map(([name, value]) => ({
                  name,
                  value,
                  readOnly: false,
                  configSource: 5,
                  isSensitive: false,
                }))
              : null,
        })),
      }),
  );
}

export function handleDeleteTopics(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as DeleteTopicsRequestData;
  controllerCall<DeleteTopicsResponse>(ctx, { type: 'DeleteTopics', topics: req.topicNames }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      responses: res.topics.map((t) => ({
        name: t.name,
        errorCode: t.errorCode,
        errorMessage: t.errorMessage ?? null,
      })),
    }),
  );
}

export function handleCreatePartitions(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as CreatePartitionsRequestData;
  controllerCall<CreatePartitionsResponse>(
    ctx,
    {
      type: 'CreatePartitions',
      validateOnly: req.validateOnly,
      topics: req.topics.map((t) => ({
        name: t.name,
        count: t.count,
        ...(t.assignments ? { assignments: t.assignments.map((a) => a.brokerIds) } : {}),
      })),
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        results: res.topics.map((t) => ({
          name: t.name,
          errorCode: t.errorCode,
          errorMessage: t.errorMessage ?? null,
        })),
      }),
  );
}

/** IncrementalAlterConfigs operations: 0 SET, 1 DELETE (APPEND and SUBTRACT act on list configs, not modelled). */
export function handleIncrementalAlterConfigs(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as IncrementalAlterConfigsRequestData;
  const modelled = (r: (typeof req.resources)[number]) =>
    (r.resourceType === RESOURCE_TOPIC || r.resourceType === RESOURCE_BROKER) &&
    r.configs.every((c) => c.configOperation === 0 || c.configOperation === 1);
  const known = req.resources.filter(modelled);
  const respond = (answers: IncrementalAlterConfigsResponse['resources']) =>
    ctx.respond({
      throttleTimeMs: 0,
      responses: req.resources.map((r) => {
        const i = known.indexOf(r);
        const a = i >= 0 ? answers[i] : undefined;
        return {
          errorCode: a ? a.errorCode : INVALID_REQUEST,
          errorMessage: a
            ? (a.errorMessage ?? null)
            : 'only SET and DELETE on topic and broker configs are modelled',
          resourceType: r.resourceType,
          resourceName: r.resourceName,
        };
      }),
    });
  if (known.length === 0) return respond([]);
  controllerCall<IncrementalAlterConfigsResponse>(
    ctx,
    {
      type: 'IncrementalAlterConfigs',
      validateOnly: req.validateOnly,
      resources: known.map((r) => ({
        resourceType: r.resourceType === RESOURCE_TOPIC ? 'TOPIC' : 'BROKER',
        resourceName: r.resourceName,
        configs: r.configs.map(
          (c): AlterConfigOp =>
            c.configOperation === 0
              ? { name: c.name, op: 'SET', value: c.value ?? '' }
              : { name: c.name, op: 'DELETE' },
        ),
      })),
    },
    (res) => respond(res.resources),
  );
}

export function handleAlterPartitionReassignments(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as AlterPartitionReassignmentsRequestData;
  controllerCall<AlterPartitionReassignmentsResponse>(
    ctx,
    {
      type: 'AlterPartitionReassignments',
      partitions: req.topics.flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas })),
      ),
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: res.errorCode,
        errorMessage: res.errorMessage ?? null,
        responses: [...byTopic(res.partitions, (p) => p.topic)].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({
            partitionIndex: p.partition,
            errorCode: p.errorCode,
            errorMessage: p.errorMessage ?? null,
          })),
        })),
      }),
  );
}

export function handleListPartitionReassignments(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as ListPartitionReassignmentsRequestData;
  controllerCall<ListPartitionReassignmentsResponse>(
    ctx,
    {
      type: 'ListPartitionReassignments',
      ...(req.topics
        ? {
            partitions: req.topics.flatMap((t) =>
              t.partitionIndexes.map((partition) => ({ topic: t.name, partition })),
            ),
          }
        : {}),
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: res.errorCode,
        errorMessage: res.errorMessage ?? null,
        topics: [...byTopic(res.reassignments, (r) => r.topic)].map(([name, rs]) => ({
          name,
          partitions: rs.map((r) => ({
            partitionIndex: r.partition,
            replicas: r.replicas,
            addingReplicas: r.addingReplicas,
            removingReplicas: r.removingReplicas,
          })),
        })),
      }),
  );
}
