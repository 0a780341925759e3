// POST /sim/lesson/step: runs the next step of a scenario served as a guided lesson (`kafkasim ui scenario`,
// src/api/lesson.ts). It is a change like any other: applied where the simulation is, recorded in the request log,
// replayed by a rewind or a branch. GET /sim/snapshot's `lesson` says which step is next and whether it is due.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.ts';
import { conflict } from '../errors.ts';
import { routeSchema } from '../route-schema.ts';
import type { World } from '../world.ts';

const stepResult = {
  type: 'object',
  required: ['index', 'status', 'now_ms', 'trace_hash'],
  properties: {
    index: { type: 'integer' },
    status: { type: 'string' },
    error: { type: 'string' },
    now_ms: { type: 'number' },
    trace_hash: { type: 'string' },
  },
};

function lessonOf(world: World) {
  if (!world.lesson)
    throw conflict(
      'no lesson is served: start the server with a scenario as a lesson (kafkasim ui SCENARIO) to step through one',
    );
  return world.lesson;
}

export function registerLessonRoutes(app: FastifyInstance, ctx: ApiContext): void {
  // Pacing stops by itself where the served lesson's next step is due (whatever world is served then).
  ctx.pacer.breakpoint = {
    at: () => ctx.host.world.lesson?.dueAt(),
    ready: () => ctx.host.world.lesson?.ready() ?? false,
  };
  app.post(
    '/sim/lesson/step',
    {
      schema: routeSchema({
        summary: "Run the next step of the served lesson (the scenario's timeline, one step at a time)",
        description:
          'index must be the next step (GET /sim/snapshot: lesson.next); the step runs now, wherever the clock is. ' +
          'A step that fails (a refused reassignment, say) is reported in status and error, and the lesson goes on.',
        tags: ['Simulation'],
        body: {
          type: 'object',
          required: ['index'],
          additionalProperties: false,
          properties: { index: { type: 'integer', minimum: 0 } },
        },
        ok: { 200: stepResult },
      }),
    },
    async (req: FastifyRequest<{ Body: { index: number } }>) => {
      // Checked before the change is recorded (and again when it runs, after any change before it).
      lessonOf(ctx.host.world).check(req.body.index);
      const result = await ctx.host.mutate(req, () => lessonOf(ctx.host.world).apply(req.body.index));
      // The step the pacing stopped for has run: it stays paused, no longer at a breakpoint.
      ctx.pacer.atBreakpoint = false;
      return { ...result, now_ms: ctx.host.sim.now, trace_hash: ctx.host.sim.trace.hash };
    },
  );
}
