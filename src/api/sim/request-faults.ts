// Scripted request faults through the API (/sim/faults/requests): a Kafka error, added latency or a dropped
// answer for requests matched by API, topic, partition, client and broker, `count` times or until deleted. They
// apply to simulated clients and to real ones on the Kafka listener alike; adding and removing them are changes,
// recorded in the request log and replayed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Errors } from '../../../models/protocol/index.ts';
import {
  type ActiveRequestFault,
  FAULT_APIS,
  type RequestFaultRule,
  requestFaultRuleOf,
} from '../../cluster/index.ts';
import type { ApiContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import { durationSchema } from './clock.ts';

const TAGS = ['Faults'];

interface RuleBody {
  api: string;
  topic?: string;
  partition?: number;
  client?: string;
  broker?: number;
  error?: string;
  latency?: string | number;
  drop_response?: boolean;
  count?: number;
}

const ruleSchema = {
  type: 'object',
  required: ['api'],
  additionalProperties: false,
  properties: {
    api: { type: 'string', enum: [...FAULT_APIS], description: 'The request type (Kafka API name).' },
    topic: { type: 'string', minLength: 1, maxLength: 249 },
    partition: { type: 'integer', minimum: 0 },
    client: { type: 'string', minLength: 1, maxLength: 256, description: 'A client name or client.id.' },
    broker: { type: 'integer', description: 'Only requests to this broker.' },
    error: {
      type: 'string',
      enum: Object.keys(Errors).filter((e) => e !== 'NONE'),
      description: 'Answer with this Kafka error (the request is not applied).',
    },
    latency: { ...durationSchema, description: 'Added before the answer leaves the broker.' },
    drop_response: { type: 'boolean', description: 'Serve the request, never answer it.' },
    count: {
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000,
      description: 'Requests it applies to (default: until deleted).',
    },
  },
};

const activeSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    applied: { type: 'integer' },
    rule: { type: 'object', additionalProperties: true },
  },
};

export function ruleOf(body: RuleBody): RequestFaultRule {
  const { drop_response, ...rest } = body;
  try {
    return requestFaultRuleOf({
      ...rest,
      ...(drop_response !== undefined ? { dropResponse: drop_response } : {}),
    });
  } catch (e) {
    throw badRequest(`latency: ${(e as Error).message}`);
  }
}

export function registerRequestFaultRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.post(
    '/sim/faults/requests',
    {
      schema: routeSchema({
        summary: 'Add a scripted request fault (error, latency or dropped answer)',
        tags: TAGS,
        body: ruleSchema,
        ok: { 201: activeSchema },
      }),
    },
    async (req: FastifyRequest<{ Body: RuleBody }>, reply) => {
      const rule = ruleOf(req.body);
      const world = ctx.host.world;
      if (rule.broker !== undefined && !world.cluster.brokers.has(rule.broker))
        throw badRequest(`no broker ${rule.broker}`);
      const added = await ctx.host.mutate(
        req,
        (): ActiveRequestFault => {
          try {
            return world.cluster.requestFaults.add(rule);
          } catch (e) {
            if (e instanceof RangeError) throw badRequest(e.message);
            throw e;
          }
        },
        { settle: false },
      );
      return reply.code(201).send(added);
    },
  );

  app.get(
    '/sim/faults/requests',
    {
      schema: routeSchema({
        summary: 'The request faults in force, with how often each applied',
        tags: TAGS,
        ok: { 200: { type: 'object', properties: { data: { type: 'array', items: activeSchema } } } },
      }),
    },
    async () => ({ data: ctx.host.world.cluster.requestFaults.list() }),
  );

  app.delete(
    '/sim/faults/requests/:id',
    {
      schema: routeSchema({
        summary: 'Remove a request fault',
        tags: TAGS,
        params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
        ok: { 204: null },
      }),
    },
    async (req: FastifyRequest<{ Params: { id: number } }>, reply) => {
      const faults = ctx.host.world.cluster.requestFaults;
      if (!faults.list().some((f) => f.id === req.params.id))
        throw notFound(`No request fault ${req.params.id} (it may have run its count out).`);
      await ctx.host.mutate(req, () => faults.remove(req.params.id), { settle: false });
      return reply.code(204).send();
    },
  );

  app.delete(
    '/sim/faults/requests',
    {
      schema: routeSchema({ summary: 'Remove every request fault', tags: TAGS, ok: { 204: null } }),
    },
    async (req, reply) => {
      await ctx.host.mutate(req, () => ctx.host.world.cluster.requestFaults.clear(), { settle: false });
      return reply.code(204).send();
    },
  );
}
