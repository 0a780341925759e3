// Every formatter and parser in src/format reports input it cannot render by throwing this one error type,
// so callers (CLI, API, scenario runner) catch a single class and can show `message` as is.

/** What kind of problem the input has; stable for callers and tests to match on. */
import { ExitCode, KafkasimError } from '../../models/sim/index.ts';
export type FormatInputReason =
  | 'json'
  | 'type'
  | 'missing-field'
  | 'unsupported-version'
  | 'empty-partitions'
  | 'empty-replicas'
  | 'duplicate-partition'
  | 'duplicate-replica'
  | 'log-dirs-length'
  | 'format-spec'
  | 'invalid-view';

/** Where in a text input a problem is: 0-based offset, 1-based line and column. */
export interface TextPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

export class FormatInputError extends KafkasimError {
  readonly code = 'INVALID_TOOL_INPUT';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'FormatInputError';
  constructor(
    readonly reason: FormatInputReason,
    message: string,
    /** JSON-path-like location, e.g. `partitions[2].replicas[1]`; `$` is the whole document. */
    readonly path?: string,
    readonly position?: TextPosition,
  ) {
    super(message);
  }
}
