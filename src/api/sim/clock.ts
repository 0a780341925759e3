// Simulation control: the clock (now, speed, pause/resume), stepping events, and advancing by a duration or
// until a condition holds. Pausing and the speed only change how the wall clock paces the simulation, not the
// simulation, so they are not in the request log; stepping and advancing are.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DurationError, formatDuration, parseDuration } from '../../../models/sim/index.ts';
import type { ApiContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { MAX_SPEED, type Speed, speedOf } from '../pacer.ts';
import { routeSchema } from '../route-schema.ts';
import { compileUntil, type UntilSpec, untilSchema } from './conditions.ts';

const TAGS = ['Simulation'];

/** The most virtual time one advance may run (it runs within one request). */
export const MAX_ADVANCE_MS = 3_600_000;
export const MAX_STEP_EVENTS = 1_000_000;

export const durationSchema = {
  oneOf: [
    { type: 'string', maxLength: 32, description: 'e.g. "250ms", "5s", "2m"' },
    { type: 'number', minimum: 0 },
  ],
};

const clockSchema = {
  type: 'object',
  required: [
    'now_ms',
    'now',
    'speed',
    'paused',
    'manual',
    'lagging',
    'events',
    'pending_events',
    'trace_hash',
  ],
  properties: {
    now_ms: { type: 'number' },
    now: { type: 'string' },
    speed: { type: ['number', 'string'] },
    paused: { type: 'boolean' },
    manual: { type: 'boolean' },
    lagging: { type: 'boolean' },
    at_breakpoint: { type: 'boolean', description: "paused by itself: a lesson's next step is due" },
    events: { type: 'integer' },
    pending_events: { type: 'integer' },
    trace_hash: { type: 'string' },
    halted: { type: ['string', 'null'] },
  },
};

const advanceResult = {
  type: 'object',
  required: ['now_ms', 'advanced_ms', 'events_run', 'met'],
  properties: {
    now_ms: { type: 'number' },
    advanced_ms: { type: 'number' },
    events_run: { type: 'integer' },
    met: { type: 'boolean' },
    trace_hash: { type: 'string' },
  },
};

export function parseSpeed(value: unknown): Speed {
  const speed = speedOf(value);
  if (speed === undefined)
    throw badRequest(
      `speed must be a positive decimal number at most ${MAX_SPEED} (e.g. 10 or 0.5), or "max"; got ${JSON.stringify(value)}`,
    );
  return speed;
}

function duration(value: unknown, where: string): number {
  try {
    return parseDuration(value as string | number, where);
  } catch (e) {
    if (e instanceof DurationError) throw badRequest(e.message);
    throw e;
  }
}

export function registerClockRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const clock = () => {
    const sim = ctx.host.sim;
    const s = ctx.pacer.status();
    return {
      now_ms: sim.now,
      now: formatDuration(sim.now),
      speed: s.speed,
      paused: s.paused,
      manual: s.manual,
      lagging: s.lagging,
      at_breakpoint: s.at_breakpoint,
      events: sim.eventCount,
      pending_events: sim.pendingEvents,
      trace_hash: sim.trace.hash,
      halted: ctx.host.halted ?? null,
    };
  };

  app.get(
    '/sim/clock',
    {
      schema: routeSchema({ summary: 'The virtual clock and pacing', tags: TAGS, ok: { 200: clockSchema } }),
    },
    async () => clock(),
  );

  app.put(
    '/sim/clock/speed',
    {
      schema: routeSchema({
        summary: 'Set the speed (1 = real time, 10, 100, or "max")',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['speed'],
          additionalProperties: false,
          properties: { speed: { type: ['number', 'string'], maxLength: 16 } },
        },
        ok: { 200: clockSchema },
      }),
    },
    async (req: FastifyRequest<{ Body: { speed: number | string } }>) => {
      ctx.pacer.setSpeed(parseSpeed(req.body.speed));
      return clock();
    },
  );

  app.post(
    '/sim/pause',
    { schema: routeSchema({ summary: 'Pause the wall-clock pacing', tags: TAGS, ok: { 200: clockSchema } }) },
    async () => {
      ctx.pacer.pause();
      return clock();
    },
  );

  app.post(
    '/sim/resume',
    {
      schema: routeSchema({ summary: 'Resume the wall-clock pacing', tags: TAGS, ok: { 200: clockSchema } }),
    },
    async () => {
      ctx.pacer.resume();
      return clock();
    },
  );

  app.post(
    '/sim/step',
    {
      schema: routeSchema({
        summary: 'Execute the next events (default 1)',
        tags: TAGS,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { events: { type: 'integer', minimum: 1, maximum: MAX_STEP_EVENTS } },
        },
        ok: { 200: advanceResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { events?: number } | null }>) => {
      const n = req.body?.events ?? 1;
      let before = { now: 0, events: 0 };
      await ctx.host.mutate(
        req,
        async () => {
          before = { now: ctx.host.sim.now, events: ctx.host.sim.eventCount };
          // Event by event, in slices that yield to the event loop.
          await ctx.host.runSliced(() => false, Number.POSITIVE_INFINITY, n);
        },
        { settle: false },
      );
      const sim = ctx.host.sim;
      return {
        now_ms: sim.now,
        advanced_ms: sim.now - before.now,
        events_run: sim.eventCount - before.events,
        met: true,
        trace_hash: sim.trace.hash,
      };
    },
  );

  app.post(
    '/sim/advance',
    {
      schema: routeSchema({
        summary: 'Advance the clock by a duration, or until a condition holds',
        description:
          `Runs the simulation now, within this request (at most ${formatDuration(MAX_ADVANCE_MS)} of virtual time). ` +
          'With `until`, stops as soon as every condition given holds, or after `timeout` (default 60s): `met` says which.',
        tags: TAGS,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { duration: durationSchema, until: untilSchema, timeout: durationSchema },
        },
        ok: { 200: advanceResult },
      }),
    },
    async (
      req: FastifyRequest<{
        Body: { duration?: string | number; until?: UntilSpec; timeout?: string | number };
      }>,
    ) => {
      const body = req.body;
      if ((body.duration === undefined) === (body.until === undefined))
        throw badRequest('give either "duration" or "until" (with an optional "timeout")');
      if (body.duration !== undefined && body.timeout !== undefined)
        throw badRequest('"timeout" goes with "until", not with "duration"');
      const ms = duration(
        body.duration ?? body.timeout ?? '60s',
        body.duration !== undefined ? 'duration' : 'timeout',
      );
      if (ms > MAX_ADVANCE_MS)
        throw badRequest(
          `one advance may run at most ${formatDuration(MAX_ADVANCE_MS)} of virtual time, not ${formatDuration(ms)}`,
        );
      const host = ctx.host;
      const armUntil = body.until ? compileUntil(host.world, body.until) : undefined;
      let met = true;
      let before = { now: 0, events: 0 };
      await host.mutate(
        req,
        async () => {
          before = { now: host.sim.now, events: host.sim.eventCount };
          // In slices that yield to the event loop: the server answers other requests while this one runs.
          if (!armUntil) {
            await host.advanceToSliced(host.sim.now + ms);
            return;
          }
          const until = armUntil();
          try {
            // As cluster.runUntil(until.holds, { timeout: ms }): the deadline is fixed now; reaching it moves
            // the clock there, a queue that drains first leaves it where it was.
            const deadline = host.sim.now + ms;
            const outcome = await host.runSliced(until.holds, deadline);
            met = outcome === 'met';
            if (outcome === 'deadline') host.sim.advanceClockTo(deadline);
          } finally {
            until.dispose();
          }
          // After a condition (not after a duration, which must end exactly where asked), live brokers catch up
          // with the metadata first, so that reads right after agree with what the condition saw.
        },
        { settle: armUntil !== undefined },
      );
      const sim = host.sim;
      return {
        now_ms: sim.now,
        advanced_ms: sim.now - before.now,
        events_run: sim.eventCount - before.events,
        met,
        trace_hash: sim.trace.hash,
      };
    },
  );
}
