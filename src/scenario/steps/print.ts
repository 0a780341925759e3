// print: tool output now: kafka-topics --describe / --list, kafka-reassign-partitions --verify, a delivery
// report, kafka-consumer-groups --describe, an ingest service's metrics or losses, a Lake SQL answer, or text.
import type { Cluster } from '../../cluster/index.ts';
import {
  formatTopicCommandError,
  formatTopicList,
  formatVerify,
  type PartitionReassignmentStatus,
  type ReassignmentJson,
  tpString,
} from '../../format/index.ts';
import { object, ref } from '../schema-kit.ts';
import { reassignmentFileName } from './reassign.ts';
import { BOOTSTRAP, type StepDefinition, type StepExecute, StepFailure } from './step.ts';

export type PrintKind = 'describe-topic' | 'list-topics' | 'reassign-verify' | 'delivery-report';

export type PrintSpec =
  | PrintKind
  | { 'describe-topic': string }
  | { 'reassign-verify': string }
  | { 'delivery-report': string }
  | { 'describe-group': string }
  | { 'ingest-metrics': string }
  | { 'ingest-losses': string }
  | { sql: string }
  | { text: string };

const has = <K extends string>(p: PrintSpec, key: K): p is Extract<PrintSpec, Record<K, string>> =>
  typeof p === 'object' && key in p;

const kt = `kafka-topics.sh --bootstrap-server ${BOOTSTRAP}`;

export const print: StepDefinition<PrintSpec> = {
  schema: {
    title:
      'one of describe-topic, list-topics, reassign-verify, delivery-report, or {describe-topic: <topic>}, {reassign-verify: <label>}, {delivery-report: <producer>}, {describe-group: <group>}, {ingest-metrics: <ingest>}, {ingest-losses: <ingest>}, {sql: <query>}, {text: ...}',
    anyOf: [
      { type: 'string', enum: ['describe-topic', 'list-topics', 'reassign-verify', 'delivery-report'] },
      object({ 'describe-topic': ref('topicName') }, ['describe-topic']),
      object({ 'reassign-verify': ref('label') }, ['reassign-verify']),
      object({ 'delivery-report': ref('clientName') }, ['delivery-report']),
      object({ 'describe-group': { type: 'string', minLength: 1 } }, ['describe-group']),
      object({ 'ingest-metrics': ref('clientName') }, ['ingest-metrics']),
      object({ 'ingest-losses': ref('clientName') }, ['ingest-losses']),
      object({ sql: { type: 'string', minLength: 1 } }, ['sql']),
      object({ text: { type: 'string' } }, ['text']),
    ],
  },
  syntax:
    '`describe-topic` (all) or `{describe-topic: t}`, `list-topics`, `reassign-verify` (the last) or `{reassign-verify: <label>}`, `delivery-report` or `{delivery-report: <producer>}`, `{describe-group: <group>}`, `{ingest-metrics: <ingest>}`, `{ingest-losses: <ingest>}`, `{sql: <query>}`, `{text}`',
  description:
    "Prints tool output now: kafka-topics --describe (every topic, or one), --list, kafka-reassign-partitions --verify (of the last reassign step, or the one labelled), a producer's delivery report, kafka-consumer-groups --describe --group, an ingest service's metrics page or its lost batches (offsets and reason) and crashes between ingest and commit, the result of a Lake SQL query as of this moment (needs runScenarioAsync, which `kafkasim run` uses), or a text line.",
  check(p, at) {
    if (p === 'reassign-verify' && at.lastReassign < 0)
      at.report(at.path, 'reassign-verify needs an earlier reassign step');
    if (p === 'delivery-report' && !at.declares(['producer', 'perfProducer']))
      at.report(at.path, 'delivery-report needs a producer under clients');
    if (has(p, 'describe-topic')) at.checkTopic([...at.path, 'describe-topic'], p['describe-topic']);
    if (has(p, 'reassign-verify'))
      at.checkLabel([...at.path, 'reassign-verify'], p['reassign-verify'], at.index, (st) =>
        st.reassign ? undefined : 'is not a reassign step',
      );
    if (has(p, 'delivery-report'))
      at.checkClient(
        [...at.path, 'delivery-report'],
        p['delivery-report'],
        ['producer', 'perfProducer'],
        'producer',
      );
    if (has(p, 'ingest-metrics'))
      at.checkClient([...at.path, 'ingest-metrics'], p['ingest-metrics'], ['ingest'], 'ingest service');
    if (has(p, 'ingest-losses'))
      at.checkClient([...at.path, 'ingest-losses'], p['ingest-losses'], ['ingest'], 'ingest service');
  },
  describe(p, { spec, index }) {
    if (p === 'describe-topic') return `$ ${kt} --describe`;
    if (p === 'list-topics') return `$ ${kt} --list`;
    if (p === 'reassign-verify' || has(p, 'reassign-verify')) {
      const steps = spec.timeline;
      const target =
        typeof p === 'object'
          ? steps.findIndex((x) => x.label === p['reassign-verify'])
          : steps.slice(0, index).findLastIndex((x) => x.reassign !== undefined);
      const file = target >= 0 ? reassignmentFileName(steps[target]!, target) : 'reassignment.json';
      return `$ kafka-reassign-partitions.sh --bootstrap-server ${BOOTSTRAP} --reassignment-json-file ${file} --verify`;
    }
    if (has(p, 'describe-topic')) return `$ ${kt} --describe --topic ${p['describe-topic']}`;
    if (p === 'delivery-report' || has(p, 'delivery-report')) return '# delivery report';
    if (has(p, 'describe-group'))
      return `$ kafka-consumer-groups.sh --bootstrap-server ${BOOTSTRAP} --describe --group ${p['describe-group']}`;
    if (has(p, 'ingest-metrics'))
      return `$ curl -s localhost:<metricsPort>/metrics   # ${p['ingest-metrics']}`;
    if (has(p, 'ingest-losses')) return `# lost batches of ${p['ingest-losses']}`;
    if (has(p, 'sql')) return `# Lake SQL (POST /v1/query): ${p.sql}`;
    return '# print';
  },
  execute(p, ctx) {
    printTool(p, ctx);
    return undefined;
  },
};

function printTool(p: PrintSpec, ctx: StepExecute): void {
  const { cluster, print } = ctx;
  if (p === 'describe-topic' || has(p, 'describe-topic')) {
    const image = cluster.liveBroker().image;
    // TopicCommand describes the matching topics in name order.
    const names = typeof p === 'object' ? [p['describe-topic']] : Object.keys(image.topics).sort();
    for (const name of names) {
      try {
        print(cluster.describeTopic(name));
      } catch (e) {
        print(formatTopicCommandError((e as Error).message));
        throw new StepFailure(`describe ${name}: ${(e as Error).message}`);
      }
    }
    return;
  }
  if (p === 'list-topics') {
    print(formatTopicList(Object.keys(cluster.liveBroker().image.topics)));
    return;
  }
  if (p === 'reassign-verify' || has(p, 'reassign-verify')) {
    const index =
      typeof p === 'object'
        ? [...ctx.steps.values()].find((s) => s.label === p['reassign-verify'])?.index
        : ctx.lastReassign;
    const json = index !== undefined ? ctx.reassignments.get(index) : undefined;
    if (!json) throw new StepFailure('reassign-verify: no reassign step has run yet');
    print(verifyText(cluster, json));
    return;
  }
  if (p === 'delivery-report' || has(p, 'delivery-report')) {
    const names =
      typeof p === 'object'
        ? [p['delivery-report']]
        : ctx.clients.names().filter((n) => ctx.clients.isStarted(n) && ctx.clients.counters(n).sent > 0);
    for (const name of names) {
      const d = ctx.clients.delivery(name);
      print(
        `Delivery report for ${name}: sent=${d.sent} acknowledged=${d.acknowledged} failed=${d.failed} lost=${d.lost} duplicated=${d.duplicated}\n`,
      );
    }
    return;
  }
  if (has(p, 'describe-group')) {
    const r = cluster.describeGroup(p['describe-group']);
    if (r.stdout) print(r.stdout);
    if (r.stderr) print(r.stderr);
    return;
  }
  if (has(p, 'ingest-metrics')) {
    try {
      print(ctx.clients.ingestService(p['ingest-metrics']).metrics.text());
    } catch (e) {
      throw new StepFailure((e as Error).message);
    }
    return;
  }
  if (has(p, 'ingest-losses')) {
    try {
      print(ctx.clients.ingestService(p['ingest-losses']).lossReport());
    } catch (e) {
      throw new StepFailure((e as Error).message);
    }
    return;
  }
  if (has(p, 'sql')) {
    ctx.sql(p.sql);
    return;
  }
  if (has(p, 'text')) print(`${p.text}\n`);
}

/** kafka-reassign-partitions --verify for a reassignment JSON, from the controller's state now. */
function verifyText(cluster: Cluster, json: ReassignmentJson): string {
  const ongoing = new Set(cluster.admin.listPartitionReassignments().reassignments.map((r) => tpString(r)));
  const image = cluster.image;
  const statuses: PartitionReassignmentStatus[] = json.partitions.map((p) => ({
    topic: p.topic,
    partition: p.partition,
    currentReplicas: [...(image.topics[p.topic]?.partitions[p.partition]?.replicas ?? [])],
    targetReplicas: [...p.replicas],
    done: !ongoing.has(tpString(p)),
  }));
  // Once nothing is moving, --verify (without --preserve-throttles) clears throttles on every broker of the
  // cluster and each target replica, and on every topic in the file.
  const allDone = statuses.every((s) => s.done);
  const throttles = allDone
    ? {
        brokers: [...cluster.brokers.keys(), ...json.partitions.flatMap((p) => p.replicas)],
        topics: json.partitions.map((p) => p.topic),
      }
    : null;
  return formatVerify(statuses, throttles);
}
