// Consumer groups, consumers, assignments, lags and the lag summary (Confluent ConsumerGroupsResource,
// ConsumersResource, ConsumerAssignmentsResource, ConsumerLagsResource, ConsumerGroupLagSummariesResource).
// Lags are computed as kafka-rest does: for each committed partition, log end offset (the high watermark, what
// ListOffsets(latest) answers) minus the committed offset. Served when the build runs group coordinators.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ApiContext, baseUrl, worldOf } from '../context.ts';
import { notFound } from '../errors.ts';
import { type GroupInfo, type GroupMemberInfo, groupsOf } from '../optional-modules.ts';
import { routeSchema } from '../route-schema.ts';
import type { World } from '../world.ts';
import { Links, resource, resourceList } from './resources.ts';
import {
  consumerAssignmentData,
  consumerData,
  consumerGroupData,
  consumerGroupLagSummaryData,
  consumerLagData,
  listSchema,
  params,
} from './schemas.ts';

const TAGS = ['Consumer Group (v3)'];

/** ConsumerGroupState -> the spec's enum (STABLE, PREPARING_REBALANCE...). */
function restState(state: string): string {
  return state.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/** The high watermark of a partition, read from its leader's log (or the shared log); null when unknown. */
export function logEndOffset(world: World, topic: string, partition: number): number | null {
  const cluster = world.cluster;
  const t = cluster.image.topics[topic];
  const reg = t?.partitions[partition];
  if (!t || !reg) return null;
  if (cluster.shared) return cluster.shared.get(t.topicId, partition)?.highWatermark ?? null;
  if (reg.leader < 0) return null;
  return (
    cluster.brokers.get(reg.leader)?.replicas.get(`${t.topicId}:${partition}`)?.log.highWatermark ?? null
  );
}

interface Lag {
  topic: string;
  partition: number;
  current: number;
  end: number;
  lag: number;
  member: GroupMemberInfo | undefined;
}

function lagsOf(world: World, g: GroupInfo): Lag[] {
  const owner = new Map<string, GroupMemberInfo>();
  for (const m of g.members) for (const tp of m.assignment) owner.set(`${tp.topic}\u0000${tp.partition}`, m);
  return g.offsets
    .map((o) => {
      const end = logEndOffset(world, o.topic, o.partition) ?? o.committedOffset;
      return {
        topic: o.topic,
        partition: o.partition,
        current: o.committedOffset,
        end,
        lag: Math.max(0, end - o.committedOffset),
        member: owner.get(`${o.topic}\u0000${o.partition}`),
      };
    })
    .sort((a, b) => (a.topic !== b.topic ? (a.topic < b.topic ? -1 : 1) : a.partition - b.partition));
}

type Params = {
  cluster_id: string;
  consumer_group_id: string;
  consumer_id: string;
  topic_name: string;
  partition_id: number;
};
type Req = FastifyRequest<{ Params: Params }>;

export function registerGroupRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const read = (req: Req) => {
    const world = worldOf(ctx, req.params.cluster_id);
    const groups = groupsOf(world);
    return { world, groups, links: new Links(baseUrl(req), world.clusterId) };
  };
  const groupOf = (req: Req) => {
    const r = read(req);
    const g = r.groups.describe(req.params.consumer_group_id);
    if (!g || g.state === 'Dead')
      throw notFound(`Consumer group ${req.params.consumer_group_id} cannot be found.`);
    return { ...r, g };
  };
  const memberOf = (g: GroupInfo, id: string) => {
    const m = g.members.find((x) => x.consumerId === id);
    if (!m) throw notFound(`Consumer ${id} cannot be found.`);
    return m;
  };

  const groupResource = (links: Links, g: GroupInfo) =>
    resource(
      'KafkaConsumerGroup',
      links.url('consumer-groups', g.groupId),
      links.crn(`consumer-group=${g.groupId}`),
      {
        cluster_id: links.clusterId,
        consumer_group_id: g.groupId,
        is_simple: g.isSimple,
        partition_assignor: g.assignor,
        state: restState(g.state),
        // kafka-rest's GroupType: CLASSIC, or CONSUMER for a KIP-848 group (no mixed groups: classic members
        // never join a consumer-protocol group here).
        type: g.type === 'consumer' ? 'CONSUMER' : 'CLASSIC',
        is_mixed_consumer_group: false,
        coordinator: links.related('brokers', g.coordinator.id),
        consumers: links.related('consumer-groups', g.groupId, 'consumers'),
        lag_summary: links.related('consumer-groups', g.groupId, 'lag-summary'),
      },
    );
  const consumerResource = (links: Links, g: GroupInfo, m: GroupMemberInfo) =>
    resource(
      'KafkaConsumer',
      links.url('consumer-groups', g.groupId, 'consumers', m.consumerId),
      links.crn(`consumer-group=${g.groupId}`, `consumer=${m.consumerId}`),
      {
        cluster_id: links.clusterId,
        consumer_group_id: g.groupId,
        consumer_id: m.consumerId,
        instance_id: m.groupInstanceId,
        client_id: m.clientId,
        assignments: links.related('consumer-groups', g.groupId, 'consumers', m.consumerId, 'assignments'),
      },
    );
  const assignmentResource = (
    links: Links,
    g: GroupInfo,
    m: GroupMemberInfo,
    topic: string,
    partition: number,
  ) =>
    resource(
      'KafkaConsumerAssignment',
      links.url(
        'consumer-groups',
        g.groupId,
        'consumers',
        m.consumerId,
        'assignments',
        topic,
        'partitions',
        partition,
      ),
      links.crn(
        `consumer-group=${g.groupId}`,
        `consumer=${m.consumerId}`,
        `assignment=${topic}`,
        `partition=${partition}`,
      ),
      {
        cluster_id: links.clusterId,
        consumer_group_id: g.groupId,
        consumer_id: m.consumerId,
        topic_name: topic,
        partition_id: partition,
        partition: links.related('topics', topic, 'partitions', partition),
        lag: links.related('consumer-groups', g.groupId, 'lags', topic, 'partitions', partition),
      },
    );
  const lagResource = (links: Links, g: GroupInfo, l: Lag) =>
    resource(
      'KafkaConsumerLag',
      links.url('consumer-groups', g.groupId, 'lags', l.topic, 'partitions', l.partition),
      links.crn(`consumer-group=${g.groupId}`, `lag=${l.topic}`, `partition=${l.partition}`),
      {
        cluster_id: links.clusterId,
        consumer_group_id: g.groupId,
        topic_name: l.topic,
        partition_id: l.partition,
        current_offset: l.current,
        log_end_offset: l.end,
        lag: l.lag,
        consumer_id: l.member?.consumerId ?? '',
        instance_id: l.member?.groupInstanceId ?? null,
        client_id: l.member?.clientId ?? '',
      },
    );

  const base = '/v3/clusters/:cluster_id/consumer-groups';

  app.get(
    base,
    {
      schema: routeSchema({
        summary: 'List Consumer Groups',
        tags: TAGS,
        params: params('cluster_id'),
        ok: { 200: listSchema(consumerGroupData) },
      }),
    },
    async (req: Req) => {
      const { groups, links } = read(req);
      const data = groups
        .groupIds()
        .sort()
        .map((id) => groups.describe(id))
        .filter((g): g is GroupInfo => g !== undefined && g.state !== 'Dead')
        .map((g) => groupResource(links, g));
      return resourceList('KafkaConsumerGroupList', links.url('consumer-groups'), data);
    },
  );

  app.get(
    `${base}/:consumer_group_id`,
    {
      schema: routeSchema({
        summary: 'Get Consumer Group',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id'),
        ok: { 200: consumerGroupData },
      }),
    },
    async (req: Req) => {
      const { g, links } = groupOf(req);
      return groupResource(links, g);
    },
  );

  app.get(
    `${base}/:consumer_group_id/consumers`,
    {
      schema: routeSchema({
        summary: 'List Consumers',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id'),
        ok: { 200: listSchema(consumerData) },
      }),
    },
    async (req: Req) => {
      const { g, links } = groupOf(req);
      const data = g.members.map((m) => consumerResource(links, g, m));
      return resourceList('KafkaConsumerList', links.url('consumer-groups', g.groupId, 'consumers'), data);
    },
  );

  app.get(
    `${base}/:consumer_group_id/consumers/:consumer_id`,
    {
      schema: routeSchema({
        summary: 'Get Consumer',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id', 'consumer_id'),
        ok: { 200: consumerData },
      }),
    },
    async (req: Req) => {
      const { g, links } = groupOf(req);
      return consumerResource(links, g, memberOf(g, req.params.consumer_id));
    },
  );

  app.get(
    `${base}/:consumer_group_id/consumers/:consumer_id/assignments`,
    {
      schema: routeSchema({
        summary: 'List Consumer Assignments',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id', 'consumer_id'),
        ok: { 200: listSchema(consumerAssignmentData) },
      }),
    },
    async (req: Req) => {
      const { g, links } = groupOf(req);
      const m = memberOf(g, req.params.consumer_id);
      const data = m.assignment.map((tp) => assignmentResource(links, g, m, tp.topic, tp.partition));
      return resourceList(
        'KafkaConsumerAssignmentList',
        links.url('consumer-groups', g.groupId, 'consumers', m.consumerId, 'assignments'),
        data,
      );
    },
  );

  app.get(
    `${base}/:consumer_group_id/consumers/:consumer_id/assignments/:topic_name/partitions/:partition_id`,
    {
      schema: routeSchema({
        summary: 'Get Consumer Assignment',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id', 'consumer_id', 'topic_name', 'partition_id'),
        ok: { 200: consumerAssignmentData },
      }),
    },
    async (req: Req) => {
      const { g, links } = groupOf(req);
      const m = memberOf(g, req.params.consumer_id);
      const { topic_name: topic, partition_id: partition } = req.params;
      if (!m.assignment.some((tp) => tp.topic === topic && tp.partition === partition))
        throw notFound(`Consumer ${m.consumerId} is not assigned ${topic}-${partition}.`);
      return assignmentResource(links, g, m, topic, partition);
    },
  );

  app.get(
    `${base}/:consumer_group_id/lags`,
    {
      schema: routeSchema({
        summary: 'List Consumer Lags',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id'),
        ok: { 200: listSchema(consumerLagData) },
      }),
    },
    async (req: Req) => {
      const { world, g, links } = groupOf(req);
      const data = lagsOf(world, g).map((l) => lagResource(links, g, l));
      return resourceList('KafkaConsumerLagList', links.url('consumer-groups', g.groupId, 'lags'), data);
    },
  );

  app.get(
    `${base}/:consumer_group_id/lags/:topic_name/partitions/:partition_id`,
    {
      schema: routeSchema({
        summary: 'Get Consumer Lag',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id', 'topic_name', 'partition_id'),
        ok: { 200: consumerLagData },
      }),
    },
    async (req: Req) => {
      const { world, g, links } = groupOf(req);
      const l = lagsOf(world, g).find(
        (x) => x.topic === req.params.topic_name && x.partition === req.params.partition_id,
      );
      if (!l)
        throw notFound(
          `Consumer lag for ${req.params.topic_name}-${req.params.partition_id} cannot be found.`,
        );
      return lagResource(links, g, l);
    },
  );

  app.get(
    `${base}/:consumer_group_id/lag-summary`,
    {
      schema: routeSchema({
        summary: 'Get Consumer Group Lag Summary',
        tags: TAGS,
        params: params('cluster_id', 'consumer_group_id'),
        ok: { 200: consumerGroupLagSummaryData },
      }),
    },
    async (req: Req) => {
      const { world, g, links } = groupOf(req);
      const lags = lagsOf(world, g);
      if (lags.length === 0) throw notFound(`Consumer group ${g.groupId} has no committed offsets.`);
      let max = lags[0]!;
      let total = 0;
      for (const l of lags) {
        total += l.lag;
        if (l.lag > max.lag) max = l;
      }
      return resource(
        'KafkaConsumerGroupLagSummary',
        links.url('consumer-groups', g.groupId, 'lag-summary'),
        // The spec's example writes `consumer-groups=` here (plural), unlike every other CRN.
        links.crn(`consumer-groups=${g.groupId}`, 'lag-summary'),
        {
          cluster_id: links.clusterId,
          consumer_group_id: g.groupId,
          max_lag_consumer_id: max.member?.consumerId ?? '',
          max_lag_instance_id: max.member?.groupInstanceId ?? null,
          max_lag_client_id: max.member?.clientId ?? '',
          max_lag_topic_name: max.topic,
          max_lag_partition_id: max.partition,
          max_lag: max.lag,
          total_lag: total,
          max_lag_consumer: links.related(
            'consumer-groups',
            g.groupId,
            'consumers',
            max.member?.consumerId ?? '',
          ),
          max_lag_partition: links.related('topics', max.topic, 'partitions', max.partition),
        },
      );
    },
  );
}
