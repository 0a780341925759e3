// GET a topic's partitions and a partition's replicas (Confluent PartitionsResource, ReplicasResource): the
// leader is a link to its replica, a replica says whether it leads and whether it is in the ISR.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PartitionRegistration } from '../../../models/metadata/index.ts';
import { type ApiContext, baseUrl, partitionOf, readImage, topicOf, worldOf } from '../context.ts';
import { notFound } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import { Links, resource, resourceList } from './resources.ts';
import { listSchema, params, partitionData, replicaData } from './schemas.ts';

const TAGS = ['Partition (v3)'];

export function partitionResource(links: Links, topic: string, p: PartitionRegistration) {
  const id = p.partition;
  return resource(
    'KafkaPartition',
    links.url('topics', topic, 'partitions', id),
    links.crn(`topic=${topic}`, `partition=${id}`),
    {
      cluster_id: links.clusterId,
      topic_name: topic,
      partition_id: id,
      ...(p.leader >= 0
        ? { leader: links.related('topics', topic, 'partitions', id, 'replicas', p.leader) }
        : {}),
      replicas: links.related('topics', topic, 'partitions', id, 'replicas'),
      reassignment: links.related('topics', topic, 'partitions', id, 'reassignment'),
    },
  );
}

export function replicaResource(links: Links, topic: string, p: PartitionRegistration, brokerId: number) {
  const id = p.partition;
  return resource(
    'KafkaReplica',
    links.url('topics', topic, 'partitions', id, 'replicas', brokerId),
    links.crn(`topic=${topic}`, `partition=${id}`, `replica=${brokerId}`),
    {
      cluster_id: links.clusterId,
      topic_name: topic,
      partition_id: id,
      broker_id: brokerId,
      is_leader: p.leader === brokerId,
      is_in_sync: p.isr.includes(brokerId),
      broker: links.related('brokers', brokerId),
    },
  );
}

type Req = FastifyRequest<{
  Params: { cluster_id: string; topic_name: string; partition_id: number; broker_id: number };
}>;

export function registerPartitionRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const read = (req: Req) => {
    const world = worldOf(ctx, req.params.cluster_id);
    const links = new Links(baseUrl(req), world.clusterId);
    return { links, topic: topicOf(readImage(world), req.params.topic_name) };
  };

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/partitions',
    {
      schema: routeSchema({
        summary: 'List Partitions',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        ok: { 200: listSchema(partitionData) },
      }),
    },
    async (req: Req) => {
      const { links, topic } = read(req);
      const data = topic.partitions.map((p) => partitionResource(links, topic.name, p));
      return resourceList('KafkaPartitionList', links.url('topics', topic.name, 'partitions'), data);
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id',
    {
      schema: routeSchema({
        summary: 'Get Partition',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'partition_id'),
        ok: { 200: partitionData },
      }),
    },
    async (req: Req) => {
      const { links, topic } = read(req);
      return partitionResource(links, topic.name, partitionOf(topic, req.params.partition_id));
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id/replicas',
    {
      schema: routeSchema({
        summary: 'List Replicas',
        description: 'In replica-assignment order (the first is the preferred leader).',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'partition_id'),
        ok: { 200: listSchema(replicaData) },
      }),
    },
    async (req: Req) => {
      const { links, topic } = read(req);
      const p = partitionOf(topic, req.params.partition_id);
      const data = p.replicas.map((b) => replicaResource(links, topic.name, p, b));
      return resourceList(
        'KafkaReplicaList',
        links.url('topics', topic.name, 'partitions', p.partition, 'replicas'),
        data,
      );
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id/replicas/:broker_id',
    {
      schema: routeSchema({
        summary: 'Get Replica',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'partition_id', 'broker_id'),
        ok: { 200: replicaData },
      }),
    },
    async (req: Req) => {
      const { links, topic } = read(req);
      const p = partitionOf(topic, req.params.partition_id);
      if (!p.replicas.includes(req.params.broker_id))
        throw notFound(
          `Replica ${req.params.broker_id} of partition ${topic.name}-${p.partition} cannot be found.`,
        );
      return replicaResource(links, topic.name, p, req.params.broker_id);
    },
  );
}
