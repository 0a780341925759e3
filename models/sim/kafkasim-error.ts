// The one error hierarchy: every failure kafkasim itself reports (bad input, a run that failed, a broken model)
// is a KafkasimError with a stable `code` to match on and the `exitCode` the CLI ends with, so that the CLI maps
// errors by their exit code instead of class by class.
//
// Not in it, on purpose: the answers of the simulated systems, which carry those systems' own numeric codes and
// reach the simulated clients as values (KafkaError: Kafka's error code and Java exception; LakeError:
// Databend's code; the HTTP server's ApiError: a status and a REST v3 error code).

/** How the `kafkasim` process ends. */
export const ExitCode = {
  /** Done, and every expectation held. */
  ok: 0,
  /** The run failed: an expectation, a step, an invariant, a wait that timed out, a server that refused. */
  failed: 1,
  /** The input is invalid (a flag, a scenario, a config): nothing ran. */
  invalidInput: 2,
  /** A bug in kafkasim: a model broke its own rules. */
  internal: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export abstract class KafkasimError extends Error {
  /** What went wrong, as a stable upper-case name (`INVALID_SCENARIO`, `INVARIANT_VIOLATED`, ...). */
  abstract readonly code: string;
  /** The exit code of the CLI when this error ends a command. */
  abstract readonly exitCode: ExitCode;
}
