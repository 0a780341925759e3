// The state of the whole simulation: a snapshot (clock, brokers, the controller's metadata image, workloads,
// network), the request log that replays the run, loading a scenario (which replaces the simulation), and the
// tool views the CLI formats with src/format (kafka-topics --describe, kafka-consumer-groups --describe).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeTopicConfigs } from '../../../models/metadata/index.ts';
import type { ConsumerGroupView, TopicDescribeView } from '../../format/index.ts';
import { type LoadedScenario, loadScenarioText, ScenarioError } from '../../scenario/index.ts';
import { type ApiContext, readBroker } from '../context.ts';
import { badRequest } from '../errors.ts';
import { type GroupInfo, groupsOf } from '../optional-modules.ts';
import { routeSchema } from '../route-schema.ts';
import { logEndOffset } from '../v3/groups.ts';
import { WORLD_LIMITS, type World } from '../world.ts';

const TAGS = ['Simulation'];

const anyObject = { type: 'object', additionalProperties: true };

/** kafka-topics --describe's view of every topic, from the broker a tool would ask. */
export function topicViews(world: World): TopicDescribeView[] {
  const broker = readBroker(world);
  const image = broker.image;
  return Object.keys(image.topics)
    .sort()
    .map((name) => {
      const t = image.topics[name]!;
      return {
        name,
        topicId: t.topicId,
        configs: describeTopicConfigs(image, name, broker.staticConfigs)
          .filter((c) => c.source !== 'DEFAULT_CONFIG')
          .map((c) => [c.name, c.value] as const),
        partitions: t.partitions.map((p) => ({
          partition: p.partition,
          leader: p.leader,
          replicas: [...p.replicas],
          isr: [...p.isr],
          addingReplicas: [...p.addingReplicas],
          removingReplicas: [...p.removingReplicas],
        })),
      };
    });
}

/** kafka-consumer-groups --describe's view of one group (Dead when the coordinator does not know it). */
export function consumerGroupView(world: World, groupId: string): ConsumerGroupView {
  return groupViewOf(world, groupId, groupsOf(world).describe(groupId));
}

/** The view of a group already described (`g`), with each partition's log end offset. */
export function groupViewOf(world: World, groupId: string, g: GroupInfo | undefined): ConsumerGroupView {
  if (!g) {
    const b = readBroker(world);
    return {
      groupId,
      state: 'Dead',
      coordinator: {
        id: b.brokerId,
        host: b.config['kafkasim.host'],
        port: b.config['kafkasim.port'] + b.brokerId,
      },
      assignmentStrategy: '',
      members: [],
      offsets: [],
    };
  }
  const committed = new Map(g.offsets.map((o) => [`${o.topic}\u0000${o.partition}`, o.committedOffset]));
  const partitions = new Map<string, { topic: string; partition: number }>();
  for (const o of g.offsets) partitions.set(`${o.topic}\u0000${o.partition}`, o);
  for (const m of g.members)
    for (const tp of m.assignment) partitions.set(`${tp.topic}\u0000${tp.partition}`, tp);
  return {
    groupId: g.groupId,
    state: g.state,
    coordinator: g.coordinator,
    assignmentStrategy: g.assignor,
    ...(g.generation !== null ? { generation: g.generation } : {}),
    type: g.type,
    ...(g.epochs ? { groupEpoch: g.epochs.group, targetAssignmentEpoch: g.epochs.assignment } : {}),
    members: g.members.map((m) => ({
      consumerId: m.consumerId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      host: m.host,
      assignment: m.assignment,
      ...(m.consumer
        ? {
            memberEpoch: m.consumer.memberEpoch,
            targetAssignment: m.consumer.target,
            upgraded: m.consumer.upgraded,
          }
        : {}),
    })),
    offsets: [...partitions.entries()].map(([key, tp]) => ({
      topic: tp.topic,
      partition: tp.partition,
      committedOffset: committed.get(key) ?? null,
      logEndOffset: logEndOffset(world, tp.topic, tp.partition),
    })),
  };
}

export function registerStateRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/sim/requests',
    {
      schema: routeSchema({
        summary: 'The request log (replays the run with the same seed)',
        description:
          'Every change applied, with the virtual time and event count at which it was applied and the trace hash ' +
          'after it. replayRequestLog() (library API) rebuilds the run from it, event for event.',
        tags: TAGS,
        ok: { 200: anyObject },
      }),
    },
    // Entries were serialised when they were recorded: sending the log cannot fail.
    async (_req: FastifyRequest, reply: FastifyReply) =>
      reply.type('application/json; charset=utf-8').send(ctx.host.requestLogJson()),
  );

  app.post(
    '/sim/scenario',
    {
      schema: routeSchema({
        summary: 'Load a scenario (replaces the simulation)',
        description:
          "Builds the scenario's cluster, topics and clients (auto-start clients start); its timeline is " +
          "`kafkasim run`'s, and here the API drives the run. The seed defaults to the scenario's.",
        tags: TAGS,
        body: {
          type: 'object',
          required: ['yaml'],
          additionalProperties: false,
          properties: {
            yaml: { type: 'string', maxLength: 512 * 1024 },
            name: { type: 'string', maxLength: 256 },
            seed: { type: ['integer', 'string'], maxLength: 64 },
          },
        },
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Body: { yaml: string; name?: string; seed?: number | string } }>) => {
      const { yaml, seed } = req.body;
      const name = req.body.name ?? 'scenario.yaml';
      // Parsed and checked once, here: a scenario from the network cannot read the server's files.
      let loaded: LoadedScenario;
      try {
        loaded = loadScenarioText(yaml, name, { allowFileReferences: false });
      } catch (e) {
        if (e instanceof ScenarioError) throw badRequest(e.message);
        throw e;
      }
      const spec = loaded.spec;
      const brokers = spec.cluster?.brokers ?? 3;
      const count = typeof brokers === 'number' ? brokers : brokers.length;
      if (count > WORLD_LIMITS.maxBrokers)
        throw badRequest(
          `a served scenario may have at most ${WORLD_LIMITS.maxBrokers} brokers, this one has ${count}`,
        );
      const options = {
        ...ctx.host.options,
        seed: seed ?? spec.seed ?? ctx.host.options.seed,
        scenario: { text: yaml, name },
      };
      let world: World | undefined;
      await ctx.host.mutate(
        req,
        () => {
          try {
            world = ctx.host.replaceWorld(options, loaded);
          } catch (e) {
            if (e instanceof RangeError || e instanceof ScenarioError) throw badRequest(e.message);
            throw e;
          }
        },
        { settle: false },
      );
      return {
        cluster_id: world!.clusterId,
        seed: world!.sim.seed,
        scenario: world!.scenario?.spec.name ?? null,
        workloads: world!.workloads.list().map((w) => w.view()),
      };
    },
  );

  app.get(
    '/sim/views/topics',
    {
      schema: routeSchema({
        summary: "Every topic as kafka-topics --describe sees it (the CLI's view)",
        tags: ['Tool views'],
        ok: { 200: anyObject },
      }),
    },
    async () => ({ topics: topicViews(ctx.host.world) }),
  );

  app.get(
    '/sim/views/consumer-groups/:group',
    {
      schema: routeSchema({
        summary: "A consumer group as kafka-consumer-groups --describe sees it (the CLI's view)",
        tags: ['Tool views'],
        params: {
          type: 'object',
          required: ['group'],
          additionalProperties: false,
          properties: { group: { type: 'string', minLength: 1, maxLength: 1024 } },
        },
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Params: { group: string } }>) =>
      consumerGroupView(ctx.host.world, req.params.group),
  );
}
