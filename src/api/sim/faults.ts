// Faults through the API: crash and restart a broker, split the network, isolate a node, drop one direction,
// heal, slow a broker down, drop messages at random, and a Lake outage (when the Lake is simulated). Each is a
// change to the simulation, applied at the current virtual time and recorded in the request log.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { brokerNodeId, controllerNodeId } from '../../../models/protocol/index.ts';
import { parseDuration } from '../../../models/sim/index.ts';
import { CONTROLLER_NODE } from '../../cluster/index.ts';
import type { ApiContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { lakeOf } from '../optional-modules.ts';
import { routeSchema } from '../route-schema.ts';
import type { World } from '../world.ts';
import { durationSchema } from './clock.ts';

const TAGS = ['Faults'];

/** What the API has applied, for the snapshot (the network keeps its filters private). */
export interface FaultState {
  partition: string[][] | null;
  isolated: string[];
  dropOutbound: { from: string; to: string[] }[];
  slow: Record<string, number>;
  dropProbability: number;
}

export function emptyFaults(): FaultState {
  return { partition: null, isolated: [], dropOutbound: [], slow: {}, dropProbability: 0 };
}

const faultsByWorld = new WeakMap<World, FaultState>();

export function faultsOf(world: World): FaultState {
  let f = faultsByWorld.get(world);
  if (!f) faultsByWorld.set(world, (f = emptyFaults()));
  return f;
}

const nodeRef = {
  oneOf: [
    { type: 'integer', description: 'a broker id' },
    {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: '"controller", a workload name or a node id',
    },
  ],
};

const faultResult = {
  type: 'object',
  required: ['now_ms', 'trace_hash'],
  properties: { now_ms: { type: 'number' }, trace_hash: { type: 'string' } },
};

/** A node of the simulated network from an API reference: a broker id, `controller`, or a node id. */
function nodeOf(world: World, ref: number | string): string {
  if (typeof ref === 'number') {
    if (!world.cluster.brokers.has(ref)) throw badRequest(`no broker ${ref}`);
    return brokerNodeId(ref);
  }
  if (ref === 'controller') return CONTROLLER_NODE;
  if (!world.sim.network.has(ref)) throw badRequest(`no simulated node '${ref}'`);
  return ref;
}

function brokerIdOf(world: World, id: number): number {
  if (!world.cluster.brokers.has(id))
    throw notFound(
      `Broker ${id} cannot be found (brokers: ${[...world.cluster.brokers.keys()].join(', ')}).`,
    );
  return id;
}

const brokerBody = {
  type: 'object',
  required: ['broker_id'],
  additionalProperties: false,
  properties: { broker_id: { type: 'integer' } },
};

export function registerFaultRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const done = () => ({ now_ms: ctx.host.sim.now, trace_hash: ctx.host.sim.trace.hash });

  app.post(
    '/sim/faults/crash-broker',
    {
      schema: routeSchema({
        summary: 'Crash a broker (it keeps only what it persisted)',
        tags: TAGS,
        body: brokerBody,
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { broker_id: number } }>) => {
      const world = ctx.host.world;
      const id = brokerIdOf(world, req.body.broker_id);
      await ctx.host.mutate(req, () => world.cluster.crashBroker(id), { settle: false });
      return done();
    },
  );

  app.post(
    '/sim/faults/restart-broker',
    {
      schema: routeSchema({
        summary: 'Restart a broker (crashing it first if it is up)',
        tags: TAGS,
        body: brokerBody,
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { broker_id: number } }>) => {
      const world = ctx.host.world;
      const id = brokerIdOf(world, req.body.broker_id);
      await ctx.host.mutate(req, () => world.cluster.restartBroker(id), { settle: false });
      return done();
    },
  );

  const controllerBody = {
    type: 'object',
    required: ['controller_id'],
    additionalProperties: false,
    properties: { controller_id: { type: 'integer', description: 'a KRaft controller node id (3000, ...)' } },
  };
  const controllerOf = (id: number) => {
    const cluster = ctx.host.world.cluster;
    const c = cluster.controllers.find((x) => x.id === controllerNodeId(id));
    if (!c)
      throw notFound(
        `Controller ${id} cannot be found (controllers: ${cluster.controllers.map((x) => x.id).join(', ')}).`,
      );
    return c.id;
  };
  for (const [action, summary] of [
    ['crash', 'Crash a KRaft controller (it keeps only what it flushed)'],
    ['restart', 'Restart a KRaft controller (crashing it first if it is up)'],
  ] as const) {
    app.post(
      `/sim/faults/${action}-controller`,
      { schema: routeSchema({ summary, tags: TAGS, body: controllerBody, ok: { 200: faultResult } }) },
      async (req: FastifyRequest<{ Body: { controller_id: number } }>) => {
        const cluster = ctx.host.world.cluster;
        const id = controllerOf(req.body.controller_id);
        await ctx.host.mutate(
          req,
          () => (action === 'crash' ? cluster.crashController(id) : cluster.restartController(id)),
          { settle: false },
        );
        return done();
      },
    );
  }

  app.post(
    '/sim/faults/partition',
    {
      schema: routeSchema({
        summary: 'Split the network into groups (nodes not listed form one more group)',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['groups'],
          additionalProperties: false,
          properties: {
            groups: {
              type: 'array',
              minItems: 1,
              maxItems: 64,
              items: { type: 'array', minItems: 1, maxItems: 256, items: nodeRef },
            },
          },
        },
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { groups: (number | string)[][] } }>) => {
      const world = ctx.host.world;
      const groups = req.body.groups.map((g) => g.map((n) => nodeOf(world, n)));
      const seen = new Set<string>();
      for (const node of groups.flat()) {
        if (seen.has(node)) throw badRequest(`node ${node} is in more than one place in "groups"`);
        seen.add(node);
      }
      await ctx.host.mutate(
        req,
        () => {
          world.sim.network.partition(groups);
          faultsOf(world).partition = groups;
        },
        { settle: false },
      );
      return done();
    },
  );

  app.post(
    '/sim/faults/isolate',
    {
      schema: routeSchema({
        summary: 'Drop all traffic to and from one node',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['node'],
          additionalProperties: false,
          properties: { node: nodeRef },
        },
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { node: number | string } }>) => {
      const world = ctx.host.world;
      const node = nodeOf(world, req.body.node);
      await ctx.host.mutate(
        req,
        () => {
          world.sim.network.isolate(node);
          faultsOf(world).isolated.push(node);
        },
        { settle: false },
      );
      return done();
    },
  );

  app.post(
    '/sim/faults/drop-outbound',
    {
      schema: routeSchema({
        summary: 'Drop messages from one node to others (the other direction still works)',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['from', 'to'],
          additionalProperties: false,
          properties: { from: nodeRef, to: { type: 'array', minItems: 1, maxItems: 256, items: nodeRef } },
        },
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { from: number | string; to: (number | string)[] } }>) => {
      const world = ctx.host.world;
      const from = nodeOf(world, req.body.from);
      const to = req.body.to.map((n) => nodeOf(world, n));
      await ctx.host.mutate(
        req,
        () => {
          world.sim.network.dropOutbound(from, to);
          faultsOf(world).dropOutbound.push({ from, to });
        },
        { settle: false },
      );
      return done();
    },
  );

  app.post(
    '/sim/faults/heal',
    {
      schema: routeSchema({
        summary: 'Remove partitions, isolation and one-way drops',
        tags: TAGS,
        ok: { 200: faultResult },
      }),
    },
    async (req) => {
      const world = ctx.host.world;
      await ctx.host.mutate(
        req,
        () => {
          world.sim.network.heal();
          const f = faultsOf(world);
          f.partition = null;
          f.isolated = [];
          f.dropOutbound = [];
        },
        { settle: false },
      );
      return done();
    },
  );

  app.post(
    '/sim/faults/slow-broker',
    {
      schema: routeSchema({
        summary: 'Add latency to every message to and from a broker ("0ms" removes it)',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['broker_id', 'delay'],
          additionalProperties: false,
          properties: { broker_id: { type: 'integer' }, delay: durationSchema },
        },
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { broker_id: number; delay: string | number } }>) => {
      const world = ctx.host.world;
      const id = brokerIdOf(world, req.body.broker_id);
      let ms: number;
      try {
        ms = parseDuration(req.body.delay, 'delay');
      } catch (e) {
        throw badRequest((e as Error).message);
      }
      if (ms > 600_000) throw badRequest('delay may be at most 10m');
      await ctx.host.mutate(
        req,
        () => {
          world.sim.network.setExtraDelay(brokerNodeId(id), ms);
          const slow = faultsOf(world).slow;
          if (ms > 0) slow[brokerNodeId(id)] = ms;
          else delete slow[brokerNodeId(id)];
        },
        { settle: false },
      );
      return done();
    },
  );

  app.post(
    '/sim/faults/drop-probability',
    {
      schema: routeSchema({
        summary: 'Drop each message independently with this probability (0 turns it off)',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['probability'],
          additionalProperties: false,
          properties: { probability: { type: 'number', minimum: 0, maximum: 1 } },
        },
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { probability: number } }>) => {
      const world = ctx.host.world;
      await ctx.host.mutate(
        req,
        () => {
          world.sim.network.setDropProbability(req.body.probability);
          faultsOf(world).dropProbability = req.body.probability;
        },
        { settle: false },
      );
      return done();
    },
  );

  app.post(
    '/sim/faults/lake-outage',
    {
      schema: routeSchema({
        summary: 'Take the Lake down (down: true) or bring it back (down: false)',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['down'],
          additionalProperties: false,
          properties: { down: { type: 'boolean' } },
        },
        ok: { 200: faultResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { down: boolean } }>) => {
      const lake = lakeOf(ctx.host.world);
      await ctx.host.mutate(req, () => lake.setOutage(req.body.down), { settle: false });
      return done();
    },
  );

  app.get(
    '/sim/faults',
    {
      schema: routeSchema({
        summary: 'The faults applied through the API',
        tags: TAGS,
        ok: {
          200: {
            type: 'object',
            properties: {
              partition: { type: ['array', 'null'], items: { type: 'array', items: { type: 'string' } } },
              isolated: { type: 'array', items: { type: 'string' } },
              dropOutbound: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { from: { type: 'string' }, to: { type: 'array', items: { type: 'string' } } },
                },
              },
              slow: { type: 'object', additionalProperties: { type: 'number' } },
              dropProbability: { type: 'number' },
              crashed: { type: 'array', items: { type: 'integer' } },
            },
          },
        },
      }),
    },
    async () => {
      const world = ctx.host.world;
      const crashed = [...world.cluster.brokers.values()].filter((b) => !b.up).map((b) => b.brokerId);
      return { ...faultsOf(world), crashed };
    },
  );
}
