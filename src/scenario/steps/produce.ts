// produce: workflow B's explicit-partition load producer (sequence N to partition N % partitions).
import { object, ref, withDescription } from '../schema-kit.ts';
import type { StepDefinition } from './step.ts';

export interface ProduceSpec {
  topic: string;
  start: number;
  count: number;
  partitions: number;
  name?: string;
  /** Sequences whose value is written as broken JSON (a bad record: its whole ingest batch fails). */
  invalidJson?: number[];
  /** Records per second (default: all at once, as the Go program does). */
  rate?: number;
}

export const produce: StepDefinition<ProduceSpec> = {
  schema: object(
    {
      topic: ref('topicName'),
      start: { type: 'integer', minimum: 0, description: 'The first sequence number.' },
      count: { type: 'integer', minimum: 1, description: 'How many records.' },
      partitions: {
        type: 'integer',
        minimum: 1,
        description: 'Record with sequence N goes to partition N % partitions.',
      },
      name: withDescription(ref('clientName'), 'Producer client name (default explicit-producer-<n>).'),
      rate: {
        type: 'number',
        exclusiveMinimum: 0,
        description:
          'Records per second, handed to the producer in 10 ms steps (default: all at once, as the Go program does). A paced load keeps ingest batches in flight across a rebalance.',
      },
      invalidJson: {
        type: 'array',
        items: { type: 'integer', minimum: 0 },
        minItems: 1,
        uniqueItems: true,
        description:
          'Sequences whose value is written as broken JSON (cut before its closing brace): a bad record. The ingest batch that holds one cannot be built and is lost whole, as in bend-ingest-kafka; print `ingest-losses` shows which records and why.',
      },
    },
    ['topic', 'start', 'count', 'partitions'],
  ),
  syntax: '`{topic, start, count, partitions, name?, rate?, invalidJson?: [sequence...]}`',
  description:
    "Starts workflow B's explicit-partition load producer (key key-<N>, JSON value with the sequence); it prints `produced=N remaining=0 failed=0 elapsed=... rate=... msg/s` when done. The step does not wait for it.",
  check(p, at) {
    at.checkTopic([...at.path, 'topic'], p.topic);
    for (const [j, n] of (p.invalidJson ?? []).entries())
      if (n < p.start || n >= p.start + p.count)
        at.report(
          [...at.path, 'invalidJson', j],
          `sequence ${n} is not produced by this step (it produces ${p.start}..${p.start + p.count - 1})`,
        );
  },
  describe(p) {
    const bad = p.invalidJson?.length ? `; broken JSON at sequence ${p.invalidJson.join(', ')}` : '';
    const pace = p.rate !== undefined ? ` at ${p.rate} records/s` : '';
    return `# produce ${p.count} records (sequences ${p.start}..${p.start + p.count - 1}) to ${p.topic}${pace}, sequence % ${p.partitions} -> partition${bad}`;
  },
  execute(p, { cluster }) {
    cluster.explicitProducer({
      topic: p.topic,
      start: p.start,
      count: p.count,
      partitions: p.partitions,
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.invalidJson ? { invalidJson: p.invalidJson } : {}),
      ...(p.rate !== undefined ? { rate: p.rate } : {}),
    });
    return undefined;
  },
};
