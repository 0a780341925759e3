// Workloads through the API: start kafka-producer-perf-test and kafka-consumer-perf-test runs, steady producers
// and consumers; stop them; read their output (the tools' own lines) from an offset, as the CLI streams it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IngestConfigInput } from '../../../models/lake/index.ts';
import type { ApiContext } from '../context.ts';
import { badRequest, unknownTopicOrPartition } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import { WORKLOAD_LIMITS, type Workload, type WorkloadKind } from '../workload.ts';
import {
  ConsumerPerfRun,
  ConsumerRun,
  ExplicitProducerWorkload,
  IngestRun,
  ProducerPerfRun,
  SteadyProducerRun,
} from '../workloads.ts';

const TAGS = ['Workloads'];

const props = {
  type: 'object',
  maxProperties: 100,
  additionalProperties: { type: 'string', maxLength: 4096 },
};

export interface CreateWorkloadBody {
  kind: WorkloadKind;
  name?: string;
  topic?: string;
  start?: boolean;
  flavour?: 'java' | 'librdkafka';
  // producer-perf
  num_records?: number;
  throughput?: number;
  record_size?: number;
  producer_props?: Record<string, string>;
  // consumer-perf
  messages?: number;
  reporting_interval_ms?: number;
  show_detailed_stats?: boolean;
  timeout_ms?: number;
  from_latest?: boolean;
  hide_header?: boolean;
  consumer_props?: Record<string, string>;
  group?: string;
  // producer
  rate?: number;
  records?: number;
  keys?: 'none' | 'sequence';
  partition?: number;
  // consumer
  partitions?: number[];
  /** The group member's group.protocol: classic (the default) or consumer (KIP-848). */
  group_protocol?: 'classic' | 'consumer';
  // ingest
  config?: Record<string, unknown>;
  // explicit-producer
  first_sequence?: number;
  count?: number;
  partition_count?: number;
}

const createBody = {
  type: 'object',
  required: ['kind'],
  additionalProperties: false,
  properties: {
    kind: {
      type: 'string',
      enum: ['producer-perf', 'consumer-perf', 'producer', 'consumer', 'ingest', 'explicit-producer'],
    },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    topic: { type: 'string', minLength: 1, maxLength: 1024 },
    start: { type: 'boolean' },
    flavour: { type: 'string', enum: ['java', 'librdkafka'] },
    num_records: { type: 'integer', minimum: 1, maximum: WORKLOAD_LIMITS.maxRecords },
    throughput: { type: 'number', maximum: WORKLOAD_LIMITS.maxThroughput },
    record_size: { type: 'integer', minimum: 1, maximum: WORKLOAD_LIMITS.maxRecordSize },
    producer_props: props,
    messages: { type: 'integer', minimum: 1, maximum: WORKLOAD_LIMITS.maxRecords },
    reporting_interval_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    show_detailed_stats: { type: 'boolean' },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 86_400_000 },
    from_latest: { type: 'boolean' },
    hide_header: { type: 'boolean' },
    consumer_props: props,
    group: { type: 'string', minLength: 1, maxLength: 249 },
    rate: { type: 'number', exclusiveMinimum: 0, maximum: WORKLOAD_LIMITS.maxThroughput },
    records: { type: 'integer', minimum: 1, maximum: WORKLOAD_LIMITS.maxRecords },
    keys: { type: 'string', enum: ['none', 'sequence'] },
    partition: { type: 'integer', minimum: 0 },
    partitions: { type: 'array', maxItems: 100_000, items: { type: 'integer', minimum: 0 } },
    group_protocol: { type: 'string', enum: ['classic', 'consumer'] },
    config: { type: 'object', maxProperties: 100 },
    first_sequence: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    count: { type: 'integer', minimum: 1, maximum: WORKLOAD_LIMITS.maxRecords },
    partition_count: { type: 'integer', minimum: 1, maximum: 100_000 },
  },
};

const workloadView = {
  type: 'object',
  required: ['name', 'kind', 'topic', 'state', 'output_chunks', 'stats'],
  properties: {
    name: { type: 'string' },
    kind: { type: 'string' },
    topic: { type: 'string' },
    state: { type: 'string', enum: ['created', 'running', 'done', 'stopped'] },
    output_chunks: { type: 'integer' },
    stats: { type: 'object', additionalProperties: true },
  },
};

const outputView = {
  type: 'object',
  required: ['name', 'state', 'chunks', 'next', 'dropped', 'done'],
  properties: {
    name: { type: 'string' },
    state: { type: 'string' },
    chunks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['stream', 'text'],
        properties: { stream: { type: 'string', enum: ['stdout', 'stderr'] }, text: { type: 'string' } },
      },
    },
    next: { type: 'integer' },
    dropped: { type: 'integer' },
    done: { type: 'boolean' },
  },
};

const nameParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
};

function need<T>(value: T | undefined, field: string, kind: string): T {
  if (value === undefined) throw badRequest(`a ${kind} workload needs "${field}"`);
  return value;
}

/** Builds the workload a request describes; throws 400 without touching the simulation. */
function workloadFrom(ctx: ApiContext, body: CreateWorkloadBody): Workload {
  const world = ctx.host.world;
  const base = {
    'producer-perf': 'perf-producer',
    'consumer-perf': 'perf-consumer',
    producer: 'producer',
    consumer: 'consumer',
    ingest: 'bend-ingest-kafka',
    'explicit-producer': 'explicit-producer',
  }[body.kind];
  if (body.kind === 'ingest') {
    const name = body.name ?? world.workloads.freeName(base);
    world.workloads.checkName(name);
    return new IngestRun(name, need(body.config, 'config', body.kind) as IngestConfigInput);
  }
  const topic = need(body.topic, 'topic', body.kind);
  if (!Object.hasOwn(world.cluster.image.topics, topic)) throw unknownTopicOrPartition();
  checkPartitions(body, topic, world.cluster.image.topics[topic]!.partitions.length);
  const name = body.name ?? world.workloads.freeName(base);
  world.workloads.checkName(name);
  if (body.kind === 'explicit-producer') {
    return new ExplicitProducerWorkload(name, {
      topic,
      start: body.first_sequence ?? 0,
      count: need(body.count, 'count', body.kind),
      partitions: need(body.partition_count, 'partition_count', body.kind),
    });
  }
  const flavour = body.flavour ? { flavour: body.flavour } : {};
  switch (body.kind) {
    case 'producer-perf': {
      const throughput = need(body.throughput, 'throughput', body.kind);
      if (throughput === 0)
        throw badRequest('throughput must be above 0 records/s, or negative for unthrottled');
      return new ProducerPerfRun(name, {
        topic,
        numRecords: need(body.num_records, 'num_records', body.kind),
        throughput,
        recordSize: need(body.record_size, 'record_size', body.kind),
        props: body.producer_props ?? {},
        ...flavour,
      });
    }
    case 'consumer-perf':
      return new ConsumerPerfRun(name, {
        topic,
        messages: need(body.messages, 'messages', body.kind),
        ...(body.reporting_interval_ms !== undefined
          ? { reportingIntervalMs: body.reporting_interval_ms }
          : {}),
        ...(body.show_detailed_stats !== undefined ? { showDetailedStats: body.show_detailed_stats } : {}),
        ...(body.timeout_ms !== undefined ? { timeoutMs: body.timeout_ms } : {}),
        ...(body.from_latest !== undefined ? { fromLatest: body.from_latest } : {}),
        ...(body.hide_header !== undefined ? { hideHeader: body.hide_header } : {}),
        ...(body.group !== undefined ? { group: body.group } : {}),
        props: body.consumer_props ?? {},
      });
    case 'producer':
      return new SteadyProducerRun(name, {
        topic,
        rate: need(body.rate, 'rate', body.kind),
        ...(body.record_size !== undefined ? { recordSize: body.record_size } : {}),
        ...(body.records !== undefined ? { records: body.records } : {}),
        ...(body.keys ? { keys: body.keys } : {}),
        ...(body.partition !== undefined ? { partition: body.partition } : {}),
        ...flavour,
      });
    case 'consumer':
      if (body.group !== undefined && body.partitions !== undefined)
        throw badRequest('a consumer either joins a group or is given partitions, not both');
      if (body.group_protocol !== undefined && body.group === undefined)
        throw badRequest('group_protocol is for a group member: name the group to join ("group")');
      return new ConsumerRun(name, {
        topic,
        ...(body.group !== undefined ? { group: body.group } : {}),
        ...(body.group_protocol !== undefined ? { config: { 'group.protocol': body.group_protocol } } : {}),
        ...(body.partitions ? { partitions: body.partitions } : {}),
        ...flavour,
      });
  }
}

/** Partition numbers a workload names must exist in its topic, each once. */
function checkPartitions(body: CreateWorkloadBody, topic: string, count: number): void {
  const within = (p: number, what: string) => {
    if (p >= count)
      throw badRequest(`${what} ${p} does not exist: topic '${topic}' has partitions 0 to ${count - 1}`);
  };
  if (body.partition !== undefined) within(body.partition, 'partition');
  if (body.partitions !== undefined) {
    const seen = new Set<number>();
    for (const p of body.partitions) {
      within(p, 'partition');
      if (seen.has(p)) throw badRequest(`partition ${p} is listed twice in "partitions"`);
      seen.add(p);
    }
  }
  if (body.partition_count !== undefined && body.partition_count > count)
    throw badRequest(
      `partition_count ${body.partition_count} is more than topic '${topic}' has (${count}): the producer would write to partitions that do not exist`,
    );
}

export function registerWorkloadRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/sim/workloads',
    {
      schema: routeSchema({
        summary: 'List workloads',
        tags: TAGS,
        ok: {
          200: {
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'array', items: workloadView } },
          },
        },
      }),
    },
    async () => ({ data: ctx.host.world.workloads.list().map((w) => w.view()) }),
  );

  app.post(
    '/sim/workloads',
    {
      schema: routeSchema({
        summary: 'Create (and by default start) a workload',
        description:
          'kinds: producer-perf (kafka-producer-perf-test: num_records, throughput, record_size, producer_props), ' +
          'consumer-perf (kafka-consumer-perf-test: messages, reporting_interval_ms, show_detailed_stats, timeout_ms, ' +
          'from_latest, hide_header, group), producer (rate records/s, record_size, records, keys, partition), consumer ' +
          '(group to join, with group_protocol classic or consumer (KIP-848), or partitions to read in assign mode), ingest (bend-ingest-kafka: config = the ' +
          "guide's JSON), explicit-producer (workflow B's load producer: topic, first_sequence, count, partition_count). " +
          'The name defaults to the kind (perf-producer, perf-consumer, ...), then -2, -3...',
        tags: TAGS,
        body: createBody,
        ok: { 201: workloadView },
      }),
    },
    async (req: FastifyRequest<{ Body: CreateWorkloadBody }>, reply: FastifyReply) => {
      const workload = workloadFrom(ctx, req.body);
      const world = ctx.host.world;
      await ctx.host.mutate(
        req,
        () => {
          world.workloads.add(workload);
          if (req.body.start !== false) workload.start(world.cluster);
        },
        { settle: false },
      );
      return reply.code(201).send(workload.view());
    },
  );

  app.get(
    '/sim/workloads/:name',
    {
      schema: routeSchema({
        summary: 'Get a workload',
        tags: TAGS,
        params: nameParams,
        ok: { 200: workloadView },
      }),
    },
    async (req: FastifyRequest<{ Params: { name: string } }>) =>
      ctx.host.world.workloads.get(req.params.name).view(),
  );

  for (const action of ['start', 'stop'] as const) {
    app.post(
      `/sim/workloads/:name/${action}`,
      {
        schema: routeSchema({
          summary:
            action === 'start' ? 'Start a workload' : 'Stop a workload (records already sent still complete)',
          tags: TAGS,
          params: nameParams,
          ok: { 200: workloadView },
        }),
      },
      async (req: FastifyRequest<{ Params: { name: string } }>) => {
        const world = ctx.host.world;
        const w = world.workloads.get(req.params.name);
        if (action === 'start' && w.state !== 'created')
          throw badRequest(`workload '${w.name}' was already started`);
        if (action === 'stop' && w.state === 'created')
          throw badRequest(`workload '${w.name}' has not been started`);
        await ctx.host.mutate(req, () => (action === 'start' ? w.start(world.cluster) : w.stop()), {
          settle: false,
        });
        return w.view();
      },
    );
  }

  app.get(
    '/sim/workloads/:name/output',
    {
      schema: routeSchema({
        summary: "A workload's output from chunk `from` on",
        description: "Poll with `from` = the previous answer's `next` until `done`.",
        tags: TAGS,
        params: nameParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { from: { type: 'integer', minimum: 0, default: 0 } },
        },
        ok: { 200: outputView },
      }),
    },
    async (req: FastifyRequest<{ Params: { name: string }; Querystring: { from?: number } }>) => {
      const w = ctx.host.world.workloads.get(req.params.name);
      const out = w.output(req.query.from ?? 0);
      return { name: w.name, state: w.state, ...out, done: w.state === 'done' || w.state === 'stopped' };
    },
  );
}
