// Errors the kernel raises. Each names the seed, the virtual time and the event number, so that a failure can be
// replayed exactly (`--seed N`).

import { ExitCode, KafkasimError } from './kafkasim-error.ts';

export interface SimContext {
  seed: string;
  time: number;
  event: number;
}

// Virtual times are fractional milliseconds; microseconds are enough to place an event and keep the line readable.
const where = (c: SimContext) =>
  `seed ${c.seed}, virtual time ${Number(c.time.toFixed(3))}ms, event #${c.event}`;

/** A named invariant did not hold after an event. */
export class InvariantViolation extends KafkasimError {
  readonly code = 'INVARIANT_VIOLATED';
  readonly exitCode = ExitCode.failed;
  override name = 'InvariantViolation';
  constructor(
    readonly invariant: string,
    readonly detail: string,
    readonly context: SimContext,
  ) {
    super(`invariant ${invariant} violated: ${detail} (${where(context)}); replay with seed ${context.seed}`);
  }
}

/** `runUntil` ran out of virtual time or events before its condition held. */
export class SimTimeoutError extends KafkasimError {
  readonly code = 'SIM_TIMEOUT';
  readonly exitCode = ExitCode.failed;
  override name = 'SimTimeoutError';
  constructor(
    readonly waitedFor: string,
    readonly reason: string,
    readonly context: SimContext,
  ) {
    super(
      `timed out waiting for ${waitedFor}: ${reason} (${where(context)}); replay with seed ${context.seed}`,
    );
  }
}

/** An event callback threw; the original error is the `cause`. */
export class SimulationError extends KafkasimError {
  readonly code = 'EVENT_FAILED';
  readonly exitCode = ExitCode.internal;
  override name = 'SimulationError';
  constructor(
    readonly context: SimContext,
    readonly label: string | undefined,
    cause: unknown,
  ) {
    const msg = cause instanceof Error ? cause.message : String(cause);
    super(`${msg} (in event ${label ?? '(unnamed)'}; ${where(context)}); replay with seed ${context.seed}`, {
      cause,
    });
  }
}
