// Partition reassignments. The GET paths are the spec's (ongoing reassignments: every one, a topic's, one
// partition's). The write is kafkasim's documented extension on the spec's own path: POST
// /v3/clusters/{c}/topics/-/partitions/-/reassignment with Kafka's reassignment JSON (the file
// kafka-reassign-partitions --execute reads) starts the moves, as Admin.alterPartitionReassignments does.
// Facts: confluentinc/kafka-rest api/v3/openapi.yaml, ListAllReassignmentsAction, SearchReassignmentsByTopicAction,
// GetReassignmentAction; apache/kafka ReassignPartitionsCommand (verifyBrokerIds, the error text).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MetadataImage, PartitionRegistration } from '../../../models/metadata/index.ts';
import { isReassigning } from '../../../models/metadata/index.ts';
import { toKafkaError } from '../../cluster/index.ts';
import {
  FormatInputError,
  parseReassignmentJson,
  type ReassignmentEntry,
  tpString,
} from '../../format/index.ts';
import { type ApiContext, baseUrl, partitionOf, topicOf, worldOf } from '../context.ts';
import { kafkaBadRequest, notFound, restErrorOfCode, unknownTopicOrPartition } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import { Links, resource, resourceList } from './resources.ts';
import { listSchema, params, reassignmentData, reassignmentJsonBody } from './schemas.ts';

const TAGS = ['Partition (v3)'];

function reassignmentResource(links: Links, topic: string, p: PartitionRegistration) {
  const id = p.partition;
  return resource(
    'KafkaReassignment',
    links.url('topics', topic, 'partitions', id, 'reassignment'),
    links.crn(`topic=${topic}`, `partition=${id}`, 'reassignment'),
    {
      cluster_id: links.clusterId,
      topic_name: topic,
      partition_id: id,
      adding_replicas: [...p.addingReplicas],
      removing_replicas: [...p.removingReplicas],
      replicas: links.related('topics', topic, 'partitions', id, 'replicas'),
    },
  );
}

function ongoing(image: MetadataImage, topic?: string) {
  const names = topic === undefined ? Object.keys(image.topics).sort() : [topic];
  return names.flatMap((name) =>
    (image.topics[name]?.partitions ?? []).filter(isReassigning).map((p) => ({ name, p })),
  );
}

/** What the tool and the controller would refuse, checked before anything is sent. */
function checkReassignment(
  image: MetadataImage,
  shared: boolean,
  entries: readonly ReassignmentEntry[],
): void {
  // ReassignPartitionsCommand.verifyBrokerIds: every target broker must be one the cluster describes.
  const known = new Set(Object.values(image.brokers).map((b) => b.brokerId));
  for (const e of entries) {
    const unknown = e.replicas.find((id) => !known.has(id));
    if (unknown !== undefined) throw kafkaBadRequest(`Unknown broker id ${unknown}`);
  }
  for (const e of entries) {
    const t = Object.hasOwn(image.topics, e.topic) ? image.topics[e.topic] : undefined;
    if (!t || !t.partitions[e.partition]) throw unknownTopicOrPartition();
    if (shared && e.replicas.length !== 1)
      throw kafkaBadRequest(
        `Shared storage mode supports exactly one replica per partition; partition ${tpString(e)} was given ` +
          `replicas [${e.replicas.join(', ')}].`,
      );
    for (const id of e.replicas) {
      if (image.brokers[id]?.fenced)
        throw kafkaBadRequest(
          `The manual partition assignment includes broker ${id}, but this broker is currently fenced.`,
        );
    }
  }
}

type Req = FastifyRequest<{ Params: { cluster_id: string; topic_name: string; partition_id: number } }>;

export function registerReassignmentRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const read = (req: Req) => {
    const world = worldOf(ctx, req.params.cluster_id);
    return { world, links: new Links(baseUrl(req), world.clusterId), image: world.cluster.image };
  };

  app.get(
    '/v3/clusters/:cluster_id/topics/-/partitions/-/reassignment',
    {
      schema: routeSchema({
        summary: 'List All Replica Reassignments',
        tags: TAGS,
        params: params('cluster_id'),
        ok: { 200: listSchema(reassignmentData) },
      }),
    },
    async (req: Req) => {
      const { links, image } = read(req);
      const data = ongoing(image).map(({ name, p }) => reassignmentResource(links, name, p));
      return resourceList(
        'KafkaReassignmentList',
        links.url('topics', '-', 'partitions', '-', 'reassignment'),
        data,
      );
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/partitions/-/reassignment',
    {
      schema: routeSchema({
        summary: 'Search Replica Reassignments by Topic',
        tags: TAGS,
        params: params('cluster_id', 'topic_name'),
        ok: { 200: listSchema(reassignmentData) },
      }),
    },
    async (req: Req) => {
      const { links, image } = read(req);
      const t = topicOf(image, req.params.topic_name);
      const data = ongoing(image, t.name).map(({ name, p }) => reassignmentResource(links, name, p));
      return resourceList(
        'KafkaReassignmentList',
        links.url('topics', t.name, 'partitions', '-', 'reassignment'),
        data,
      );
    },
  );

  app.get(
    '/v3/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id/reassignment',
    {
      schema: routeSchema({
        summary: 'Get Replica Reassignment',
        tags: TAGS,
        params: params('cluster_id', 'topic_name', 'partition_id'),
        ok: { 200: reassignmentData },
      }),
    },
    async (req: Req) => {
      const { links, image } = read(req);
      const t = topicOf(image, req.params.topic_name);
      const p = partitionOf(t, req.params.partition_id);
      if (!isReassigning(p)) throw notFound(`No ongoing reassignment of partition ${t.name}-${p.partition}.`);
      return reassignmentResource(links, t.name, p);
    },
  );

  app.post(
    '/v3/clusters/:cluster_id/topics/-/partitions/-/reassignment',
    {
      schema: routeSchema({
        summary: 'Start Replica Reassignments (kafkasim extension)',
        description:
          "kafkasim's write extension on the spec's path: the body is Kafka's reassignment JSON, as read by " +
          '`kafka-reassign-partitions --reassignment-json-file F --execute` ({"version":1,"partitions":' +
          '[{"topic":"t","partition":0,"replicas":[1,2]}]}). Starts the moves (Admin.alterPartitionReassignments) ' +
          'and answers 202 with the partitions named, as they are right after the request.',
        tags: TAGS,
        params: params('cluster_id'),
        body: reassignmentJsonBody,
        ok: { 202: listSchema(reassignmentData) },
      }),
    },
    async (req: FastifyRequest<{ Params: { cluster_id: string }; Body: unknown }>, reply: FastifyReply) => {
      const world = worldOf(ctx, req.params.cluster_id);
      let entries: readonly ReassignmentEntry[];
      try {
        entries = parseReassignmentJson(JSON.stringify(req.body)).partitions;
      } catch (e) {
        if (e instanceof FormatInputError) throw kafkaBadRequest(e.message);
        throw e;
      }
      checkReassignment(world.cluster.image, world.cluster.storage === 'shared', entries);
      await ctx.host.mutate(req, () => {
        const response = world.cluster.admin.alterPartitionReassignments(
          entries.map((e) => ({ topic: e.topic, partition: e.partition, replicas: [...e.replicas] })),
        );
        const top = restErrorOfCode(response);
        if (top) throw top;
        const failed = response.partitions
          .filter((p) => p.errorCode !== 0)
          .sort((a, b) => (a.topic !== b.topic ? (a.topic < b.topic ? -1 : 1) : a.partition - b.partition))
          .map((p) => `${tpString(p)}: ${toKafkaError(p)!.message}`);
        // ReassignPartitionsCommand.executeAssignment's text for per-partition failures.
        if (failed.length > 0) throw kafkaBadRequest(`Error reassigning partition(s):\n${failed.join('\n')}`);
      });
      const links = new Links(baseUrl(req), world.clusterId);
      const image = world.cluster.image;
      const data = entries.map((e) =>
        reassignmentResource(links, e.topic, image.topics[e.topic]!.partitions[e.partition]!),
      );
      return reply
        .code(202)
        .send(
          resourceList(
            'KafkaReassignmentList',
            links.url('topics', '-', 'partitions', '-', 'reassignment'),
            data,
          ),
        );
    },
  );
}
