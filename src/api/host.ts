// The simulated world a server serves, and the one door through which requests change it. Every change is
// applied at the current virtual time, in arrival order, and recorded in the request log with the exact
// position of the simulation when it was applied (events executed, virtual time), so that replaying the log
// against the same seed reproduces the run event for event. Reads never change the world: they only look at
// immutable metadata images and counters, so they are not logged.

import { randomUUID } from 'node:crypto';
import { LakeHttpApi, type LakeOptions } from '../../models/lake/index.ts';
import { configMap } from '../../models/metadata/index.ts';
import {
  InvariantViolation,
  SimTimeoutError,
  type Simulation,
  SimulationError,
} from '../../models/sim/index.ts';
import type { StorageMode } from '../../models/storage/index.ts';
import { Cluster, type ClusterOptions } from '../cluster/index.ts';
import {
  clusterOptionsOf,
  type LoadedScenario,
  loadScenarioText,
  setUpScenarioCluster,
} from '../scenario/index.ts';
import { ApiError, badRequest, conflict, KAFKA_RETRIABLE_ERROR } from './errors.ts';
import { LessonRun } from './lesson.ts';
import {
  ConsumerRun,
  ProducerPerfRun,
  SteadyProducerRun,
  type Workload,
  WorkloadRegistry,
} from './workloads.ts';

/** What a world is built from; kept in the request log so that a replay builds the same one. */
export interface WorldOptions {
  /** Default: the scenario's seed, else 1. */
  seed?: number | string;
  /** Broker count when no scenario is given (default 3). */
  brokers?: number;
  /** First broker id (default 0). */
  firstBrokerId?: number;
  storage?: StorageMode;
  /** AutoMQ's auto-balancer on the controller (`autobalancer.controller.enable=true`). */
  autobalancer?: boolean;
  /** Static broker configs (server.properties). */
  serverProperties?: Record<string, string>;
  /** A scenario's YAML text: its cluster, topics, clients and faults (the timeline is `kafkasim run`'s). */
  scenario?: { text: string; name: string; baseDir?: string };
  /** Serve the scenario as a guided lesson: its own clients, its timeline step by step (lesson.ts). */
  lesson?: boolean;
  traceBufferSize?: number;
}

export interface RequestLogEntry {
  seq: number;
  /** Virtual time (ms) at which the request was applied. */
  t: number;
  /** Events the simulation had executed when the request was applied. */
  events: number;
  method: string;
  url: string;
  body?: unknown;
  /** The Kafka tool that sent it (the `kafkasim-tool` header): the tool's start-up ran first. */
  tool?: string;
  /** The trace hash right after the request was applied (a replay checks it). */
  hashAfter?: string;
}

/** The header the CLI's tool commands send with their first change: its value names the tool. */
export const TOOL_HEADER = 'kafkasim-tool';

/** The tool a request names in its `kafkasim-tool` header, if any; a malformed name is refused. */
function toolOf(headers: Record<string, unknown> | undefined): string | undefined {
  const value = headers?.[TOOL_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[a-z][a-z0-9.-]{0,63}$/.test(value))
    throw badRequest(
      `header ${TOOL_HEADER}: expected a tool name such as kafka-topics (lowercase letters, digits, '.', '-'); found ${JSON.stringify(value)}`,
    );
  return value;
}

export interface RequestLog {
  version: 1;
  world: WorldOptions;
  entries: RequestLogEntry[];
}

/** Limits on what one world may hold (the CLI and scenario loads are checked against them). */
export const WORLD_LIMITS = { maxBrokers: 64 } as const;

/** Limits on the request log (docs/security.md): past them, changes are refused rather than left out. */
export const REQUEST_LOG_LIMITS = {
  /** Bytes of normalised requests (as JSON) one log holds. */
  maxBytes: 64 * 1024 * 1024,
  maxEntries: 1_000_000,
} as const;

/** Wall time one slice of a long request (advance, step) runs before it yields to the event loop. */
export const SLICE_WALL_MS = 10;

/** How the host builds worlds beyond what the request log records (never logged: it may hold secrets). */
export interface HostOptions {
  /** The Lake's users, DuckDB limits and watchdog, for every world this host builds. */
  lake?: LakeOptions;
  /** Default REQUEST_LOG_LIMITS (tests lower them). */
  requestLogLimits?: { maxBytes: number; maxEntries: number };
}

/** Resolves on the next turn of the event loop (after pending I/O: a request waiting is served first). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The KRaft quickstart's server.properties value the source workflows' describe output shows. */
export const QUICKSTART_SERVER_PROPERTIES: Readonly<Record<string, string>> = Object.freeze({
  'log.segment.bytes': '1073741824',
});

/** One simulated cluster with its workloads. */
export class World {
  readonly workloads: WorkloadRegistry;
  readonly clusterId: string;
  /** The scenario's timeline as a lesson, when served as one. */
  lesson: LessonRun | undefined;
  private lakeHttp: LakeHttpApi | undefined;

  constructor(
    readonly cluster: Cluster,
    readonly scenario: LoadedScenario | undefined,
  ) {
    this.workloads = new WorkloadRegistry(cluster);
    this.clusterId = clusterIdFor(cluster.sim.seed);
  }

  get sim(): Simulation {
    return this.cluster.sim;
  }

  /** The Lake's HTTP API as served: query and session ids are crypto-random uuids, so nobody can guess one. */
  get lakeHttpApi(): LakeHttpApi {
    this.lakeHttp ??= new LakeHttpApi(this.cluster.lake, { newId: randomUUID });
    return this.lakeHttp;
  }
}

/**
 * A KRaft-style cluster id (22 characters of URL-safe base64, like `MkU3OEVBNTcwNTJENDM2Qg`), derived from the
 * seed so that the same seed serves the same id.
 */
export function clusterIdFor(seed: string): string {
  const bytes = new Uint8Array(16);
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  const text = `kafkasim-cluster:${seed}`;
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < text.length; i++) {
      h1 = Math.imul(h1 ^ text.charCodeAt(i), 0x01000193);
      h2 = Math.imul(h2 ^ text.charCodeAt(i), 0x5bd1e995) ^ (h2 >>> 15);
    }
    h1 = Math.imul(h1 ^ round, 0x01000193);
    const word = (h1 ^ h2) >>> 0;
    bytes[round * 4] = word >>> 24;
    bytes[round * 4 + 1] = (word >>> 16) & 0xff;
    bytes[round * 4 + 2] = (word >>> 8) & 0xff;
    bytes[round * 4 + 3] = word & 0xff;
  }
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Builds and starts a world; a scenario's topics are created and its auto-start clients started. `loaded` is the
 * scenario already parsed and checked (a request parses it once); without it the text is loaded here.
 */
export function buildWorld(options: WorldOptions, host: HostOptions = {}, loaded?: LoadedScenario): World {
  if (options.scenario) {
    const { text, name, baseDir } = options.scenario;
    const scenario =
      loaded ??
      loadScenarioText(text, name, baseDir !== undefined ? { baseDir } : { allowFileReferences: false });
    return worldFromScenario(scenario, options, host);
  }
  const brokers = options.brokers ?? 3;
  if (!(Number.isInteger(brokers) && brokers >= 1 && brokers <= WORLD_LIMITS.maxBrokers)) {
    throw new RangeError(`brokers must be an integer from 1 to ${WORLD_LIMITS.maxBrokers}, got ${brokers}`);
  }
  const cluster = new Cluster({
    seed: options.seed ?? 1,
    brokers,
    ...(options.autobalancer ? { autobalancer: true } : {}),
    ...(options.firstBrokerId !== undefined ? { firstBrokerId: options.firstBrokerId } : {}),
    storage: options.storage ?? 'kafka',
    serverProperties: configMap([
      ...Object.entries(QUICKSTART_SERVER_PROPERTIES),
      ...Object.entries(options.serverProperties ?? {}),
    ]),
    ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
    ...(host.lake ? { lake: host.lake } : {}),
    // Tool output goes to each workload's own stream; nothing else prints.
    out: () => {},
  });
  cluster.start();
  awaitMetadata(cluster);
  return new World(cluster, undefined);
}

/** Runs until every broker has replayed the controller's committed metadata, so the first reads are current. */
function awaitMetadata(cluster: Cluster): void {
  cluster.runUntil(
    () =>
      [...cluster.brokers.values()].every((b) => !b.up || b.image.offset >= cluster.controller.image.offset),
    { timeout: '30s', description: 'every broker replaying the committed metadata' },
  );
}

function worldFromScenario(loaded: LoadedScenario, options: WorldOptions, host: HostOptions): World {
  const spec = loaded.spec;
  const clusterOptions: ClusterOptions = clusterOptionsOf(spec, options.seed ?? spec.seed ?? 1);
  const brokers = clusterOptions.brokers ?? 3;
  const count = typeof brokers === 'number' ? brokers : brokers.length;
  if (count > WORLD_LIMITS.maxBrokers) {
    throw new RangeError(
      `a served scenario may have at most ${WORLD_LIMITS.maxBrokers} brokers, this one has ${count}`,
    );
  }
  const cluster = new Cluster({
    ...clusterOptions,
    ...(options.autobalancer ? { autobalancer: true } : {}),
    ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
    ...(host.lake ? { lake: host.lake } : {}),
    out: () => {},
  });
  setUpScenarioCluster(cluster, spec);
  awaitMetadata(cluster);
  const world = new World(cluster, loaded);
  if (options.lesson) {
    world.lesson = new LessonRun(cluster, loaded);
    return world;
  }
  const autoStart: string[] = [];
  const clients = spec.clients ?? {};
  const add = (w: Workload, auto: boolean | undefined) => {
    world.workloads.add(w);
    if (auto) autoStart.push(w.name);
  };
  for (const p of clients.producers ?? []) {
    add(
      new SteadyProducerRun(p.name, {
        topic: p.topic,
        rate: p.rate,
        ...(p.recordSize !== undefined ? { recordSize: p.recordSize } : {}),
        ...(p.records !== undefined ? { records: p.records } : {}),
        ...(p.keys ? { keys: p.keys } : {}),
        ...(p.partition !== undefined ? { partition: p.partition } : {}),
        ...(p.flavour ? { flavour: p.flavour } : {}),
        ...(p.config ? { config: p.config as never } : {}),
      }),
      p.autoStart,
    );
  }
  for (const c of clients.consumers ?? []) {
    add(
      new ConsumerRun(c.name, {
        topic: c.topic,
        ...(c.partitions ? { partitions: c.partitions } : {}),
        ...(c.flavour ? { flavour: c.flavour } : {}),
        ...(c.config ? { config: c.config as never } : {}),
      }),
      c.autoStart,
    );
  }
  for (const p of clients.perfProducers ?? []) {
    add(
      new ProducerPerfRun(p.name, {
        topic: p.topic,
        numRecords: p.numRecords,
        throughput: p.throughput,
        recordSize: p.recordSize,
        ...(p.flavour ? { flavour: p.flavour } : {}),
        ...(p.config ? { config: p.config as never } : {}),
      }),
      p.autoStart,
    );
  }
  for (const name of autoStart) world.workloads.start(name);
  return world;
}

/** What decides when the clock moves between requests (the wall-clock pacer, or nothing in manual mode). */
export interface ClockDriver {
  /** Brings the simulation up to the wall-clock target before a change is applied. */
  catchUp(): void;
  /** Restarts pacing from the current virtual time (after a change moved the clock). */
  reanchor(): void;
  /** Stops pacing (the simulation halted). */
  halt(): void;
}

export interface Fingerprint {
  now: number;
  events: number;
  traceHash: string;
  metadataOffset: number;
  workloads: number;
}

/** How long a change waits, at most, for live brokers to replay the metadata it committed. */
const SETTLE_TIMEOUT_MS = 1000;

export class SimHost {
  private current: World;
  readonly log: RequestLogEntry[] = [];
  /** Bytes of the log's normalised requests, as JSON. */
  private logBytes = 0;
  /** Why the simulation stopped (an invariant violation or a model error), if it did. */
  halted: string | undefined;
  driver: ClockDriver | undefined;
  private readonly worldListeners: ((world: World) => void)[] = [];
  /** Changes wait here for the one before them (FIFO); the pacer does not move the clock while one runs. */
  private lockTail: Promise<void> = Promise.resolve();
  private lockHeld = false;
  /** Set when the server closes: long requests stop at their next slice. */
  closing = false;
  /**
   * Called before a change is recorded and before pacing resumes (branches.ts: a change made while viewing an
   * earlier moment starts a new branch there).
   */
  beforeChange: (() => void) | undefined;

  /** Builds the world from `options`, or serves one built already (a library cluster's `listen`). */
  constructor(
    readonly options: WorldOptions,
    readonly hostOptions: HostOptions = {},
    world?: World,
  ) {
    this.current = world ?? buildWorld(options, hostOptions);
  }

  get world(): World {
    return this.current;
  }

  get cluster(): Cluster {
    return this.current.cluster;
  }

  get sim(): Simulation {
    return this.current.cluster.sim;
  }

  /** True while a change is being applied (the pacer leaves the clock alone). */
  get busy(): boolean {
    return this.lockHeld;
  }

  /** Called when a scenario load replaces the world (trace streams resubscribe). */
  onWorldChange(listener: (world: World) => void): () => void {
    this.worldListeners.push(listener);
    return () => {
      const i = this.worldListeners.indexOf(listener);
      if (i >= 0) this.worldListeners.splice(i, 1);
    };
  }

  /**
   * Serves another world with the request log that rebuilds it (a rewind or a branch switch, built by replaying
   * a log): trace streams resubscribe as after a scenario load.
   */
  adopt(world: World, entries: readonly RequestLogEntry[]): void {
    this.current = world;
    this.log.length = 0;
    this.log.push(...entries);
    this.logBytes = entries.reduce((n, e) => n + e.url.length + JSON.stringify(e.body ?? '').length + 96, 0);
    this.halted = undefined;
    for (const l of this.worldListeners) l(this.current);
  }

  /** Runs `fn` between changes (holding the lock that orders them), without recording anything. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.lock();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** The request log so far, with what is needed to replay it. */
  requestLog(): RequestLog {
    return { version: 1, world: this.options, entries: this.log };
  }

  /**
   * The request log as JSON text. Every entry was serialised when it was logged, so this cannot fail, whatever
   * the requests were.
   */
  requestLogJson(indent?: number): string {
    const log = this.requestLog();
    return indent === undefined ? JSON.stringify(log) : JSON.stringify(log, null, indent);
  }

  fingerprint(): Fingerprint {
    const sim = this.sim;
    return {
      now: sim.now,
      events: sim.eventCount,
      traceHash: sim.trace.hash,
      metadataOffset: this.cluster.image.offset,
      workloads: this.current.workloads.list().length,
    };
  }

  /**
   * Runs every event due at or before `t`, then sets the clock to exactly `t`. Slicing a run this way changes
   * nothing: advancing to a then to b runs the same events as advancing to b. The clock is set directly (not
   * through runFor's `now + (t - now)`) so that floating-point rounding can never make a replay differ.
   * With `stop`, checked before the first event and after each, it ends as soon as `stop()` holds, the clock
   * where that event left it, and returns true.
   */
  advanceTo(t: number, stop?: () => boolean): boolean {
    const sim = this.sim;
    if (!(t > sim.now)) return false;
    return this.guard(() => {
      let stopped = false;
      sim.runUntil(
        () => {
          if (stop?.()) return (stopped = true);
          const next = sim.nextEventTime;
          return next === undefined || next > t;
        },
        { description: `the clock reaching ${t}ms` },
      );
      if (!stopped) sim.advanceClockTo(t);
      return stopped;
    });
  }

  /**
   * advanceTo in slices of SLICE_WALL_MS wall time, yielding to the event loop between them so that other
   * requests are answered meanwhile. The events run are the same as advanceTo's: the slices only decide when
   * the server looks up from the work.
   */
  async advanceToSliced(t: number): Promise<void> {
    const sim = this.sim;
    await this.runSliced(() => {
      const next = sim.nextEventTime;
      return next === undefined || next > t;
    });
    if (sim.now < t && this.halted === undefined && !this.closing) sim.advanceClockTo(t);
  }

  /**
   * Runs events one by one until `done()` holds (checked before the first event and after each), the queue
   * drains, or the next event lies past `deadline`; in wall-time slices with the event loop served between
   * them. Returns why it stopped. A model failure halts the simulation (as guard does).
   */
  async runSliced(
    done: () => boolean,
    deadline = Number.POSITIVE_INFINITY,
    maxEvents = Number.POSITIVE_INFINITY,
  ): Promise<'met' | 'deadline' | 'drained' | 'events' | 'closed'> {
    const sim = this.sim;
    let ran = 0;
    if (done()) return 'met';
    for (;;) {
      const sliceEnd = performance.now() + SLICE_WALL_MS;
      const outcome = this.guard(() => {
        let n = 0;
        for (;;) {
          const next = sim.nextEventTime;
          if (next === undefined) return 'drained' as const;
          if (next > deadline) return 'deadline' as const;
          if (ran >= maxEvents) return 'events' as const;
          sim.step();
          ran++;
          if (done()) return 'met' as const;
          if ((++n & 63) === 0 && performance.now() >= sliceEnd) return undefined;
        }
      });
      if (outcome !== undefined) return outcome;
      await yieldToEventLoop();
      if (this.closing) return 'closed';
      if (this.halted !== undefined) throw conflict(`the simulation halted: ${this.halted}`);
    }
  }

  /** Executes up to `n` events; returns how many ran. */
  step(n: number): number {
    let ran = 0;
    this.guard(() => {
      while (ran < n && this.sim.step()) ran++;
    });
    return ran;
  }

  /**
   * Puts a replay where the recorded request found the simulation: `events` executed, clock at `t`. Events
   * pending at exactly `t` stay pending, as they were when the request was first applied.
   */
  positionAt(events: number, t: number): void {
    const sim = this.sim;
    while (sim.eventCount < events) {
      if (!this.sim.step()) break;
    }
    if (sim.eventCount !== events) {
      throw new Error(
        `replay diverged: the log expects ${events} events before the request at ${t}ms, the simulation is at ${sim.eventCount}`,
      );
    }
    if (sim.now < t) sim.advanceClockTo(t);
  }

  /** Waits for the changes before this one; resolves with the function that lets the next one in. */
  private async lock(): Promise<() => void> {
    const previous = this.lockTail;
    let release!: () => void;
    this.lockTail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.lockHeld = true;
    return () => {
      this.lockHeld = false;
      release();
    };
  }

  /**
   * Applies a change: waits for the changes before it, brings the clock up to date, records the request (its
   * validated body, serialised now), runs `apply` (which may take several slices), waits briefly for live
   * brokers to replay any metadata it committed (unless `settle: false`: clock moves end where they were
   * asked to), then lets pacing continue from the new virtual time. A change the log has no room for is
   * refused before it is applied, so the log always replays the run.
   */
  async mutate<T>(
    request: { method: string; url: string; body?: unknown; headers?: Record<string, unknown> },
    apply: () => T | Promise<T>,
    options: { settle?: boolean } = {},
  ): Promise<T> {
    const tool = toolOf(request.headers);
    const release = await this.lock();
    try {
      if (this.halted !== undefined) throw conflict(`the simulation halted: ${this.halted}`);
      if (this.closing) throw new ApiError(503, 503, 'the server is shutting down');
      this.beforeChange?.();
      const body = normalisedBody(request.body);
      const bytes = request.url.length + (body?.length ?? 0) + 96;
      const limits = this.hostOptions.requestLogLimits ?? REQUEST_LOG_LIMITS;
      if (this.log.length >= limits.maxEntries || this.logBytes + bytes > limits.maxBytes)
        throw new ApiError(
          409,
          409,
          `the request log is full (${limits.maxEntries} requests or ${limits.maxBytes} bytes): ` +
            'a change that could not be replayed is refused; start a new server to go on',
        );
      this.driver?.catchUp();
      if (this.halted !== undefined) throw conflict(`the simulation halted: ${this.halted}`);
      const sim = this.sim;
      const entry: RequestLogEntry = {
        seq: this.log.length + 1,
        t: sim.now,
        events: sim.eventCount,
        method: request.method,
        url: request.url,
        ...(body !== undefined ? { body: JSON.parse(body) as unknown } : {}),
        ...(tool !== undefined ? { tool } : {}),
      };
      this.log.push(entry);
      this.logBytes += bytes;
      try {
        // A Kafka tool (kafka-topics.sh, ...) starts up before its request leaves (kafkasim.tool.startup.ms);
        // the cluster runs on meanwhile.
        if (tool !== undefined) {
          const cluster = this.cluster;
          this.guard(() => {
            const ms = cluster.startup.toolMs();
            if (ms > 0) cluster.runFor(ms);
          });
        }
        const result = await this.guardAsync(apply);
        if (options.settle !== false) this.guard(() => this.settleMetadata());
        return result;
      } finally {
        entry.hashAfter = this.sim.trace.hash;
        this.driver?.reanchor();
      }
    } finally {
      release();
    }
  }

  /** Replaces the world (a scenario load); only through mutate, so the log replays it. */
  replaceWorld(options: WorldOptions, loaded?: LoadedScenario): World {
    this.current = buildWorld(options, this.hostOptions, loaded);
    for (const l of this.worldListeners) l(this.current);
    return this.current;
  }
  /** Waits until every live broker the controller can reach has replayed the controller's committed image. */
  private settleMetadata(): void {
    const cluster = this.cluster;
    const net = cluster.sim.network;
    const caughtUp = () => {
      const offset = cluster.controller.image.offset;
      for (const b of cluster.brokers.values()) {
        if (
          !b.up ||
          !net.reachable(cluster.controller.id, b.id) ||
          !net.reachable(b.id, cluster.controller.id)
        )
          continue;
        if (b.image.offset < offset) return false;
      }
      return true;
    };
    try {
      cluster.runUntil(caughtUp, {
        timeout: SETTLE_TIMEOUT_MS,
        description: 'brokers replaying the new metadata',
      });
    } catch (e) {
      if (!(e instanceof SimTimeoutError)) throw e;
    }
  }

  /**
   * Runs simulation work; a model failure (an invariant violation, an event that threw) halts the simulation:
   * it keeps its state for inspection and refuses further changes.
   */
  guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw this.failure(e);
    }
  }

  private async guardAsync<T>(fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.failure(e);
    }
  }

  private failure(e: unknown): unknown {
    if (e instanceof ApiError) return e;
    if (e instanceof InvariantViolation || e instanceof SimulationError) {
      this.halted = e.message;
      this.driver?.halt();
      return conflict(`the simulation halted: ${e.message}`);
    }
    if (e instanceof SimTimeoutError) return new ApiError(500, KAFKA_RETRIABLE_ERROR, e.message);
    return e;
  }
}

/**
 * A request body as the log keeps it: the parsed and validated value as JSON text (undefined for none). A
 * value JSON cannot hold (a cycle, a BigInt) is refused here, before anything changed.
 */
function normalisedBody(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  try {
    return JSON.stringify(body);
  } catch (e) {
    throw new ApiError(400, 400, `the request cannot be recorded: ${(e as Error).message}`);
  }
}
