// The one error hierarchy: every error kafkasim reports is a KafkasimError with a code and an exit code, and the
// CLI ends a command with that exit code, printing the message (no class-by-class mapping in the commands).
import { afterEach, describe, expect, it } from 'vitest';
import { AutoBalancerConfigError } from '../../models/balancer/index.ts';
import { ReplicaPlacementError } from '../../models/controller/replica-placer.ts';
import { IngestConfigError } from '../../models/lake/index.ts';
import { MetadataReplayError } from '../../models/metadata/image.ts';
import { NotLeaderError, RaftLogError } from '../../models/raft/index.ts';
import {
  DurationError,
  ExitCode,
  InvariantViolation,
  KafkasimError,
  SimTimeoutError,
  SimulationError,
} from '../../models/sim/index.ts';
import { ApiConnectionError, ApiRequestError } from '../../src/api/client.ts';
import { ToolArgsError } from '../../src/api/tool-args.ts';
import { bufferIO, UsageError } from '../../src/cli/io.ts';
import { commands, main } from '../../src/cli/main.ts';
import { FormatInputError } from '../../src/format/index.ts';
import { ScenarioError } from '../../src/scenario/index.ts';
import { StepFailure } from '../../src/scenario/steps/index.ts';
import { SweepInputError } from '../../src/sweep/index.ts';

const ctx = { seed: '1', time: 5, event: 3 };
const cases: [KafkasimError, ExitCode][] = [
  [new UsageError('bad flag'), ExitCode.invalidInput],
  [
    new ScenarioError([{ source: 's.yaml', path: 'seed', message: 'expected an integer' }]),
    ExitCode.invalidInput,
  ],
  [new ToolArgsError('bad tool flag'), ExitCode.invalidInput],
  [new SweepInputError('bad grid'), ExitCode.invalidInput],
  [new FormatInputError('json', 'bad move.json'), ExitCode.invalidInput],
  [new DurationError('bad duration'), ExitCode.invalidInput],
  [new IngestConfigError('bad ingest config'), ExitCode.invalidInput],
  [new AutoBalancerConfigError('bad balancer key'), ExitCode.invalidInput],
  [new StepFailure('a step failed'), ExitCode.failed],
  [new InvariantViolation('Inv', 'broken', ctx), ExitCode.failed],
  [new SimTimeoutError('x', 'no events left', ctx), ExitCode.failed],
  [new ApiConnectionError('no server'), ExitCode.failed],
  [new ApiRequestError(404, 40403, 'no topic'), ExitCode.failed],
  [new SimulationError(ctx, 'e', new Error('boom')), ExitCode.internal],
  [
    new MetadataReplayError(0, { type: 'TopicRecord', name: 't', topicId: 'x' } as never, 'dup'),
    ExitCode.internal,
  ],
  [new RaftLogError('unsafe'), ExitCode.internal],
  [new NotLeaderError(1, 2), ExitCode.internal],
  [new ReplicaPlacementError('too few brokers'), ExitCode.internal],
];

afterEach(() => {
  delete commands.throws;
});

describe('KafkasimError', () => {
  it('every error class kafkasim raises is one, with a distinct upper-case code', () => {
    const codes = cases.map(([e]) => e.code);
    for (const [e] of cases) {
      expect(e).toBeInstanceOf(KafkasimError);
      expect(e).toBeInstanceOf(Error);
      expect(e.code).toMatch(/^[A-Z][A-Z_]+$/);
    }
    expect(new Set(codes).size).toBe(codes.length);
  });

  for (const [error, exitCode] of cases) {
    it(`the CLI ends a command that throws ${error.name} (${error.code}) with exit code ${exitCode}`, async () => {
      expect(error.exitCode).toBe(exitCode);
      commands.throws = {
        summary: 'throws',
        load: async () => () => {
          throw error;
        },
      };
      const io = bufferIO();
      expect(await main(['throws'], io)).toBe(exitCode);
      if (exitCode === ExitCode.internal)
        expect(io.errors()).toBe(`kafkasim throws: internal error: ${error.message}\n`);
      else expect(io.errors()).toBe(`kafkasim throws: ${error.message}\n`);
    });
  }

  it('anything else is an internal error (exit 3), with the stack only under KAFKASIM_DEBUG', async () => {
    commands.throws = {
      summary: 'throws',
      load: async () => () => {
        throw new TypeError('oops');
      },
    };
    const io = bufferIO();
    expect(await main(['throws'], io)).toBe(3);
    expect(io.errors()).toBe('kafkasim throws: internal error: oops\n');
  });
});
