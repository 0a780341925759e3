// ingest: a bend-ingest-kafka service's metrics, losses and its workers' assignment.
import { exactlyOne, object, ref, withDescription } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields } from './condition.ts';

export interface IngestCondition {
  name: string;
  rowsTotal?: Comparison;
  errorsTotal?: Comparison;
  consumeRowsTotal?: Comparison;
  lostBatches?: Comparison;
  lostRecords?: Comparison;
  assigned?: Comparison;
  minPerWorker?: Comparison;
  maxPerWorker?: Comparison;
}

const cmp = ref('comparison');
const KEYS = [
  'rowsTotal',
  'errorsTotal',
  'consumeRowsTotal',
  'lostBatches',
  'lostRecords',
  'assigned',
  'minPerWorker',
  'maxPerWorker',
] as const;

export const ingest: ConditionDefinition<IngestCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    {
      name: ref('clientName'),
      rowsTotal: withDescription(cmp, 'bend_ingest_kafka_ingest_rows_total'),
      errorsTotal: withDescription(cmp, 'bend_ingest_kafka_ingest_errors_total'),
      consumeRowsTotal: withDescription(cmp, 'bend_ingest_kafka_consume_rows_total'),
      lostBatches: withDescription(
        cmp,
        'Batches the service gave up on (their records are not in the Lake).',
      ),
      lostRecords: withDescription(cmp, 'Records in the batches the service gave up on.'),
      assigned: withDescription(cmp, 'Distinct partitions in the workers’ current assignment.'),
      minPerWorker: withDescription(cmp, 'The fewest partitions a worker holds.'),
      maxPerWorker: withDescription(cmp, 'The most partitions a worker holds.'),
    },
    ['name'],
    { anyOf: exactlyOne(KEYS) },
  ),
  syntax:
    '`{name, rowsTotal | errorsTotal | consumeRowsTotal | lostBatches | lostRecords | assigned | minPerWorker | maxPerWorker}`',
  description:
    "An ingest service's metrics (bend_ingest_kafka_ingest_rows_total, ..._ingest_errors_total, ..._consume_rows_total), its lost batches, and its workers' current assignment: `assigned` distinct partitions, the fewest and most per worker.",
  check: (v, refs, path) => refs.checkClient([...path, 'name'], v.name, ['ingest'], 'ingest service'),
  evaluate: (i, ctx) =>
    fields(
      `ingest service ${i.name}`,
      { ...ctx.clients.ingestStats(i.name) },
      Object.fromEntries(KEYS.map((k) => [k, i[k]])),
    ),
};
