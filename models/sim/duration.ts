// Durations in configs and scenarios read as `250ms`, `5s`, `2m`, `1h` (or a bare number of milliseconds).
// Virtual time is always a number of milliseconds; fractions are allowed (`1.5s`).

import { ExitCode, KafkasimError } from './kafkasim-error.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)\s*$/;

export class DurationError extends KafkasimError {
  readonly code = 'INVALID_DURATION';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'DurationError';
}

/** Parses a duration into milliseconds. `where` names the input in the error (e.g. a config path). */
export function parseDuration(input: string | number, where?: string): number {
  const at = where ? ` at ${where}` : '';
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) {
      throw new DurationError(
        `invalid duration${at}: ${input} (expected a non-negative number of milliseconds)`,
      );
    }
    return input;
  }
  if (typeof input !== 'string') {
    throw new DurationError(`invalid duration${at}: expected a string like "250ms", "5s", "2m", "1h"`);
  }
  if (/^\s*\d+(\.\d+)?\s*$/.test(input)) return Number(input);
  const m = PATTERN.exec(input);
  if (!m) {
    throw new DurationError(
      `invalid duration${at}: "${input}" (expected a number followed by ms, s, m, h or d, e.g. "250ms", "5s", "2m", "1h")`,
    );
  }
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** Formats milliseconds compactly for people: 250ms, 5s, 2m30s, 1h2m. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 1000) / 1000}ms`;
  if (ms < 60_000) return `${Math.round(ms) / 1000}s`;
  const totalS = Math.floor(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}
