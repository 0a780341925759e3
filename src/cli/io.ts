// Where a command writes. Tests pass buffers; the real command passes process streams.
// From the error's own module, not the kernel's index: `kafkasim --help` and `list` load no kernel (xstate, seedrandom).
import { ExitCode, KafkasimError } from '../../models/sim/kafkasim-error.ts';
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stdout is a terminal (progress bars, colour). */
  isTTY: boolean;
  env: Record<string, string | undefined>;
}

export const processIO = (): CliIO => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
});

/** A usage error: printed as `kafkasim: <message>` with exit code 2, never as a stack trace. */
export class UsageError extends KafkasimError {
  readonly code = 'USAGE';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'UsageError';
}

/** Collects output in memory (for tests and for the library API). */
export function bufferIO(): CliIO & { out: string[]; err: string[]; text(): string; errors(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    isTTY: false,
    env: {},
    text: () => out.join(''),
    errors: () => err.join(''),
  };
}
