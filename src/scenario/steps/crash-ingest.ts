// crashIngest: an ingest service crashes after its next successful ingest, before the offset commit.
import { parseDuration } from '../../../models/sim/index.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { StepDefinition } from './step.ts';

export interface CrashIngestSpec {
  name: string;
  /** Only when this worker ingests (default: any worker). */
  worker?: number;
  /** Starts the service again after this long (default: it stays down until a `start` step). */
  restartAfter?: string;
}

export const crashIngest: StepDefinition<CrashIngestSpec> = {
  schema: object(
    {
      name: ref('clientName'),
      worker: {
        type: 'integer',
        minimum: 0,
        description: 'Only when this worker ingests (default: any).',
      },
      restartAfter: withDescription(
        ref('duration'),
        'Starts the service again after this long (default: it stays down until a `start` step).',
      ),
    },
    ['name'],
  ),
  syntax: '`{name, worker?, restartAfter?}`',
  description:
    'Arms a crash of an ingest service right after its next successful ingest and before the offset commit: the rows are in the Lake, the offsets are not committed, so the batch is read again (duplicates unless useReplaceMode). The step does not wait for the crash.',
  check: (c, at) => at.checkClient([...at.path, 'name'], c.name, ['ingest'], 'ingest service'),
  describe(c) {
    const who = c.worker !== undefined ? `worker-${c.worker} of ${c.name}` : c.name;
    const restart = c.restartAfter !== undefined ? `, restart after ${c.restartAfter}` : '';
    return `# ${who} crashes after its next ingest, before the commit${restart}`;
  },
  execute(c, { clients }) {
    clients.ingestService(c.name).crashBeforeNextCommit({
      ...(c.worker !== undefined ? { worker: c.worker } : {}),
      ...(c.restartAfter !== undefined ? { restartAfter: parseDuration(c.restartAfter) } : {}),
    });
    return undefined;
  },
};
