// Paces a served simulation to the wall clock: at speed N, one wall second is N virtual seconds; `max` runs as
// fast as the machine allows. This is the only place real timers touch the simulator: the kernel and the models
// never see them. Work is done in short slices (a few ms of wall time at most) between which the event loop
// serves HTTP requests, so a request is applied between two slices, at the current virtual time.
import type { ClockDriver, SimHost } from './host.ts';

export type Speed = number | 'max';

export interface PacerOptions {
  speed?: Speed;
  /** Start paused. */
  paused?: boolean;
  /** Never run on its own: the clock moves only through requests (advance, step). Tests and replays use it. */
  manual?: boolean;
}

export interface PacerStatus {
  speed: Speed;
  paused: boolean;
  manual: boolean;
  /** Paused by the breakpoint (a lesson's next step is due), not by a request. */
  at_breakpoint: boolean;
  /** The simulation could not keep up with the wall clock at this speed (pacing restarted from where it was). */
  lagging: boolean;
}

/** Virtual ms run per slice; small enough that a slice stays well under a millisecond of wall time. */
const SLICE_MS = 50;
/** Wall ms of simulation per tick before yielding to the event loop. */
const TICK_BUDGET_MS = 20;
/** Wall ms between ticks at a finite speed. */
const TICK_INTERVAL_MS = 10;
/** Falling this many wall ms behind restarts pacing from the current virtual time instead of catching up. */
const MAX_BACKLOG_WALL_MS = 1000;

export const MAX_SPEED = 10_000;

/**
 * Where pacing stops by itself (a lesson's next step, src/api/lesson.ts): never past `at()` (virtual ms), and as
 * soon as `ready()` holds (checked after every event when `at()` is null). Pacing pauses there, so the step is
 * asked for, and logged, exactly at that moment.
 */
export interface Breakpoint {
  /** The moment to stop at; null for "when ready() holds"; undefined for no breakpoint. */
  at(): number | null | undefined;
  ready(): boolean;
}

/**
 * A speed as a request or a flag gives it: `max`, a JSON number, or a positive decimal in plain notation (`10`,
 * `0.5`; not `1e3`, `0x10`, ` 5` or `Infinity`), above 0 and at most MAX_SPEED. Undefined for anything else.
 */
export function speedOf(value: unknown): Speed | undefined {
  if (value === 'max') return 'max';
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^(?:\d{1,10}(?:\.\d{1,10})?|\.\d{1,10})$/.test(value))
    n = Number(value);
  else return undefined;
  return Number.isFinite(n) && n > 0 && n <= MAX_SPEED ? n : undefined;
}

export class Pacer implements ClockDriver {
  speed: Speed;
  paused: boolean;
  readonly manual: boolean;
  lagging = false;
  breakpoint: Breakpoint | undefined;
  /** Paused because the breakpoint was reached. */
  atBreakpoint = false;
  /** Called each time pacing stops at the breakpoint (`serve --play` runs the due step from here). */
  onBreakpoint: (() => void) | undefined;
  private anchorWall = 0;
  private anchorVirtual = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private closed = false;

  constructor(
    private readonly host: SimHost,
    options: PacerOptions = {},
    private readonly wallNow: () => number = () => performance.now(),
  ) {
    this.speed = options.speed ?? 1;
    this.paused = options.paused ?? false;
    this.manual = options.manual ?? false;
    host.driver = this;
    this.reanchor();
  }

  status(): PacerStatus {
    return {
      speed: this.speed,
      paused: this.paused,
      manual: this.manual,
      at_breakpoint: this.atBreakpoint,
      lagging: this.lagging,
    };
  }

  /** Starts ticking (nothing happens in manual mode). */
  start(): void {
    this.reanchor();
    this.schedule();
  }

  pause(): void {
    this.paused = true;
    this.atBreakpoint = false;
    this.cancel();
  }

  resume(): void {
    if (this.host.halted !== undefined) return;
    this.host.beforeChange?.();
    this.paused = false;
    this.atBreakpoint = false;
    this.reanchor();
    this.schedule();
  }

  setSpeed(speed: Speed): void {
    this.catchUp();
    this.speed = speed;
    this.reanchor();
    this.cancel();
    this.schedule();
  }

  close(): void {
    this.closed = true;
    this.cancel();
  }

  reanchor(): void {
    this.anchorWall = this.wallNow();
    this.anchorVirtual = this.host.sim.now;
    this.lagging = false;
  }

  halt(): void {
    this.cancel();
  }

  catchUp(): void {
    if (this.manual || this.paused || this.closed || this.host.halted !== undefined || this.speed === 'max')
      return;
    this.run(TICK_BUDGET_MS);
  }

  private stopAtBreakpoint(): void {
    this.pause();
    this.atBreakpoint = true;
    this.onBreakpoint?.();
  }

  private running(): boolean {
    return !this.manual && !this.paused && !this.closed && this.host.halted === undefined;
  }

  private schedule(): void {
    if (!this.running() || this.timer !== undefined) return;
    if (this.speed === 'max') {
      this.timer = setImmediate(() => this.tick());
    } else {
      const t = setTimeout(() => this.tick(), TICK_INTERVAL_MS);
      this.timer = t;
    }
  }

  private cancel(): void {
    if (this.timer === undefined) return;
    // The handle is a timeout or an immediate depending on the speed it was scheduled at: clear both ways.
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }

  private tick(): void {
    this.timer = undefined;
    if (!this.running()) return;
    // A change being applied (an advance in slices, a Lake statement) owns the clock until it is done.
    if (!this.host.busy) this.run(TICK_BUDGET_MS);
    this.schedule();
  }

  private run(budgetMs: number): void {
    const deadline = this.wallNow() + budgetMs;
    const target =
      this.speed === 'max'
        ? Number.POSITIVE_INFINITY
        : this.anchorVirtual + (this.wallNow() - this.anchorWall) * this.speed;
    const bp = this.breakpoint;
    const stopAt = bp?.at();
    const stop = stopAt === null ? () => bp!.ready() : undefined;
    try {
      if (stopAt !== undefined && bp!.ready()) return this.stopAtBreakpoint();
      const end = typeof stopAt === 'number' ? Math.min(target, stopAt) : target;
      while (this.host.sim.now < end && this.wallNow() < deadline && this.host.halted === undefined) {
        if (this.host.advanceTo(Math.min(end, this.host.sim.now + SLICE_MS), stop))
          return this.stopAtBreakpoint();
      }
      if (typeof stopAt === 'number' && this.host.sim.now >= stopAt) return this.stopAtBreakpoint();
    } catch {
      // The host recorded why the simulation halted; pacing stops with it.
      this.cancel();
      return;
    }
    if (this.speed !== 'max' && target - this.host.sim.now > MAX_BACKLOG_WALL_MS * this.speed) {
      this.reanchor();
      this.lagging = true;
    }
  }
}
