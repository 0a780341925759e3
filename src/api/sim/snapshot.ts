// GET /sim/snapshot: the whole simulation as one JSON document (clock, brokers, the KRaft controllers, the
// controller's metadata image, consumer groups, workloads, network traffic per link, faults, the Lake's tables with
// the rows the sink wrote per partition). The web UI draws
// every view from it, as any other client may; it is a pure read (nothing runs). `simSnapshot` is also what a
// snapshot at an earlier time (a replay, see branches.ts) answers, so both have the same shape.
//
// The served snapshot's JSON is built once per state and reused while the simulation has not moved (same world,
// clock, event count, pacing and host version: see SnapshotCache), so a paused page's polls, or a class's pages
// polling one server between two pacer slices, cost one serialisation. It carries an ETag: a client that sends
// it back in If-None-Match is answered 304 Not Modified, with no body, while the state is the same.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatDuration } from '../../../models/sim/index.ts';
import type { ApiContext } from '../context.ts';
import type { SimHost } from '../host.ts';
import { groupsOf } from '../optional-modules.ts';
import type { PacerStatus } from '../pacer.ts';
import { routeSchema } from '../route-schema.ts';
import { faultsOf } from './faults.ts';
import { groupViewOf } from './state.ts';

const anyObject = { type: 'object', additionalProperties: true };

/** The KRaft controllers: whether each runs, its Raft role, epoch and high watermark, and which is active. */
function controllersOf(host: SimHost) {
  const cluster = host.cluster;
  return cluster.controllers.map((c) => ({
    node: c.id,
    status: c.status,
    active: c.ready,
    role: c.raft ? c.raft.role : c.up ? 'leader' : 'down',
    epoch: c.raft ? c.raft.epoch : 0,
    high_watermark: c.raft ? (c.raft.highWatermark ?? null) : c.image.offset,
    leader: c.raft ? (c.raft.leaderId ?? null) : null,
  }));
}

type TopicPartition = { topic: string; partition: number };
const key = (tp: TopicPartition) => `${tp.topic}\u0000${tp.partition}`;

/**
 * Each consumer group as kafka-consumer-groups --describe sees it (members, assignment, lag). A classic group has
 * its generation; a consumer-protocol (KIP-848) group its group and assignment epochs, and each member its member
 * epoch, MemberState, target assignment, the partitions it must still give up (pending revocation) and those its
 * target gives it that it does not own yet (pending assignment: others still hold them).
 */
function groupsSummary(host: SimHost) {
  const world = host.world;
  const groups = (() => {
    try {
      return groupsOf(world);
    } catch {
      return undefined;
    }
  })();
  if (!groups) return [];
  return groups.groupIds().map((id) => {
    const info = groups.describe(id);
    const v = groupViewOf(world, id, info);
    const consumer = info?.type === 'consumer';
    const reconciliation = new Map(info?.members.map((m) => [m.consumerId, m.consumer]));
    return {
      group_id: id,
      type: info?.type ?? 'classic',
      state: v.state,
      assignor: v.assignmentStrategy,
      generation: consumer ? null : (v.generation ?? null),
      group_epoch: info?.epochs?.group ?? null,
      assignment_epoch: info?.epochs?.assignment ?? null,
      members: v.members.map((m) => {
        const c = reconciliation.get(m.consumerId);
        const owned = new Set(m.assignment.map(key));
        return {
          consumer_id: m.consumerId,
          client_id: m.clientId,
          assignment: m.assignment,
          ...(c
            ? {
                member_epoch: c.memberEpoch,
                member_state: c.state,
                target_assignment: c.target,
                pending_revocation: c.pendingRevocation,
                pending_assignment: c.target.filter((tp) => !owned.has(key(tp))),
              }
            : {}),
        };
      }),
      offsets: v.offsets.map((o) => ({
        topic: o.topic,
        partition: o.partition,
        committed: o.committedOffset ?? null,
        log_end: o.logEndOffset ?? null,
        lag:
          o.committedOffset == null || o.logEndOffset == null
            ? null
            : Math.max(0, o.logEndOffset - o.committedOffset),
      })),
    };
  });
}

/** The Lake's tables (once anything used the Lake): the rows the sink wrote, in all and per Kafka partition. */
function lakeOf(host: SimHost) {
  const lake = host.world.cluster.lakeIfUsed;
  if (!lake) return null;
  return {
    available: lake.available,
    tables: lake.tableList().map((t) => {
      const summary = t.ledger.summary();
      return {
        database: t.database,
        table: t.table,
        rows: summary.rows,
        duplicate_rows: summary.duplicateRows,
        partitions: t.ledger.partitionRows().map((p) => ({
          topic: p.topic,
          partition: p.partition,
          rows: p.rows,
          end_offset: p.endOffset,
        })),
      };
    }),
  };
}

/** The snapshot of a host's simulation; `pacing` is the pacer's status (a replayed host has none). */
export function simSnapshot(host: SimHost, pacing: PacerStatus | undefined) {
  const world = host.world;
  const cluster = world.cluster;
  const sim = cluster.sim;
  return {
    cluster_id: world.clusterId,
    seed: sim.seed,
    storage: cluster.storage,
    scenario: world.scenario?.spec.name ?? null,
    clock: { now_ms: sim.now, now: formatDuration(sim.now), ...(pacing ?? {}) },
    events: sim.eventCount,
    pending_events: sim.pendingEvents,
    trace: { hash: sim.trace.hash, events: sim.trace.count },
    halted: host.halted ?? null,
    controller: { node: cluster.controller.id, metadata_offset: cluster.image.offset },
    controllers: controllersOf(host),
    brokers: [...cluster.brokers.values()].map((b) => ({
      broker_id: b.brokerId,
      status: b.status,
      // As the controller has it (a crashed broker never hears that it was fenced; its own view stays stale).
      fenced: cluster.image.brokers[b.brokerId]?.fenced ?? true,
      broker_epoch: b.brokerEpoch,
      metadata_offset: b.image.offset,
      replicas: b.replicas.size,
    })),
    metadata: cluster.image,
    groups: groupsSummary(host),
    workloads: world.workloads.list().map((w) => w.view()),
    network: { ...sim.network.stats, links: sim.network.linkCounts() },
    faults: faultsOf(world),
    requests: host.log.length,
    lesson: world.lesson?.view() ?? null,
    lake: lakeOf(host),
  };
}

/** Distinct numbers for the worlds a host served (a rewind, a branch switch or a scenario load replaces it). */
const worldIds = new WeakMap<object, number>();
let nextWorldId = 1;
function worldId(world: object): number {
  let id = worldIds.get(world);
  if (id === undefined) {
    id = nextWorldId++;
    worldIds.set(world, id);
  }
  return id;
}

/**
 * The served snapshot's JSON, kept while nothing it shows can have changed. A state is named by what moves when
 * anything in it does: the world served, the host's version (bumped by every change, before and after it is
 * applied), the virtual clock, the events and trace events run, the request log's length, a halt, the pacer's
 * status, and a count of the non-GET requests the server received (any of them may change something).
 */
export class SnapshotCache {
  private key = '';
  private body = '';
  private etagValue = '';
  private serial = 0;
  /** Non-GET requests seen (counted when they arrive and when they are answered). */
  requests = 0;
  /** Snapshots serialised so far (tests check the reuse). */
  builds = 0;
  /** Tells this server's ETags from another's (a server restarted on the same port). */
  private readonly boot = Date.now().toString(36);

  stateKey(host: SimHost, pacing: PacerStatus): string {
    const sim = host.sim;
    return (
      `${worldId(host.world)}|${host.version}|${this.requests}|${sim.now}|${sim.eventCount}|${sim.trace.count}|` +
      `${host.log.length}|${host.halted ?? ''}|${pacing.speed}|${pacing.paused}|${pacing.manual}|` +
      `${pacing.at_breakpoint}|${pacing.lagging}`
    );
  }

  /** The snapshot's JSON and ETag for the host's state now (built only when the state moved). */
  current(host: SimHost, pacing: PacerStatus): { body: string; etag: string } {
    const key = this.stateKey(host, pacing);
    if (key !== this.key) {
      this.body = JSON.stringify(simSnapshot(host, pacing));
      this.key = key;
      this.etagValue = `"${this.boot}-${++this.serial}"`;
      this.builds++;
    }
    return { body: this.body, etag: this.etagValue };
  }
}

/** An If-None-Match header naming `etag` (one of a list, or `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

const snapshotCaches = new WeakMap<FastifyInstance, SnapshotCache>();

/** The snapshot cache of a server (tests look at it). */
export function snapshotCacheOf(app: FastifyInstance): SnapshotCache | undefined {
  return snapshotCaches.get(app);
}

/** The snapshot at an earlier moment of the served branch (branches.ts), for `?at_ms=`. */
export type SnapshotAt = (atMs: number) => Promise<unknown>;

export function registerSnapshotRoute(app: FastifyInstance, ctx: ApiContext, at?: SnapshotAt): void {
  const cache = new SnapshotCache();
  snapshotCaches.set(app, cache);
  const counted = (req: FastifyRequest) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') cache.requests++;
  };
  app.addHook('onRequest', async (req) => counted(req));
  app.addHook('onResponse', async (req) => counted(req));
  app.get(
    '/sim/snapshot',
    {
      schema: routeSchema({
        summary: 'A snapshot of the whole simulation',
        description:
          "Clock, brokers, the KRaft controllers, the controller's committed metadata image, consumer groups, " +
          "workloads, network (messages per link), faults and the Lake's tables (rows per partition). " +
          'With `at_ms`, the snapshot the served branch had at ' +
          'that earlier moment, from a replay of its request log beside the served simulation (which is not touched). ' +
          'The live snapshot carries an ETag: sent back in If-None-Match, it is answered 304 (no body) while the ' +
          'simulation has not moved.',
        tags: ['Simulation'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { at_ms: { type: 'number', minimum: 0 } },
        },
        ok: { 200: anyObject },
      }),
    },
    async (req: FastifyRequest<{ Querystring: { at_ms?: number } }>, reply: FastifyReply) => {
      if (req.query.at_ms !== undefined && at) return at(req.query.at_ms);
      const { body, etag } = cache.current(ctx.host, ctx.pacer.status());
      void reply.header('etag', etag).header('cache-control', 'no-cache');
      if (matches(req.headers['if-none-match'], etag)) return reply.code(304).send();
      // Already JSON: sent as it is (fastify does not serialise a string it is told is JSON).
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
