// reassign: kafka-reassign-partitions.sh --execute with Kafka's reassignment JSON (inline or a file).
import type { Cluster } from '../../cluster/index.ts';
import { toKafkaError } from '../../cluster/index.ts';
import { formatExecute, type ReassignmentEntry, tpString } from '../../format/index.ts';
import { exactlyOne, object } from '../schema-kit.ts';
import type { DocPath } from '../source.ts';
import type { StepSpec } from '../types.ts';
import { BOOTSTRAP, reportApplied, type StepDefinition, StepFailure, toolStartup } from './step.ts';

export interface ReassignSpec {
  json?: string | Record<string, unknown>;
  file?: string;
  throttle?: number;
}

/** The file name a reassign step's JSON is shown under: its `file`, else the step's label (`move` -> move.json). */
export function reassignmentFileName(step: StepSpec, index: number): string {
  return step.reassign?.file ?? `${step.label ?? `reassignment-${index}`}.json`;
}

/** Kafka's current assignment of the partitions of `topics`, as the tool reads it from a broker's metadata. */
function currentAssignment(cluster: Cluster, topics: Iterable<string>): ReassignmentEntry[] {
  const image = cluster.liveBroker().image;
  const out: ReassignmentEntry[] = [];
  for (const name of new Set(topics)) {
    image.topics[name]?.partitions.forEach((p, partition) => {
      out.push({ topic: name, partition, replicas: [...p.replicas] });
    });
  }
  return out;
}

export const reassign: StepDefinition<ReassignSpec> = {
  schema: object(
    {
      json: {
        type: ['object', 'string'],
        title: 'the reassignment JSON (a mapping, or the JSON text)',
        description:
          "Kafka's reassignment JSON inline: {version: 1, partitions: [{topic, partition, replicas: [..]}]}.",
      },
      file: { type: 'string', description: 'A reassignment JSON file, relative to the scenario file.' },
      throttle: {
        type: 'integer',
        minimum: 0,
        description: '--throttle in B/s (printed as the tool prints it).',
      },
    },
    [],
    { oneOf: exactlyOne(['json', 'file']) },
  ),
  syntax: '`{json: <Kafka JSON inline>}` or `{file: move.json}`, `throttle?`',
  description:
    'kafka-reassign-partitions.sh --execute: prints the rollback JSON and `Successfully started partition reassignments for ...`.',
  check(r, at) {
    const json = at.readReassignment(r);
    if (!json) return;
    const inline = typeof r.json === 'object';
    json.partitions.forEach((p, j) => {
      const where: DocPath = inline ? [...at.path, 'json', 'partitions', j] : at.path;
      at.checkTopic([...where, ...(inline ? ['topic'] : [])], p.topic);
      p.replicas.forEach((b, i) => {
        if (!at.brokerIds.includes(b))
          at.report(
            inline ? [...where, 'replicas', i] : where,
            `unknown broker ${b} in the replicas of ${p.topic}-${p.partition}; the cluster's brokers are ${at.brokerIds.join(', ')}`,
          );
      });
    });
  },
  describe(r, { step, index, reassignments }) {
    const file = reassignmentFileName(step, index);
    const throttle = r.throttle !== undefined ? ` --throttle ${r.throttle}` : '';
    const n = reassignments.get(index)?.partitions.length ?? 0;
    return `$ kafka-reassign-partitions.sh --bootstrap-server ${BOOTSTRAP} --reassignment-json-file ${file} --execute${throttle}   # ${n} partition${n === 1 ? '' : 's'}`;
  },
  execute(r, at) {
    const { cluster, print, reassignments, index } = at;
    const json = reassignments.get(index)!;
    toolStartup(at);
    const proposed = json.partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
    const current = currentAssignment(
      cluster,
      json.partitions.map((p) => p.topic),
    );
    const opts = r.throttle !== undefined ? { interBrokerThrottle: r.throttle } : {};
    const response = cluster.admin.alterPartitionReassignments(
      json.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] })),
    );
    reportApplied(at);
    const errors = new Map<string, string>();
    const top = toKafkaError(response);
    for (const p of response.partitions) {
      const err = toKafkaError(p) ?? top;
      if (err) errors.set(tpString(p), err.message);
    }
    if (top && response.partitions.length === 0)
      for (const tp of proposed) errors.set(tpString(tp), top.message);
    const text = formatExecute(current, proposed, opts);
    if (errors.size > 0) {
      // The tool prints the rollback JSON, then fails with one line per partition, sorted (apache/kafka
      // ReassignPartitionsCommand.executeAssignment: "Error reassigning partition(s):%n" + "tp: message").
      const rollback = text.slice(0, text.lastIndexOf('Successfully started'));
      const lines = [...errors.keys()]
        .map((tp) => ({ tp, ...proposed.find((x) => tpString(x) === tp)! }))
        .sort((x, y) => (x.topic !== y.topic ? (x.topic < y.topic ? -1 : 1) : x.partition - y.partition))
        .map((x) => `${x.tp}: ${errors.get(x.tp)}`);
      print(`${rollback}Error reassigning partition(s):\n${lines.join('\n')}\n`);
      throw new StepFailure(`the reassignment was refused: ${lines.join('; ')}`);
    }
    print(text);
    return undefined;
  },
};
