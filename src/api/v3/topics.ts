// Topics: list, get, create (partitions_count, replication_factor, configs, replicas_assignments, validate_only),
// PATCH partitions_count, delete. Changes go to the simulated controller through the admin client, taking
// virtual time like the real calls. Requests the controller would refuse are refused here first, with the
// controller's own message, so that a refused request leaves the simulation untouched.
// Facts: confluentinc/kafka-rest TopicsResource (201 + Location on create, 204 on delete), its api/v3/openapi.yaml,
// and the controller's checks (models/controller/topic-control.ts, Kafka's ReplicationControlManager).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  collidingTopic,
  invalidTopicNameReason,
  placeReplicas,
  ReplicaPlacementError,
  validateTopicConfigs,
} from '../../../models/controller/index.ts';
import { configMap, type MetadataImage, type TopicImage } from '../../../models/metadata/index.ts';
import type { NewTopic } from '../../cluster/index.ts';
import { type ApiContext, baseUrl, readImage, topicOf, worldOf } from '../context.ts';
import { kafkaBadRequest, restErrorOfCode, unknownTopicOrPartition } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import type { World } from '../world.ts';
import { Links, resource, resourceList } from './resources.ts';
import {
  createTopicBody,
  listSchema,
  params,
  REQUEST_LIMITS,
  topicData,
  updatePartitionCountBody,
} from './schemas.ts';

const TAGS = ['Topic (v3)'];

export function topicResource(
  links: Links,
  name: string,
  partitionsCount: number,
  replicationFactor: number,
) {
  return resource('KafkaTopic', links.url('topics', name), links.crn(`topic=${name}`), {
    cluster_id: links.clusterId,
    topic_name: name,
    is_internal: false,
    replication_factor: replicationFactor,
    partitions_count: partitionsCount,
    partitions: links.related('topics', name, 'partitions'),
    configs: links.related('topics', name, 'configs'),
    partition_reassignments: links.related('topics', name, 'partitions', '-', 'reassignment'),
  });
}

/** As Kafka's tools compute it: during a reassignment, the target size rather than the union being copied to. */
export function replicationFactorOf(t: TopicImage): number {
  const p = t.partitions[0];
  if (!p) return 0;
  return p.replicas.length - p.addingReplicas.length;
}

function topicResourceOf(links: Links, t: TopicImage) {
  return topicResource(links, t.name, t.partitions.length, replicationFactorOf(t));
}

export function totalPartitions(image: MetadataImage): number {
  let n = 0;
  for (const t of Object.values(image.topics)) n += t.partitions.length;
  return n;
}

interface CreateBody {
  topic_name: string;
  partitions_count?: number;
  replication_factor?: number;
  replicas_assignments?: { partition_id: number; broker_ids: number[] }[];
  configs?: { name: string; value?: string | null }[];
  validate_only?: boolean;
}

/** A placer that draws nothing: enough to run the placer's up-front checks without touching the seeded RNG. */
const NO_RANDOM = { int: (min: number) => min, shuffle: <T>(items: readonly T[]) => [...items] };

/**
 * The controller's CreateTopics checks against its committed image, in its order, with its messages (Kafka
 * answers them 400/40002 through the REST proxy).
 */
function checkCreate(world: World, body: CreateBody): NewTopic {
  const image = world.cluster.image;
  const config = world.cluster.controller.config;
  const name = body.topic_name;
  const invalid = invalidTopicNameReason(name);
  if (invalid) throw kafkaBadRequest(invalid);
  if (Object.hasOwn(image.topics, name)) throw kafkaBadRequest(`Topic '${name}' already exists.`);
  const collides = collidingTopic(name, Object.keys(image.topics));
  if (collides !== undefined)
    throw kafkaBadRequest(`Topic '${name}' collides with existing topic: ${collides}`);

  const configs = configMap();
  const nulls: string[] = [];
  for (const c of body.configs ?? []) {
    if (c.value === null || c.value === undefined) nulls.push(c.name);
    else configs[c.name] = c.value;
  }
  if (nulls.length > 0)
    throw kafkaBadRequest(`Null value not supported for topic configs: ${nulls.join(',')}`);
  const configError = validateTopicConfigs(configs);
  if (configError) throw kafkaBadRequest(configError.message);
  const shared = world.cluster.storage === 'shared';
  const topic: NewTopic = { name, ...(Object.keys(configs).length > 0 ? { configs } : {}) };

  if (body.replicas_assignments && body.replicas_assignments.length > 0) {
    if (body.replication_factor !== undefined && body.replication_factor !== -1)
      throw kafkaBadRequest(
        'A manual partition assignment was specified, but replication factor was not set to -1.',
      );
    if (body.partitions_count !== undefined && body.partitions_count !== -1)
      throw kafkaBadRequest(
        'A manual partition assignment was specified, but numPartitions was not set to -1.',
      );
    const byPartition = new Map<number, number[]>();
    for (const a of body.replicas_assignments) {
      if (byPartition.has(a.partition_id))
        throw kafkaBadRequest(`The manual partition assignment names partition ${a.partition_id} twice.`);
      byPartition.set(a.partition_id, a.broker_ids);
    }
    const assignments: number[][] = [];
    for (let p = 0; p < byPartition.size; p++) {
      const replicas = byPartition.get(p);
      if (!replicas)
        throw kafkaBadRequest(
          `The manual partition assignment must name partitions 0 to ${byPartition.size - 1}; partition ${p} is missing.`,
        );
      assignments.push(replicas);
    }
    checkPartitionBudget(image, assignments.length);
    checkManualAssignment(image, assignments, shared);
    topic.assignments = assignments;
    return topic;
  }

  const partitions = body.partitions_count ?? -1;
  const replicationFactor = body.replication_factor ?? -1;
  if (replicationFactor < -1 || replicationFactor === 0)
    throw kafkaBadRequest('Replication factor must be larger than 0, or -1 to use the default value.');
  if (partitions < -1 || partitions === 0)
    throw kafkaBadRequest('Number of partitions was set to an invalid non-positive value.');
  const count = partitions === -1 ? config['num.partitions'] : partitions;
  checkPartitionBudget(image, count);
  const rf =
    replicationFactor === -1 ? (shared ? 1 : config['default.replication.factor']) : replicationFactor;
  if (shared && rf !== 1) throw kafkaBadRequest(sharedModeMessage(rf));
  checkPlacement(image, rf, (reason) => `Unable to replicate the partition ${rf} time(s): ${reason}`);
  if (partitions !== -1) topic.partitions = partitions;
  if (replicationFactor !== -1) topic.replicationFactor = replicationFactor;
  return topic;
}

function sharedModeMessage(rf: number): string {
  return (
    'Replication factor must be 1 in shared storage mode: each partition has one replica and shared storage ' +
    `keeps the data durable (got ${rf}).`
  );
}

function checkPlacement(image: MetadataImage, rf: number, message: (reason: string) => string): void {
  const usable = Object.values(image.brokers)
    .filter((b) => !b.inControlledShutdown)
    .map((b) => ({ id: b.brokerId, rack: b.rack, fenced: b.fenced }));
  try {
    placeReplicas(usable, 0, rf, NO_RANDOM);
  } catch (e) {
    if (e instanceof ReplicaPlacementError) throw kafkaBadRequest(message(e.message));
    throw e;
  }
}

/** Kafka's validateManualPartitionAssignment messages, for every partition of the assignment. */
function checkManualAssignment(image: MetadataImage, assignments: number[][], shared: boolean): void {
  let replicationFactor: number | undefined;
  assignments.forEach((replicas, p) => {
    if (replicas.length === 0)
      throw kafkaBadRequest('The manual partition assignment includes an empty replica list.');
    const sorted = [...replicas].sort((a, b) => a - b);
    sorted.forEach((id, i) => {
      const b = Object.hasOwn(image.brokers, id) ? image.brokers[id] : undefined;
      if (!b)
        throw kafkaBadRequest(
          `The manual partition assignment includes broker ${id}, but no such broker is registered.`,
        );
      if (b.fenced)
        throw kafkaBadRequest(
          `The manual partition assignment includes broker ${id}, but this broker is currently fenced.`,
        );
      if (i > 0 && sorted[i - 1] === id)
        throw kafkaBadRequest(`The manual partition assignment includes the broker ${id} more than once.`);
    });
    if (replicationFactor !== undefined && replicas.length !== replicationFactor)
      throw kafkaBadRequest(
        `The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not ` +
          `consistent with previous partitions, which have ${replicationFactor} replica(s).`,
      );
    replicationFactor = replicas.length;
    if (p === 0 && shared && replicas.length !== 1) throw kafkaBadRequest(sharedModeMessage(replicas.length));
  });
}

function checkPartitionBudget(image: MetadataImage, adding: number): void {
  if (adding > REQUEST_LIMITS.maxPartitionsPerRequest)
    throw kafkaBadRequest(
      `kafkasim: one request may create at most ${REQUEST_LIMITS.maxPartitionsPerRequest} partitions, not ${adding}.`,
    );
  const total = totalPartitions(image);
  if (total + adding > REQUEST_LIMITS.maxPartitionsPerCluster)
    throw kafkaBadRequest(
      `kafkasim: a simulated cluster may hold at most ${REQUEST_LIMITS.maxPartitionsPerCluster} partitions ` +
        `(it has ${total}; ${adding} more were asked for).`,
    );
}

type Req = FastifyRequest<{ Params: { cluster_id: string; topic_name: string } }>;

export function registerTopicRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const linksOf = (req: FastifyRequest, world: World) => new Links(baseUrl(req), world.clusterId);

  app.get(
    '/v3/clusters/:cluster_id/topics',
    {
      schema: routeSchema({
        summary: 'List Topics',
        tags: TAGS,
        params: params('cluster_id'),
        ok: { 200: listSchema(topicData) },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const links = linksOf(req, world);
      const data = Object.values(readImage(world).topics)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((t) => topicResourceOf(links, t));
      return resourceList('KafkaTopicList', links.url('topics'), data);
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name',
    {
      schema: routeSchema({
        summary: 'Get Topic',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        ok: { 200: topicData },
      }),
    },
    async (req: Req) => {
      const world = worldOf(ctx, req.params.cluster_id);
      return topicResourceOf(linksOf(req, world), topicOf(readImage(world), req.params.topic_name));
    },
  );

  app.post(
    '/v3/clusters/:cluster_id/topics',
    {
      schema: routeSchema({
        summary: 'Create Topic',
        description:
          'Creates a topic through the simulated controller. 201 with a Location header; 200 when validate_only.',
        tags: TAGS,
        params: params('cluster_id'),
        body: createTopicBody,
        ok: { 200: topicData, 201: topicData },
      }),
    },
    async (
      req: FastifyRequest<{ Params: { cluster_id: string }; Body: CreateBody }>,
      reply: FastifyReply,
    ) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const links = linksOf(req, world);
      const topic = checkCreate(world, req.body);
      const validateOnly = req.body.validate_only === true;
      const result = await ctx.host.mutate(req, () => {
        const [r] = world.cluster.admin.createTopics([topic], validateOnly);
        const error = restErrorOfCode(r!);
        if (error) throw error;
        return r!;
      });
      const created = world.cluster.image.topics[topic.name];
      const body = created
        ? topicResourceOf(links, created)
        : topicResource(links, result.name, result.numPartitions, result.replicationFactor);
      if (validateOnly) return reply.code(200).send(body);
      return reply.code(201).header('location', body.metadata.self).send(body);
    },
  );

  app.patch(
    '/v3/clusters/:cluster_id/topics/:topic_name',
    {
      schema: routeSchema({
        summary: 'Update Partition Count',
        description: 'Increases the partition count (kafka-topics --alter --partitions).',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        body: updatePartitionCountBody,
        ok: { 200: topicData },
      }),
    },
    async (
      req: FastifyRequest<{
        Params: { cluster_id: string; topic_name: string };
        Body: { partitions_count: number };
      }>,
    ) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const name = req.params.topic_name;
      const image = world.cluster.image;
      const t = Object.hasOwn(image.topics, name) ? image.topics[name] : undefined;
      if (!t) throw unknownTopicOrPartition();
      const count = req.body.partitions_count;
      const current = t.partitions.length;
      if (count === current) throw kafkaBadRequest(`Topic already has ${current} partition(s).`);
      if (count < current)
        throw kafkaBadRequest(
          `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`,
        );
      checkPartitionBudget(image, count - current);
      checkPlacement(image, replicationFactorOf(t), (reason) => reason);
      await ctx.host.mutate(req, () => {
        const error = restErrorOfCode(world.cluster.admin.createPartitions(name, count));
        if (error) throw error;
      });
      return topicResourceOf(linksOf(req, world), world.cluster.image.topics[name]!);
    },
  );

  app.delete(
    '/v3/clusters/:cluster_id/topics/:topic_name',
    {
      schema: routeSchema({
        summary: 'Delete Topic',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        ok: { 204: null },
      }),
    },
    async (req: Req, reply: FastifyReply) => {
      const world = worldOf(ctx, req.params.cluster_id);
      const name = req.params.topic_name;
      if (!Object.hasOwn(world.cluster.image.topics, name)) throw unknownTopicOrPartition();
      await ctx.host.mutate(req, () => {
        const [r] = world.cluster.admin.deleteTopics([name]);
        const error = r ? restErrorOfCode(r) : undefined;
        if (error) throw error;
      });
      return reply.code(204).send();
    },
  );
}
