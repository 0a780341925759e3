// The request log: every change a server applied, in order, with the exact position of the simulation when it
// was applied (events executed, virtual time) and the trace hash after it, so that replaying the log against the
// same world options reproduces the run event for event. Its limits, and how a request's body and tool header
// are recorded.

import { ApiError, badRequest } from './errors.ts';
import type { WorldOptions } from './world.ts';

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
export function toolOf(headers: Record<string, unknown> | undefined): string | undefined {
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

/** Limits on the request log (docs/security.md): past them, changes are refused rather than left out. */
export const REQUEST_LOG_LIMITS = {
  /** Bytes of normalised requests (as JSON) one log holds. */
  maxBytes: 64 * 1024 * 1024,
  maxEntries: 1_000_000,
} as const;

/**
 * A request body as the log keeps it: the parsed and validated value as JSON text (undefined for none). A
 * value JSON cannot hold (a cycle, a BigInt) is refused here, before anything changed.
 */
export function normalisedBody(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  try {
    return JSON.stringify(body);
  } catch (e) {
    throw new ApiError(400, 400, `the request cannot be recorded: ${(e as Error).message}`);
  }
}
