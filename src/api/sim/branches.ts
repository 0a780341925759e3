// Rewinding, snapshots at an earlier time, and branches, all by replaying the request log (the simulation is
// deterministic: the same seed and the same requests at the same points give the same run, event for event).
//
// - A branch is a request log: the world it starts from and the changes applied to it, each where it was applied.
//   The served simulation is one branch at one moment. The first branch is the server's own run.
// - POST /sim/rewind {to_ms} rebuilds the current branch as it was at to_ms (up to the furthest moment it
//   reached) by replaying its log's prefix into a fresh world. Its later changes stay recorded: rewinding forward
//   again replays them. Playing on or changing anything while at an earlier moment starts a new branch there
//   (the old branch keeps its future).
// - POST /sim/branches {at_ms?, name?} forks the current branch at a moment into a new one and switches to it;
//   POST /sim/branches/{id}/checkout switches to another branch (rebuilt at the furthest moment it reached).
// - GET /sim/snapshot?at_ms=... and GET /sim/branches/{id}/snapshot?at_ms=... answer the snapshot a branch
//   had at a moment, from a replay beside the served one (the served simulation is not touched).
// Replays run in slices, yielding to the event loop, so the server keeps answering (docs/security.md). None of
// these is a change of a simulation, so none is in the request log: the log of the branch served is always the
// one that rebuilds it. Branch switches and rewinds wait for the changes before them and pause the pacing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseDuration } from '../../../models/sim/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError, badRequest, conflict, notFound } from '../errors.ts';
import { type SimHost, SLICE_WALL_MS, yieldToEventLoop } from '../host.ts';
import type { RequestLogEntry } from '../request-log.ts';
import { routeSchema } from '../route-schema.ts';
import type { WorldOptions } from '../world.ts';
import { simSnapshot } from './snapshot.ts';

const TAGS = ['Branches'];
const anyObject = { type: 'object', additionalProperties: true };

/** At most this many branches per server (each keeps its request log in memory). */
export const MAX_BRANCHES = 32;
/** Replays kept beside the served simulation for snapshots at a time (the most recently used). */
const SIDE_REPLAYS = 2;

export interface Branch {
  id: number;
  name: string;
  parent: number | null;
  forkedAtMs: number | null;
  /** The branch's log; for the branch being served and not rewound, the host's live log. */
  entries: RequestLogEntry[];
  /** The furthest virtual time the branch reached. */
  headMs: number;
}

/** A replay of a log, built to some moment; it can go forward (never back). */
export interface Replay {
  host: SimHost;
  /** Entries of `log` applied so far. */
  applied: number;
  /** Stopped inside an advance (replayForward): it cannot apply the rest of the log. */
  partial?: boolean;
  close(): Promise<void>;
  apply(entry: RequestLogEntry): Promise<void>;
}

/**
 * Whether a request only moves the clock by running events (POST /sim/advance) and may have run it past `toMs`:
 * an advance by a duration ends at its start plus the duration, one until a condition is not known to end.
 */
function mayPass(entry: RequestLogEntry, toMs: number): boolean {
  if (entry.method !== 'POST' || entry.url !== '/sim/advance') return false;
  const duration = (entry.body as { duration?: string | number } | undefined)?.duration;
  if (duration === undefined) return true;
  try {
    return entry.t + parseDuration(duration) > toMs;
  } catch {
    return true;
  }
}

/** Builds a fresh world and the means to apply logged requests to it (server.ts gives the routes). */
export type ReplayFactory = (world: WorldOptions) => Promise<Replay>;

/** Runs a replay's simulation until `events` events have run (the point a logged request was applied), sliced. */
async function positionAt(host: SimHost, events: number, t: number): Promise<void> {
  const sim = host.sim;
  while (sim.eventCount < events) {
    const end = performance.now() + SLICE_WALL_MS;
    host.guard(() => {
      while (sim.eventCount < events && performance.now() < end) {
        for (let i = 0; i < 64 && sim.eventCount < events; i++) if (!sim.step()) return;
      }
    });
    if (sim.nextEventTime === undefined && sim.eventCount < events) break;
    await yieldToEventLoop();
    if (host.closing) throw new ApiError(503, 503, 'the server is shutting down');
  }
  if (sim.eventCount !== events)
    throw conflict(
      `replay diverged: the log expects ${events} events at ${t} ms, the replay has ${sim.eventCount}`,
    );
  if (sim.now < t) sim.advanceClockTo(t);
}

/**
 * Moves a replay forward to `toMs`, applying the log's requests recorded before it: the moment `toMs` is the
 * simulation just before any request applied at exactly that time (as a snapshot taken then saw it), except at
 * the furthest moment of a branch (`end`), where every request is applied. An advance that ran the clock past
 * `toMs` is not applied: the replay runs the events up to `toMs` (and is marked partial).
 */
async function replayForward(
  replay: Replay,
  log: readonly RequestLogEntry[],
  toMs: number,
  end: boolean,
): Promise<void> {
  const host = replay.host;
  const due = (t: number) => t < toMs || (end && t <= toMs);
  while (replay.applied < log.length && due(log[replay.applied]!.t)) {
    const entry = log[replay.applied]!;
    await positionAt(host, entry.events, entry.t);
    // An advance only runs events. When it is the last request before `toMs` (and `toMs` is not the branch's
    // furthest moment), it may have run past `toMs`: the replay runs the events up to `toMs` instead, as the
    // advance did on its way. The replay is then between two requests, and cannot go on applying the log.
    const next = log[replay.applied + 1];
    if (!end && mayPass(entry, toMs) && (next === undefined || !due(next.t))) {
      replay.partial = true;
      break;
    }
    await replay.apply(entry);
    replay.applied++;
  }
  if (host.sim.now < toMs) await host.advanceToSliced(toMs);
  if (host.closing) throw new ApiError(503, 503, 'the server is shutting down');
}

export class Branches {
  readonly list: Branch[] = [];
  active: Branch;
  /** Set while the served simulation shows an earlier moment of the active branch. */
  viewingMs: number | null = null;
  /** Replays beside the served one, with the branch entries each has applied (the same objects). */
  private readonly side: { branch: Branch; replay: Replay; source: readonly RequestLogEntry[] }[] = [];

  constructor(
    private readonly ctx: ApiContext,
    private readonly replayOf: ReplayFactory,
  ) {
    this.active = { id: 1, name: 'main', parent: null, forkedAtMs: null, entries: ctx.host.log, headMs: 0 };
    this.list.push(this.active);
    ctx.host.beforeChange = () => this.beforeChange();
  }

  private get host(): SimHost {
    return this.ctx.host;
  }

  /** The furthest moment a branch reached (the served one: now, unless it was rewound). */
  headOf(b: Branch): number {
    return b === this.active && this.viewingMs === null ? Math.max(b.headMs, this.host.sim.now) : b.headMs;
  }

  /** The full log of a branch (the served one's includes the changes after a rewound moment). */
  logOf(b: Branch): readonly RequestLogEntry[] {
    return b === this.active && this.viewingMs === null ? this.host.log : b.entries;
  }

  view() {
    return {
      active: this.active.id,
      viewing_ms: this.viewingMs,
      branches: this.list.map((b) => ({
        id: b.id,
        name: b.name,
        parent: b.parent,
        forked_at_ms: b.forkedAtMs,
        head_ms: this.headOf(b),
        requests: this.logOf(b).length,
      })),
    };
  }

  byId(id: number): Branch {
    const b = this.list.find((x) => x.id === id);
    if (!b)
      throw notFound(`Branch ${id} cannot be found (branches: ${this.list.map((x) => x.id).join(', ')}).`);
    return b;
  }

  /** A change (or pacing resumed) while an earlier moment is shown: that moment becomes a new branch. */
  private beforeChange(): void {
    if (this.viewingMs === null) return;
    this.startBranch(undefined);
  }

  /** A new branch from the served moment, served from now on (the world is already there). */
  private startBranch(name: string | undefined): Branch {
    if (this.list.length >= MAX_BRANCHES)
      throw conflict(`at most ${MAX_BRANCHES} branches per server: start a new server to go on`);
    this.freeze();
    const id = Math.max(...this.list.map((b) => b.id)) + 1;
    const b: Branch = {
      id,
      name: name ?? `branch ${id}`,
      parent: this.active.id,
      forkedAtMs: this.host.sim.now,
      entries: this.host.log,
      headMs: this.host.sim.now,
    };
    this.list.push(b);
    this.active = b;
    this.viewingMs = null;
    return b;
  }

  /** Keeps the served branch's log and furthest moment as they are now (before the host's log changes). */
  private freeze(): void {
    const b = this.active;
    if (this.viewingMs === null) {
      b.headMs = Math.max(b.headMs, this.host.sim.now);
      b.entries = [...this.host.log];
    }
  }

  /** Serves `branch` as it was at `toMs`, rebuilt from its log. */
  private async rebuild(branch: Branch, toMs: number): Promise<void> {
    const log = branch === this.active ? [...this.logOf(branch)] : branch.entries;
    const replay = await this.replayOf(this.host.options);
    try {
      await replayForward(replay, log, toMs, toMs >= this.headOf(branch));
    } catch (e) {
      await replay.close();
      throw e;
    }
    this.ctx.pacer.pause();
    this.freeze();
    this.host.adopt(replay.host.world, log.slice(0, replay.applied));
    this.active = branch;
    const now = this.host.sim.now;
    this.viewingMs = now < branch.headMs ? now : null;
    // The served world now belongs to the host; the replay's own server is closed.
    await replay.close();
    this.ctx.pacer.reanchor();
  }

  async rewind(toMs: number): Promise<void> {
    await this.host.exclusive(async () => {
      const head = this.headOf(this.active);
      if (toMs > head)
        throw badRequest(
          `branch '${this.active.name}' reached only ${head} ms: play on to go further (to_ms ${toMs} is later)`,
        );
      this.freeze();
      await this.rebuild(this.active, toMs);
    });
  }

  async fork(atMs: number | undefined, name: string | undefined): Promise<Branch> {
    if (atMs !== undefined && atMs !== this.host.sim.now) await this.rewind(atMs);
    return this.host.exclusive(async () => this.startBranch(name));
  }

  async checkout(id: number): Promise<void> {
    const target = this.byId(id);
    if (target === this.active && this.viewingMs === null) return;
    await this.host.exclusive(async () => {
      this.freeze();
      await this.rebuild(target, target.headMs);
    });
  }

  /** The snapshot a branch had at `atMs`, from a replay beside the served simulation (reused going forward). */
  async snapshotAt(branch: Branch, atMs: number): Promise<ReturnType<typeof simSnapshot>> {
    // One side replay at a time (two readers must not move the same replay).
    const previous = this.sideTail;
    let release!: () => void;
    this.sideTail = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    try {
      return await this.snapshotAtLocked(branch, atMs);
    } finally {
      release();
    }
  }

  private sideTail: Promise<void> = Promise.resolve();

  private async snapshotAtLocked(branch: Branch, atMs: number) {
    const head = this.headOf(branch);
    if (atMs > head)
      throw badRequest(`branch '${branch.name}' reached only ${head} ms: at_ms ${atMs} is later`);
    const log = [...this.logOf(branch)];
    let slot = this.side.find((s) => s.branch === branch);
    const reusable =
      slot !== undefined &&
      !slot.replay.partial &&
      slot.replay.host.sim.now <= atMs &&
      slot.replay.applied <= log.length &&
      slot.source.every((e, i) => e === log[i]);
    if (!reusable) {
      if (slot) {
        this.side.splice(this.side.indexOf(slot), 1);
        await slot.replay.close();
      }
      slot = { branch, replay: await this.replayOf(this.host.options), source: [] };
      this.side.push(slot);
      while (this.side.length > SIDE_REPLAYS) await this.side.shift()!.replay.close();
    }
    await replayForward(slot!.replay, log, atMs, atMs >= head);
    slot!.source = log.slice(0, slot!.replay.applied);
    return simSnapshot(slot!.replay.host, undefined);
  }

  async close(): Promise<void> {
    for (const s of this.side.splice(0)) await s.replay.close();
  }
}

export const atQuery = {
  type: 'object',
  required: ['at_ms'],
  additionalProperties: false,
  properties: { at_ms: { type: 'number', minimum: 0 } },
};

export function registerBranchRoutes(
  app: FastifyInstance,
  ctx: ApiContext,
  replayOf: ReplayFactory,
): Branches {
  const branches = new Branches(ctx, replayOf);
  app.addHook('onClose', async () => branches.close());

  app.get(
    '/sim/branches',
    {
      schema: routeSchema({
        summary: 'The branches (a tree: each forked from its parent at a moment) and which one is served',
        tags: TAGS,
        ok: { 200: anyObject },
      }),
    },
    async () => branches.view(),
  );

  app.post(
    '/sim/branches',
    {
      schema: routeSchema({
        summary: 'Fork the served branch at a moment (default now) into a new branch, and serve it',
        tags: TAGS,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            at_ms: { type: 'number', minimum: 0 },
            name: { type: 'string', minLength: 1, maxLength: 64 },
          },
        },
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Body: { at_ms?: number; name?: string } | null }>) => {
      await branches.fork(req.body?.at_ms, req.body?.name);
      return branches.view();
    },
  );

  app.post(
    '/sim/branches/:id/checkout',
    {
      schema: routeSchema({
        summary: 'Serve another branch, rebuilt at the furthest moment it reached (paused)',
        tags: TAGS,
        params: {
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: { id: { type: 'integer', minimum: 1 } },
        },
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Params: { id: number } }>) => {
      await branches.checkout(req.params.id);
      return branches.view();
    },
  );

  app.post(
    '/sim/rewind',
    {
      schema: routeSchema({
        summary: 'Show the served branch as it was at a moment, rebuilt from its request log (paused)',
        description:
          'Replays the branch’s log up to to_ms (at most the furthest moment it reached). Its later changes stay ' +
          'recorded; playing on or making a change from here starts a new branch.',
        tags: TAGS,
        body: {
          type: 'object',
          required: ['to_ms'],
          additionalProperties: false,
          properties: { to_ms: { type: 'number', minimum: 0 } },
        },
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Body: { to_ms: number } }>) => {
      await branches.rewind(req.body.to_ms);
      return branches.view();
    },
  );

  app.get(
    '/sim/branches/:id/snapshot',
    {
      schema: routeSchema({
        summary: 'The snapshot a branch had at a moment (from a replay; nothing served changes)',
        tags: TAGS,
        params: {
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: { id: { type: 'integer', minimum: 1 } },
        },
        querystring: atQuery,
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Params: { id: number }; Querystring: { at_ms: number } }>) =>
      branches.snapshotAt(branches.byId(req.params.id), req.query.at_ms),
  );
  return branches;
}
