// Topic configs: list, get, set (PUT), reset (DELETE), batch alter (POST configs:alter), and every topic's
// configs (GET /topics/-/configs). Values come from the broker's view: the topic's override, else the broker's
// static config (server.properties), else Kafka's default, with the synonyms Kafka reports in that order.
// Facts: confluentinc/kafka-rest TopicConfigsResource / AlterTopicConfigBatchAction (204 on writes) and the
// controller's IncrementalAlterConfigs checks (models/controller config-control).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Broker } from '../../../models/broker/index.ts';
import { validateTopicConfigs } from '../../../models/controller/index.ts';
import {
  configMap,
  describeTopicConfigs,
  isForbiddenConfigName,
  TOPIC_CONFIGS_BY_NAME,
} from '../../../models/metadata/index.ts';
import type { AlterConfigOp } from '../../../models/protocol/index.ts';
import { type ApiContext, baseUrl, readBroker, topicOf, worldOf } from '../context.ts';
import { kafkaBadRequest, notFound, restErrorOfCode, unknownTopicOrPartition } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import type { World } from '../world.ts';
import { Links, resource, resourceList } from './resources.ts';
import { alterConfigBatchBody, listSchema, params, topicConfigData, updateConfigBody } from './schemas.ts';

const TAGS = ['Configs (v3)'];

function topicConfigs(links: Links, broker: Broker, topic: string) {
  const overrides = broker.image.configs.topic[topic] ?? {};
  return describeTopicConfigs(broker.image, topic, broker.staticConfigs).map((c) => {
    const key = TOPIC_CONFIGS_BY_NAME.get(c.name)!;
    const synonyms: { name: string; value: string | null; source: string }[] = [];
    if (overrides[c.name] !== undefined)
      synonyms.push({ name: c.name, value: overrides[c.name]!, source: 'DYNAMIC_TOPIC_CONFIG' });
    const fromBroker = broker.staticConfigs[key.brokerSynonym];
    if (fromBroker !== undefined)
      synonyms.push({ name: key.brokerSynonym, value: fromBroker, source: 'STATIC_BROKER_CONFIG' });
    synonyms.push({ name: key.brokerSynonym, value: key.default, source: 'DEFAULT_CONFIG' });
    return resource(
      'KafkaTopicConfig',
      links.url('topics', topic, 'configs', c.name),
      links.crn(`topic=${topic}`, `config=${c.name}`),
      {
        cluster_id: links.clusterId,
        topic_name: topic,
        name: c.name,
        value: c.value,
        is_default: c.source === 'DEFAULT_CONFIG',
        is_read_only: false,
        is_sensitive: false,
        source: c.source,
        synonyms,
      },
    );
  });
}

/** The controller's checks for an incremental alter of one topic, done before anything is sent. */
function checkAlter(world: World, topic: string, ops: AlterConfigOp[]): void {
  const image = world.cluster.image;
  if (!Object.hasOwn(image.topics, topic)) throw unknownTopicOrPartition();
  const seen = new Set<string>();
  for (const op of ops) {
    if (isForbiddenConfigName(op.name)) throw kafkaBadRequest(`Invalid config name: ${op.name}`);
    if (seen.has(op.name)) throw kafkaBadRequest('Error due to duplicate config keys');
    seen.add(op.name);
    if (op.op === 'SET' && (op.value === undefined || op.value === null))
      throw kafkaBadRequest(`Null value not supported for topic configs: ${op.name}`);
  }
  const next = configMap(image.configs.topic[topic] ?? {});
  for (const op of ops) {
    if (op.op === 'SET') next[op.name] = op.value!;
    else delete next[op.name];
  }
  const error = validateTopicConfigs(next);
  if (error) throw kafkaBadRequest(error.message);
}

async function alter(
  ctx: ApiContext,
  world: World,
  req: FastifyRequest,
  topic: string,
  ops: AlterConfigOp[],
  validateOnly = false,
) {
  checkAlter(world, topic, ops);
  await ctx.host.mutate(req, () => {
    const [r] = world.cluster.admin.call<{ resources: { errorCode: number; errorMessage?: string }[] }>({
      type: 'IncrementalAlterConfigs',
      resources: [{ resourceType: 'TOPIC', resourceName: topic, configs: ops }],
      validateOnly,
    }).resources;
    const error = r ? restErrorOfCode(r) : undefined;
    if (error) throw error;
  });
}

type Req = FastifyRequest<{ Params: { cluster_id: string; topic_name: string; name: string } }>;

export function registerConfigRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const read = (req: Req) => {
    const world = worldOf(ctx, req.params.cluster_id);
    return { world, links: new Links(baseUrl(req), world.clusterId), broker: readBroker(world) };
  };

  app.get(
    '/v3/clusters/:cluster_id/topics/-/configs',
    {
      schema: routeSchema({
        summary: 'List All Topic Configs',
        tags: TAGS,
        params: params('cluster_id'),
        ok: { 200: listSchema(topicConfigData) },
      }),
    },
    async (req: Req) => {
      const { links, broker } = read(req);
      const names = Object.keys(broker.image.topics).sort();
      const data = names.flatMap((t) => topicConfigs(links, broker, t));
      return resourceList('KafkaTopicConfigList', links.url('topics', '-', 'configs'), data);
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/configs',
    {
      schema: routeSchema({
        summary: 'List Topic Configs',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        ok: { 200: listSchema(topicConfigData) },
      }),
    },
    async (req: Req) => {
      const { links, broker } = read(req);
      const t = topicOf(broker.image, req.params.topic_name);
      return resourceList(
        'KafkaTopicConfigList',
        links.url('topics', t.name, 'configs'),
        topicConfigs(links, broker, t.name),
      );
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/configs/:name',
    {
      schema: routeSchema({
        summary: 'Get Topic Config',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'name'),
        ok: { 200: topicConfigData },
      }),
    },
    async (req: Req) => {
      const { links, broker } = read(req);
      const t = topicOf(broker.image, req.params.topic_name);
      const config = topicConfigs(links, broker, t.name).find((c) => c.name === req.params.name);
      if (!config) throw notFound(`Config ${req.params.name} cannot be found.`);
      return config;
    },
  );

  app.put(
    '/v3/clusters/:cluster_id/topics/:topic_name/configs/:name',
    {
      schema: routeSchema({
        summary: 'Update Topic Config',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'name'),
        body: updateConfigBody,
        ok: { 204: null },
      }),
    },
    async (
      req: FastifyRequest<{ Params: Req['params']; Body: { value?: string | null } }>,
      reply: FastifyReply,
    ) => {
      const world = worldOf(ctx, req.params.cluster_id);
      await alter(ctx, world, req, req.params.topic_name, [
        { name: req.params.name, op: 'SET', ...(req.body.value != null ? { value: req.body.value } : {}) },
      ]);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/v3/clusters/:cluster_id/topics/:topic_name/configs/:name',
    {
      schema: routeSchema({
        summary: 'Reset Topic Config',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'name'),
        ok: { 204: null },
      }),
    },
    async (req: Req, reply: FastifyReply) => {
      const world = worldOf(ctx, req.params.cluster_id);
      await alter(ctx, world, req, req.params.topic_name, [{ name: req.params.name, op: 'DELETE' }]);
      return reply.code(204).send();
    },
  );

  app.post(
    '/v3/clusters/:cluster_id/topics/:topic_name/configs::alter',
    {
      schema: routeSchema({
        summary: 'Batch Alter Topic Configs',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        body: alterConfigBatchBody,
        ok: { 204: null },
      }),
    },
    async (
      req: FastifyRequest<{
        Params: Req['params'];
        Body: {
          data: { name: string; value?: string | null; operation?: string | null }[];
          validate_only?: boolean;
        };
      }>,
      reply: FastifyReply,
    ) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const ops: AlterConfigOp[] = req.body.data.map((d) =>
        (d.operation ?? 'SET').toUpperCase() === 'DELETE'
          ? { name: d.name, op: 'DELETE' }
          : { name: d.name, op: 'SET', ...(d.value != null ? { value: d.value } : {}) },
      );
      await alter(ctx, world, req, req.params.topic_name, ops, req.body.validate_only === true);
      return reply.code(204).send();
    },
  );
}
