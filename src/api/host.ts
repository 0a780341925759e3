// The simulated world a server serves, and the one door through which requests change it. Every change is
// applied at the current virtual time, in arrival order, and recorded in the request log with the exact
// position of the simulation when it was applied (events executed, virtual time), so that replaying the log
// against the same seed reproduces the run event for event. Reads never change the world: they only look at
// immutable metadata images and counters, so they are not logged.
// The world itself is built in world.ts, the log's entries and limits are in request-log.ts.

import {
  InvariantViolation,
  SimTimeoutError,
  type Simulation,
  SimulationError,
} from '../../models/sim/index.ts';
import type { Cluster } from '../cluster/index.ts';
import type { LoadedScenario } from '../scenario/index.ts';
import { ApiError, conflict, KAFKA_RETRIABLE_ERROR } from './errors.ts';
import {
  normalisedBody,
  REQUEST_LOG_LIMITS,
  type RequestLog,
  type RequestLogEntry,
  toolOf,
} from './request-log.ts';
import { buildWorld, type HostOptions, type World, type WorldOptions } from './world.ts';

/** Wall time one slice of a long request (advance, step) runs before it yields to the event loop. */
export const SLICE_WALL_MS = 10;

/** Resolves on the next turn of the event loop (after pending I/O: a request waiting is served first). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
   * Bumped whenever a change begins or ends (mutate, exclusive) and whenever the world is replaced: with the
   * simulation's clock and event count it says whether anything a read shows may have changed (the snapshot
   * route reuses its serialised answer while none of them moved).
   */
  version = 0;
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
    this.version++;
    this.log.length = 0;
    this.log.push(...entries);
    this.logBytes = entries.reduce((n, e) => n + e.url.length + JSON.stringify(e.body ?? '').length + 96, 0);
    this.halted = undefined;
    for (const l of this.worldListeners) l(this.current);
  }

  /** Runs `fn` between changes (holding the lock that orders them), without recording anything. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.lock();
    this.version++;
    try {
      return await fn();
    } finally {
      this.version++;
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
    this.version++;
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
      this.version++;
      release();
    }
  }

  /** Replaces the world (a scenario load); only through mutate, so the log replays it. */
  replaceWorld(options: WorldOptions, loaded?: LoadedScenario): World {
    this.current = buildWorld(options, this.hostOptions, loaded);
    this.version++;
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
