// GET /v3/clusters, /v3/clusters/{cluster_id}, its brokers, a broker's configs and the replicas it hosts.
// Shapes: confluentinc/kafka-rest ClustersResource, BrokersResource, BrokerConfigsResource and
// SearchReplicasByBrokerAction (and its api/v3/openapi.yaml).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BrokerRegistration, MetadataImage } from '../../../models/metadata/index.ts';
import { TOPIC_CONFIGS } from '../../../models/metadata/index.ts';
import { type ApiContext, baseUrl, readBroker, readImage, worldOf } from '../context.ts';
import { notFound } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import type { World } from '../world.ts';
import { replicaResource } from './partitions.ts';
import { Links, resource, resourceList } from './resources.ts';
import { brokerConfigData, brokerData, clusterData, listSchema, params, replicaData } from './schemas.ts';

const TAGS = ['Cluster (v3)'];

/** Registered, unfenced brokers: what DescribeCluster lists. */
export function liveBrokers(image: MetadataImage): BrokerRegistration[] {
  return Object.values(image.brokers)
    .filter((b) => !b.fenced)
    .sort((a, b) => a.brokerId - b.brokerId);
}

function clusterResource(links: Links, image: MetadataImage) {
  // KRaft brokers answer DescribeCluster with a live broker as "controller" (clients cannot reach controllers);
  // the lowest id keeps it deterministic.
  const controller = liveBrokers(image)[0];
  return resource('KafkaCluster', links.url(), links.crn(), {
    cluster_id: links.clusterId,
    ...(controller ? { controller: links.related('brokers', controller.brokerId) } : {}),
    acls: links.related('acls'),
    brokers: links.related('brokers'),
    broker_configs: links.related('broker-configs'),
    consumer_groups: links.related('consumer-groups'),
    topics: links.related('topics'),
    partition_reassignments: links.related('topics', '-', 'partitions', '-', 'reassignment'),
  });
}

function brokerResource(links: Links, b: BrokerRegistration) {
  return resource('KafkaBroker', links.url('brokers', b.brokerId), links.crn(`broker=${b.brokerId}`), {
    cluster_id: links.clusterId,
    broker_id: b.brokerId,
    host: b.host,
    port: b.port,
    rack: b.rack,
    configs: links.related('brokers', b.brokerId, 'configs'),
    partition_replicas: links.related('brokers', b.brokerId, 'partition-replicas'),
  });
}

function brokerOf(image: MetadataImage, id: number): BrokerRegistration {
  const b = Object.hasOwn(image.brokers, id) ? image.brokers[id] : undefined;
  if (!b || b.fenced) throw notFound(`Broker ${id} cannot be found.`);
  return b;
}

type Req = FastifyRequest<{ Params: { cluster_id: string; broker_id: number } }>;

export function registerClusterRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const linksOf = (req: FastifyRequest, world: World) => new Links(baseUrl(req), world.clusterId);

  app.get(
    '/v3/clusters',
    { schema: routeSchema({ summary: 'List Clusters', tags: TAGS, ok: { 200: listSchema(clusterData) } }) },
    async (req) => {
      const world = ctx.host.world;
      const links = linksOf(req, world);
      return resourceList('KafkaClusterList', `${links.base}/v3/clusters`, [
        clusterResource(links, readImage(world)),
      ]);
    },
  );

  app.get(
    '/v3/clusters/:cluster_id',
    {
      schema: routeSchema({
        summary: 'Get Cluster',
        tags: TAGS,
        params: params('cluster_id'),
        ok: { 200: clusterData },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      return clusterResource(linksOf(req, world), readImage(world));
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/brokers',
    {
      schema: routeSchema({
        summary: 'List Brokers',
        tags: TAGS,
        params: params('cluster_id'),
        ok: { 200: listSchema(brokerData) },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const links = linksOf(req, world);
      const data = liveBrokers(readImage(world)).map((b) => brokerResource(links, b));
      return resourceList('KafkaBrokerList', links.url('brokers'), data);
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/brokers/:broker_id',
    {
      schema: routeSchema({
        summary: 'Get Broker',
        tags: TAGS,
        params: params('cluster_id', 'broker_id'),
        ok: { 200: brokerData },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      return brokerResource(linksOf(req, world), brokerOf(readImage(world), req.params.broker_id));
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/brokers/:broker_id/partition-replicas',
    {
      schema: routeSchema({
        summary: 'Search Replicas by Broker',
        tags: TAGS,
        params: params('cluster_id', 'broker_id'),
        ok: { 200: listSchema(replicaData) },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const links = linksOf(req, world);
      const image = readImage(world);
      const id = brokerOf(image, req.params.broker_id).brokerId;
      const data = Object.values(image.topics)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .flatMap((t) =>
          t.partitions
            .filter((p) => p.replicas.includes(id))
            .map((p) => replicaResource(links, t.name, p, id)),
        );
      return resourceList('KafkaReplicaList', links.url('brokers', id, 'partition-replicas'), data);
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/brokers/:broker_id/configs',
    {
      schema: routeSchema({
        summary: 'List Broker Configs',
        description:
          "The broker's static configs (server.properties) and dynamic overrides that a topic config inherits from.",
        tags: TAGS,
        params: params('cluster_id', 'broker_id'),
        ok: { 200: listSchema(brokerConfigData) },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const links = linksOf(req, world);
      const image = readImage(world);
      const id = brokerOf(image, req.params.broker_id).brokerId;
      const broker = world.cluster.brokers.get(id) ?? readBroker(world);
      const dynamic = image.configs.broker[String(id)] ?? {};
      const clusterDefault = image.configs.broker[''] ?? {};
      const names = [...new Set(TOPIC_CONFIGS.map((k) => k.brokerSynonym))].sort();
      const data = names.map((name) => {
        const synonyms: { name: string; value: string | null; source: string }[] = [];
        if (dynamic[name] !== undefined)
          synonyms.push({ name, value: dynamic[name]!, source: 'DYNAMIC_BROKER_CONFIG' });
        if (clusterDefault[name] !== undefined)
          synonyms.push({ name, value: clusterDefault[name]!, source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
        if (broker.staticConfigs[name] !== undefined)
          synonyms.push({ name, value: broker.staticConfigs[name]!, source: 'STATIC_BROKER_CONFIG' });
        const def = TOPIC_CONFIGS.find((k) => k.brokerSynonym === name)!.default;
        synonyms.push({ name, value: def, source: 'DEFAULT_CONFIG' });
        const top = synonyms[0]!;
        return resource(
          'KafkaBrokerConfig',
          links.url('brokers', id, 'configs', name),
          links.crn(`broker=${id}`, `config=${name}`),
          {
            cluster_id: links.clusterId,
            broker_id: id,
            name,
            value: top.value,
            is_default: top.source === 'DEFAULT_CONFIG',
            is_read_only: false,
            is_sensitive: false,
            source: top.source,
            synonyms,
          },
        );
      });
      return resourceList('KafkaBrokerConfigList', links.url('brokers', id, 'configs'), data);
    },
  );
}
