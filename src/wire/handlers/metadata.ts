// Metadata, DescribeCluster, DescribeConfigs and InitProducerId. Metadata is the answering broker's own image
// (stale as it is), with each broker's advertised listener address. In KRaft mode clients cannot reach the
// controller, so a broker names itself as the controller id and forwards admin requests (KIP-590); kafkasim does
// the same. Producer ids come from the same per-simulation sequence the simulated producers use.

import { nextProducerId } from '../../../models/clients/index.ts';
import type { DescribeConfigsResponse, MetadataResponse } from '../../../models/protocol/index.ts';
import { OFFSETS_TOPIC } from '../../../models/protocol/index.ts';
import type { Message } from '../codec/message-codec.ts';
import type { DescribeConfigsRequestData } from '../generated/describe-configs-request.ts';
import type { InitProducerIdRequestData } from '../generated/init-producer-id-request.ts';
import type { MetadataRequestData } from '../generated/metadata-request.ts';
import { call, type HandlerContext } from './context.ts';

const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

function advertisedBrokers(ctx: HandlerContext, res: MetadataResponse) {
  const out: { nodeId: number; host: string; port: number; rack: string | null }[] = [];
  for (const b of res.brokers) {
    const a = ctx.session.addressOf(b.brokerId);
    if (a) out.push({ nodeId: b.brokerId, host: a.host, port: a.port, rack: b.rack });
  }
  return out;
}

export function handleMetadata(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as MetadataRequestData;
  // v0 has no null (all topics) but an empty list means all; from v1 an empty list means none.
  const topics = req.topics === null ? null : req.topics.map((t) => t.name ?? '');
  call<MetadataResponse>(ctx, { type: 'Metadata', topics }, (res) => {
    ctx.respond({
      throttleTimeMs: 0,
      brokers: advertisedBrokers(ctx, res),
      clusterId: ctx.session.clusterId,
      controllerId: ctx.conn.brokerId ?? -1,
      topics: res.topics.map((t) => ({
        errorCode: t.errorCode,
        name: t.name,
        topicId: t.topicId ?? 'AAAAAAAAAAAAAAAAAAAAAA',
        isInternal: t.name === OFFSETS_TOPIC,
        partitions: t.partitions.map((p) => ({
          errorCode: p.errorCode,
          partitionIndex: p.partition,
          leaderId: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicaNodes: p.replicas,
          isrNodes: p.isr,
          offlineReplicas: [],
        })),
        topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      })),
      clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    });
  });
}

export function handleDescribeCluster(ctx: HandlerContext, _m: Message): void {
  const to = ctx.conn.node.broker ?? ctx.session.cluster.bootstrap()[0];
  call<MetadataResponse>(
    ctx,
    { type: 'Metadata', topics: [] },
    (res) => {
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        endpointType: 1,
        clusterId: ctx.session.clusterId,
        controllerId: ctx.conn.brokerId ?? res.brokers[0]?.brokerId ?? -1,
        brokers: advertisedBrokers(ctx, res).map((b) => ({
          brokerId: b.nodeId,
          host: b.host,
          port: b.port,
          rack: b.rack,
        })),
        clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      });
    },
    to !== undefined ? { to } : {},
  );
}

const RESOURCE_TOPIC = 2;
const RESOURCE_BROKER = 4;
/** DescribeConfigsResponse.ConfigSource values. */
const CONFIG_SOURCE: Record<string, number> = {
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
};

export function handleDescribeConfigs(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as DescribeConfigsRequestData;
  const known = req.resources.filter(
    (r) => r.resourceType === RESOURCE_TOPIC || r.resourceType === RESOURCE_BROKER,
  );
  call<DescribeConfigsResponse>(
    ctx,
    {
      type: 'DescribeConfigs',
      resources: known.map((r) => ({
        resourceType: r.resourceType === RESOURCE_TOPIC ? 'TOPIC' : 'BROKER',
        resourceName: r.resourceName,
      })),
    },
    (res) => {
      const results = req.resources.map((r) => {
        const i = known.indexOf(r);
        const answer = i >= 0 ? res.resources[i] : undefined;
        if (!answer)
          return {
            errorCode: 42,
            errorMessage: `resource type ${r.resourceType} is not modelled`,
            resourceType: r.resourceType,
            resourceName: r.resourceName,
            configs: [],
          };
        const keys = r.configurationKeys ? new Set(r.configurationKeys) : undefined;
        return {
          errorCode: answer.errorCode,
          errorMessage: answer.errorMessage ?? null,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          configs: answer.configs
            .filter((c) => !keys || keys.has(c.name))
            .map((c) => ({
              name: c.name,
              value: c.value,
              readOnly: false,
              isDefault: c.isDefault,
              configSource: CONFIG_SOURCE[c.source] ?? 0,
              isSensitive: false,
              synonyms: [],
              configType: 0,
              documentation: null,
            })),
        };
      });
      ctx.respond({ throttleTimeMs: 0, results });
    },
  );
}

export function handleInitProducerId(ctx: HandlerContext, m: Message): void {
  const req = m as unknown as InitProducerIdRequestData;
  if (req.transactionalId !== null) {
    return ctx.respond({ throttleTimeMs: 0, errorCode: 53, producerId: -1, producerEpoch: -1 });
  }
  // A producer re-initialising (KIP-360: producerId and epoch given) gets a fresh id, as for a new producer.
  ctx.respond({
    throttleTimeMs: 0,
    errorCode: 0,
    producerId: nextProducerId(ctx.conn.node.sim),
    producerEpoch: 0,
  });
}
