// A sweep that cannot run as asked (a bad flag, a grid value the scenario rejects, an unknown metric, shard
// files that do not belong together). The CLI prints the message and exits with code 2.
import { ExitCode, KafkasimError } from '../../models/sim/index.ts';

export class SweepInputError extends KafkasimError {
  readonly code = 'INVALID_SWEEP';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'SweepInputError';
}
