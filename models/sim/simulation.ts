// The simulation: one virtual clock, one event queue, one seed. Everything that happens is an event; nothing
// reads the wall clock or Math.random().
import { constant, type Distribution } from './distribution.ts';
import { parseDuration } from './duration.ts';
import { InvariantViolation, type SimContext, SimTimeoutError, SimulationError } from './errors.ts';
import { EventQueue, type Lane, type LaneEntry, type SimEvent, type Timer } from './event-queue.ts';
import { Fingerprint } from './fingerprint.ts';
import { Network } from './network.ts';
import { Rng } from './rng.ts';
import { Trace } from './trace.ts';

export interface SimulationOptions {
  /** The one seed everything random derives from. Default 1. */
  seed?: number | string;
  /** Check invariants after every N events (1 = every event). Default 1. */
  invariantEvery?: number;
  /** How many recent trace events to keep in memory. Default 10,000. */
  traceBufferSize?: number;
  /** Network latency when no per-link distribution is set. Default constant 1 ms. */
  defaultLatency?: Distribution;
  /** How long a request waits for its response before the sender sees a timeout. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * The run's virtual wall clock: epoch milliseconds at virtual time 0, for every timestamp the modelled tools
   * print (log4j prefixes, consumer-perf-test dates, the ingest service's log, Lake timestamps). Default
   * DEFAULT_START_TIME (2026-01-01T00:00:00Z), fixed so that output stays deterministic.
   */
  startTime?: number;
}

/** The default virtual wall clock at virtual time 0: 2026-01-01T00:00:00Z. */
export const DEFAULT_START_TIME = Date.UTC(2026, 0, 1);

export interface RunUntilOptions {
  /** Virtual time budget (ms or a duration string). Default: unlimited (but see maxEvents). */
  timeout?: number | string;
  /** Event budget. Default 100 million. */
  maxEvents?: number;
  /** What the condition means, for the error message. */
  description?: string;
}

export interface Invariant {
  name: string;
  /** Returns a description of the violation, or undefined/true when the invariant holds. */
  check: () => string | undefined | boolean | undefined;
}

/** A lane's slot runs the lane's first entry (EventQueue.fire): that entry's node is the event's. */
function laneNode(ev: SimEvent): string | undefined {
  return ev.lane!.first()?.node;
}

export class Simulation {
  readonly seed: string;
  readonly rng: Rng;
  readonly trace: Trace;
  /** The run's fingerprint: every event, every trace event and the data plane (fingerprint.ts); `trace.hash`. */
  readonly fingerprint = new Fingerprint();
  readonly network: Network;
  /** Epoch milliseconds at virtual time 0 (SimulationOptions.startTime). */
  readonly startTime: number;
  invariantEvery: number;
  /** Virtual time in milliseconds; only the kernel moves it (events, runFor, runUntil, advanceClockTo). */
  #now = 0;
  /** Events executed so far. */
  eventCount = 0;
  private readonly queue = new EventQueue();
  private invariants: Invariant[] = [];
  private afterEventHooks: (() => void)[] = [];
  /** Whether anything runs after events (invariants or hooks): the one test the hot path makes. */
  private watched = false;
  private stopped = false;
  private running = false;

  constructor(options: SimulationOptions = {}) {
    this.seed = String(options.seed ?? 1);
    this.rng = new Rng(this.seed);
    this.trace = new Trace(this, options.traceBufferSize ?? 10_000, this.fingerprint);
    this.invariantEvery = options.invariantEvery ?? 1;
    this.startTime = options.startTime ?? DEFAULT_START_TIME;
    if (!Number.isFinite(this.startTime))
      throw new Error(`startTime must be epoch milliseconds, got ${options.startTime}`);
    this.network = new Network(this, {
      defaultLatency: options.defaultLatency ?? constant(1),
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    });
  }

  /** The virtual wall clock now: epoch milliseconds (startTime + now). */
  get wallClock(): number {
    return this.startTime + this.#now;
  }

  /** Virtual time in milliseconds. */
  get now(): number {
    return this.#now;
  }

  /**
   * Moves the clock forward to exactly `time` without running anything: for a driver that slices a run into
   * steps that must end at an exact time (the HTTP server's pacing, a request-log replay), where runFor's
   * `now + (time - now)` could differ by floating-point rounding. It never moves the clock backwards, and never
   * past an event still pending (run the events due first).
   */
  advanceClockTo(time: number): void {
    if (!(time >= this.#now)) throw new RangeError(`advanceClockTo: ${time} is before now (${this.#now})`);
    const next = this.queue.peek()?.time;
    if (next !== undefined && next < time)
      throw new RangeError(`advanceClockTo: ${time} would pass the event pending at ${next}`);
    this.#now = time;
  }

  /** Runs `fn` after `delay` virtual ms (0 = later at the same time, after what is already scheduled). */
  schedule(delay: number, fn: () => void, label?: string, node?: string): Timer {
    if (!(delay >= 0))
      throw new RangeError(`schedule: delay must be >= 0, got ${delay} (${label ?? 'unnamed'})`);
    return this.queue.push(this.#now + delay, fn, label, node);
  }

  /** Runs `fn` at absolute virtual time `time` (not in the past). */
  scheduleAt(time: number, fn: () => void, label?: string, node?: string): Timer {
    if (!(time >= this.#now)) throw new RangeError(`scheduleAt: ${time} is before now (${this.#now})`);
    return this.queue.push(time, fn, label, node);
  }

  /** Runs `fn(arg)` after `delay` virtual ms: schedule() without a closure per event, for hot paths. */
  scheduleCall<A>(delay: number, fn: (arg: A) => void, arg: A, label?: string, node?: string): Timer {
    if (!(delay >= 0))
      throw new RangeError(`schedule: delay must be >= 0, got ${delay} (${label ?? 'unnamed'})`);
    return this.queue.pushCall(this.#now + delay, fn, arg, label, node);
  }

  /**
   * Runs `fn(arg)` at absolute virtual time `time`: for hot paths, one shared function and a plain record instead
   * of a closure per event.
   */
  scheduleCallAt<A>(time: number, fn: (arg: A) => void, arg: A, label?: string, node?: string): Timer {
    if (!(time >= this.#now)) throw new RangeError(`scheduleAt: ${time} is before now (${this.#now})`);
    return this.queue.pushCall(time, fn, arg, label, node);
  }

  /**
   * A lane of timers whose times never decrease in the order they are added (e.g. every timeout of one length):
   * each entry runs `run(entry)` as one event at its time, in the same (time, scheduling order) as any event,
   * unless withdrawn first. Cheaper than schedule() + cancel() for timers that almost never fire.
   */
  lane<E extends LaneEntry>(run: (entry: E) => void, label: string): Lane<E> {
    return this.queue.lane(run, label);
  }

  /** Number of scheduled, not cancelled events. */
  get pendingEvents(): number {
    return this.queue.size;
  }

  /** Time of the next event, or undefined when nothing is scheduled. */
  get nextEventTime(): number | undefined {
    return this.queue.peek()?.time;
  }

  /** The names of the invariants registered now, in the order they are checked. */
  get invariantNames(): readonly string[] {
    return this.invariants.map((i) => i.name);
  }

  /** Registers a named invariant checked after events; returns a function that removes it. */
  addInvariant(name: string, check: Invariant['check']): () => void {
    const inv = { name, check };
    this.invariants = [...this.invariants, inv];
    this.watched = true;
    return () => {
      this.invariants = this.invariants.filter((i) => i !== inv);
      this.watched = this.invariants.length > 0 || this.afterEventHooks.length > 0;
    };
  }

  /**
   * Calls `fn` after every event (after the event's invariants passed, and whatever `invariantEvery` is), before
   * runUntil's predicate, so it sees the state each event leaves. A hook only observes: it must not schedule,
   * send or change model state, or the run would differ from one without it (reports and samplers rely on that).
   * A hook that throws stops the run with a SimulationError. Returns the function that removes the hook.
   */
  onAfterEvent(fn: () => void): () => void {
    // Copy on write: a hook may remove itself (or another) while the hooks are being called.
    this.afterEventHooks = [...this.afterEventHooks, fn];
    this.watched = true;
    return () => {
      this.afterEventHooks = this.afterEventHooks.filter((h) => h !== fn);
      this.watched = this.invariants.length > 0 || this.afterEventHooks.length > 0;
    };
  }

  /** Checks every invariant now; throws InvariantViolation on the first that fails. */
  checkInvariants(): void {
    for (const inv of this.invariants) {
      const r = inv.check();
      if (r === undefined || r === true) continue;
      const detail = r === false ? 'check returned false' : r;
      this.trace.emit('invariant.violated', undefined, { invariant: inv.name, detail });
      throw new InvariantViolation(inv.name, detail, this.context());
    }
  }

  context(): SimContext {
    return { seed: this.seed, time: this.#now, event: this.eventCount };
  }

  /** Executes the next event. Returns false when the queue is empty. */
  step(): boolean {
    const ev = this.queue.pop();
    if (!ev) return false;
    this.execute(ev);
    return true;
  }

  private execute(ev: SimEvent): void {
    const fn = ev.fn as (arg: unknown) => void;
    const label = ev.label;
    ev.fn = null;
    this.#now = ev.time;
    this.eventCount++;
    this.fingerprint.event(ev.time, label, ev.lane === null ? ev.node : laneNode(ev));
    try {
      fn(ev.arg);
    } catch (err) {
      if (
        err instanceof InvariantViolation ||
        err instanceof SimulationError ||
        err instanceof SimTimeoutError
      ) {
        throw err;
      }
      throw new SimulationError(this.context(), label, err);
    }
    // Out of line, so that an unwatched run pays one field test and execute stays small enough to inline.
    if (this.watched) this.afterEvent(label);
  }

  private afterEvent(label: string | undefined): void {
    if (this.invariants.length > 0 && this.eventCount % this.invariantEvery === 0) this.checkInvariants();
    for (const hook of this.afterEventHooks) {
      try {
        hook();
      } catch (err) {
        throw new SimulationError(
          this.context(),
          `after-event hook (after ${label ?? 'unnamed event'})`,
          err,
        );
      }
    }
  }

  /**
   * Stops the run in progress after the current event. Outside a run it does nothing: a flag left set would
   * silently swallow the next run.
   */
  stop(): void {
    if (this.running) this.stopped = true;
  }

  /**
   * Runs every event up to now + duration, then sets the clock to exactly now + duration (unless stopped, or
   * maxEvents ran out first: then events before the end are still pending and the clock must not pass them).
   */
  runFor(duration: number | string, options: { maxEvents?: number } = {}): void {
    const end = this.#now + parseDuration(duration, 'runFor');
    const outcome = this.loop(end, options.maxEvents ?? Number.POSITIVE_INFINITY, undefined);
    if ((outcome === 'deadline' || outcome === 'drained') && this.#now < end) this.#now = end;
    this.stopped = false;
  }

  /** Runs until the queue is empty (or stop()). */
  runToCompletion(options: { maxEvents?: number } = {}): void {
    this.loop(Number.POSITIVE_INFINITY, options.maxEvents ?? Number.POSITIVE_INFINITY, undefined);
    this.stopped = false;
  }

  /**
   * Runs until `predicate` holds (checked before the first event and after each one). Throws SimTimeoutError,
   * naming the seed, the virtual time and `description`, when the timeout or the event budget runs out or the
   * queue drains first. Returns the virtual time at which the condition held.
   */
  runUntil(predicate: () => boolean, options: RunUntilOptions = {}): number {
    const description = options.description ?? 'condition';
    const deadline =
      options.timeout === undefined
        ? Number.POSITIVE_INFINITY
        : this.#now + parseDuration(options.timeout, 'timeout');
    const maxEvents = options.maxEvents ?? 100_000_000;
    if (predicate()) return this.#now;
    const outcome = this.loop(deadline, maxEvents, predicate);
    this.stopped = false;
    if (outcome === 'met') return this.#now;
    if (outcome === 'stopped')
      throw new SimTimeoutError(description, 'the simulation was stopped', this.context());
    if (outcome === 'deadline') {
      this.#now = deadline;
      throw new SimTimeoutError(description, `not reached within ${options.timeout}`, this.context());
    }
    if (outcome === 'events') {
      throw new SimTimeoutError(description, `not reached within ${maxEvents} events`, this.context());
    }
    throw new SimTimeoutError(description, 'no events left to run', this.context());
  }

  private loop(
    end: number,
    maxEvents: number,
    predicate: (() => boolean) | undefined,
  ): 'met' | 'deadline' | 'events' | 'drained' | 'stopped' {
    if (this.running) throw new Error('the simulation is already running (run* called from inside an event)');
    this.running = true;
    const queue = this.queue;
    let n = 0;
    try {
      for (;;) {
        if (this.stopped) return 'stopped';
        const ev = queue.peek();
        if (!ev) return 'drained';
        if (ev.time > end) return 'deadline';
        if (n >= maxEvents) return 'events';
        queue.pop();
        n++;
        this.execute(ev);
        if (predicate?.()) return 'met';
      }
    } finally {
      this.running = false;
    }
  }
}
