// What each timeline action does to the cluster, and the tool output it prints. Admin actions go through the
// cluster's admin client, so they take virtual time like the real tools; their output is the tools' own text.

import type { ErrorName } from '../../models/protocol/index.ts';
import { ExitCode, formatDuration, KafkasimError, parseDuration } from '../../models/sim/index.ts';
import type { Cluster, RequestFaultRule } from '../cluster/index.ts';
import { CONTROLLER_NODE, toKafkaError } from '../cluster/index.ts';
import {
  formatCreatedTopic,
  formatExecute,
  formatTopicCommandError,
  formatTopicList,
  formatVerify,
  type PartitionReassignmentStatus,
  type ReassignmentEntry,
  type ReassignmentJson,
  tpString,
} from '../format/index.ts';
import type { ScenarioClients } from './clients.ts';
import type { StepRecord } from './conditions.ts';
import { stringify } from './references.ts';
import type {
  BrokerSelector,
  ControllerAction,
  ControllerSelector,
  NodeRef,
  PrintSpec,
  ScenarioSpec,
  StepAction,
  StepSpec,
  TopicSpec,
} from './types.ts';
import { STEP_ACTIONS } from './types.ts';

/** The address tools are shown connecting to (the simulated brokers listen on kafkasim.host:port). */
const BOOTSTRAP = 'localhost:9092';

/** A step failed in a way the scenario did not ask for (the run fails; the timeline stops). */
export class StepFailure extends KafkasimError {
  readonly code = 'STEP_FAILED';
  readonly exitCode = ExitCode.failed;
  override name = 'StepFailure';
}

export function actionOf(step: StepSpec): StepAction {
  const a = STEP_ACTIONS.find((k) => step[k] !== undefined);
  if (!a) throw new Error('a step without an action passed validation');
  return a;
}

export interface StepContext {
  cluster: Cluster;
  clients: ScenarioClients;
  steps: ReadonlyMap<string, StepRecord>;
  reassignments: ReadonlyMap<number, ReassignmentJson>;
  /** Index of the latest reassign step so far. */
  lastReassign: number | undefined;
  print: (text: string) => void;
  /** Prints the result of a Lake SQL query as of now (the runner defers it: DuckDB answers asynchronously). */
  sql: (query: string) => void;
  /** Told which controller a crashController/restartController step acted on (for `controllerOf`). */
  actedOnController?: (id: number) => void;
  /** Told when a tool step's request reached the controller (virtual ms), for `fromPoint: applied`. */
  applied?: (t: number) => void;
}

/**
 * An operator's tool starting up before its first request (kafkasim.tool.startup.ms, drawn from the seed): the
 * cluster and its clients run on meanwhile, so where the command lands in their timers varies as in life.
 */
function toolStartup(ctx: StepContext): void {
  const ms = ctx.cluster.startup.toolMs();
  if (ms > 0) ctx.cluster.runFor(ms);
}

/** Reports when the tool's request reached the controller. */
function applied(ctx: StepContext): void {
  const t = ctx.cluster.admin.lastHandledAt;
  if (t !== undefined) ctx.applied?.(t);
}

/** The file name a reassign step's JSON is shown under: its `file`, else the step's label (`move` -> move.json). */
function reassignmentFileName(step: StepSpec, index: number): string {
  return step.reassign?.file ?? `${step.label ?? `reassignment-${index}`}.json`;
}

export interface DescribeContext {
  spec: ScenarioSpec;
  reassignments: ReadonlyMap<number, ReassignmentJson>;
  /** For waitUntil: the condition in words. */
  condition?: string;
  /** For broker steps: the broker the selector names right now. */
  broker?: number;
  /** For controller steps: the controller the selector names right now. */
  controller?: number;
}

/** The command line the step stands for (shown by the CLI before its output), or a short description. */
export function describeStep(step: StepSpec, index: number, ctx: DescribeContext): string {
  const a = actionOf(step);
  const kt = `kafka-topics.sh --bootstrap-server ${BOOTSTRAP}`;
  switch (a) {
    case 'createTopic': {
      const t = step.createTopic!;
      const args = t.assignments
        ? ` --replica-assignment ${t.assignments.map((r) => r.join(':')).join(',')}`
        : `${t.partitions !== undefined ? ` --partitions ${t.partitions}` : ''}${t.replicationFactor !== undefined ? ` --replication-factor ${t.replicationFactor}` : ''}`;
      const configs = Object.entries(t.configs ?? {})
        .map(([k, v]) => ` --config ${k}=${v}`)
        .join('');
      return `$ ${kt} --create --topic ${t.name}${args}${configs}`;
    }
    case 'alterTopic':
      return `$ ${kt} --alter --topic ${step.alterTopic!.name} --partitions ${step.alterTopic!.partitions}`;
    case 'deleteTopic':
      return `$ ${kt} --delete --topic ${step.deleteTopic}`;
    case 'reassign': {
      const r = step.reassign!;
      const file = reassignmentFileName(step, index);
      const throttle = r.throttle !== undefined ? ` --throttle ${r.throttle}` : '';
      const n = ctx.reassignments.get(index)?.partitions.length ?? 0;
      return `$ kafka-reassign-partitions.sh --bootstrap-server ${BOOTSTRAP} --reassignment-json-file ${file} --execute${throttle}   # ${n} partition${n === 1 ? '' : 's'}`;
    }
    case 'print': {
      const p = step.print!;
      if (p === 'describe-topic') return `$ ${kt} --describe`;
      if (p === 'list-topics') return `$ ${kt} --list`;
      if (p === 'reassign-verify' || (typeof p === 'object' && 'reassign-verify' in p)) {
        const steps = ctx.spec.timeline;
        const target =
          typeof p === 'object'
            ? steps.findIndex((x) => x.label === p['reassign-verify'])
            : steps.slice(0, index).findLastIndex((x) => x.reassign !== undefined);
        const file = target >= 0 ? reassignmentFileName(steps[target]!, target) : 'reassignment.json';
        return `$ kafka-reassign-partitions.sh --bootstrap-server ${BOOTSTRAP} --reassignment-json-file ${file} --verify`;
      }
      if (typeof p === 'object' && 'describe-topic' in p)
        return `$ ${kt} --describe --topic ${p['describe-topic']}`;
      if (p === 'delivery-report' || (typeof p === 'object' && 'delivery-report' in p))
        return '# delivery report';
      if (typeof p === 'object' && 'describe-group' in p)
        return `$ kafka-consumer-groups.sh --bootstrap-server ${BOOTSTRAP} --describe --group ${p['describe-group']}`;
      if (typeof p === 'object' && 'ingest-metrics' in p)
        return `$ curl -s localhost:<metricsPort>/metrics   # ${p['ingest-metrics']}`;
      if (typeof p === 'object' && 'ingest-losses' in p) return `# lost batches of ${p['ingest-losses']}`;
      if (typeof p === 'object' && 'sql' in p) return `# Lake SQL (POST /v1/query): ${p.sql}`;
      return '# print';
    }
    case 'start':
    case 'stop': {
      const names = [step[a]!].flat();
      const perf = ctx.spec.clients?.perfProducers?.find((p) => p.name === names[0]);
      if (a === 'start' && names.length === 1 && perf) {
        const props = Object.entries(perf.config ?? {})
          .map(([k, v]) => ` ${k}=${v}`)
          .join('');
        return `$ kafka-producer-perf-test.sh --topic ${perf.topic} --num-records ${perf.numRecords} --throughput ${perf.throughput} --record-size ${perf.recordSize} --producer-props bootstrap.servers=${BOOTSTRAP}${props}`;
      }
      return `# ${a} ${names.join(', ')}`;
    }
    case 'crashBroker':
    case 'restartBroker':
      return `# ${a === 'crashBroker' ? 'crash' : 'restart'} broker ${selectorText(step[a]!, ctx.broker)}`;
    case 'crashController':
    case 'restartController':
      return `# ${a === 'crashController' ? 'crash' : 'restart'} controller ${controllerActionText(step[a]!, ctx.controller)}`;
    case 'partition':
      return `# network partition: ${step.partition!.map((g) => `[${g.join(', ')}]`).join(' | ')}`;
    case 'isolate':
      return `# isolate ${step.isolate}`;
    case 'dropOutbound':
      return `# drop messages from ${step.dropOutbound!.from} to ${[step.dropOutbound!.to].flat().join(', ')}`;
    case 'heal':
      return '# heal the network';
    case 'slowBroker':
      return `# slow broker ${selectorText(step.slowBroker!.broker, ctx.broker)} by ${step.slowBroker!.delay}`;
    case 'requestFault': {
      const f = step.requestFault!;
      const where = [
        f.topic,
        f.partition !== undefined ? `partition ${f.partition}` : undefined,
        f.client,
        f.broker !== undefined ? `broker ${f.broker}` : undefined,
      ]
        .filter((x) => x !== undefined)
        .join(', ');
      const what = [
        f.error,
        f.latency !== undefined ? `+${f.latency}` : undefined,
        f.dropResponse ? 'no answer' : undefined,
      ]
        .filter((x) => x !== undefined)
        .join(', ');
      return `# request fault: ${f.api}${where ? ` (${where})` : ''} -> ${what}${f.count !== undefined ? `, ${f.count} time${f.count === 1 ? '' : 's'}` : ''}`;
    }
    case 'waitUntil':
      return `# wait until ${ctx.condition ?? Object.keys(step.waitUntil!.condition)[0]} (timeout ${step.waitUntil!.timeout})`;
    case 'run':
      return `# run ${step.run}`;
    case 'produce': {
      const p = step.produce!;
      const bad = p.invalidJson?.length ? `; broken JSON at sequence ${p.invalidJson.join(', ')}` : '';
      const pace = p.rate !== undefined ? ` at ${p.rate} records/s` : '';
      return `# produce ${p.count} records (sequences ${p.start}..${p.start + p.count - 1}) to ${p.topic}${pace}, sequence % ${p.partitions} -> partition${bad}`;
    }
    case 'lakeOutage':
      return `# the Lake is unavailable for ${step.lakeOutage}`;
    case 'crashIngest': {
      const c = step.crashIngest!;
      const who = c.worker !== undefined ? `worker-${c.worker} of ${c.name}` : c.name;
      const restart = c.restartAfter !== undefined ? `, restart after ${c.restartAfter}` : '';
      return `# ${who} crashes after its next ingest, before the commit${restart}`;
    }
  }
}

function selectorText(sel: BrokerSelector, resolved: number | undefined): string {
  if (typeof sel === 'number') return String(sel);
  const id = resolved !== undefined ? `${resolved} ` : '';
  if ('leaderOf' in sel) return `${id}(the leader of ${sel.leaderOf.topic}-${sel.leaderOf.partition})`;
  return `${id}(the broker of step '${sel.brokerOf}')`;
}

/** A controller step's selector, and its delay if it acts later. */
function controllerAction(action: ControllerAction): { sel: ControllerSelector; delay: number } {
  if (typeof action === 'object' && 'controller' in action)
    return { sel: action.controller, delay: parseDuration(action.delay) };
  return { sel: action, delay: 0 };
}

function controllerActionText(action: ControllerAction, resolved: number | undefined): string {
  const { sel, delay } = controllerAction(action);
  if (delay > 0)
    return `${controllerSelectorText(sel, undefined)} in ${formatDuration(delay)} (the next steps run meanwhile)`;
  return controllerSelectorText(sel, resolved);
}

function controllerSelectorText(sel: ControllerSelector, resolved: number | undefined): string {
  if (typeof sel === 'number') return String(sel);
  const id = resolved !== undefined ? `${resolved} ` : '';
  if (sel === 'active') return `${id}(the active controller)`;
  return `${id}(the controller of step '${sel.controllerOf}')`;
}

/** The controller a controller step names right now, if it names one that can be found. */
export function controllerOfStep(
  step: StepSpec,
  ctx: Pick<StepContext, 'cluster' | 'steps'>,
): number | undefined {
  const action = step.crashController ?? step.restartController;
  if (action === undefined) return undefined;
  try {
    return resolveController(controllerAction(action).sel, ctx);
  } catch {
    return undefined;
  }
}

/** A controller selector as a node id (3000, ...): by id, the active controller now, or an earlier step's. */
export function resolveController(
  sel: ControllerSelector,
  ctx: Pick<StepContext, 'cluster' | 'steps'>,
): number {
  if (typeof sel === 'number') return sel;
  if (sel === 'active') {
    const active = ctx.cluster.quorumStatus().activeController;
    if (active === undefined)
      throw new StepFailure('no controller is active right now (the quorum has no leader)');
    return active;
  }
  const c = ctx.steps.get(sel.controllerOf)?.controller;
  if (c === undefined) throw new StepFailure(`step '${sel.controllerOf}' has not acted on a controller`);
  return c;
}

/** The broker a broker step names right now, if it names one that can be found. */
export function brokerOfStep(
  step: StepSpec,
  ctx: Pick<StepContext, 'cluster' | 'steps'>,
): number | undefined {
  const sel = step.crashBroker ?? step.restartBroker ?? step.slowBroker?.broker;
  if (sel === undefined) return undefined;
  try {
    return resolveBroker(sel, ctx);
  } catch {
    return undefined;
  }
}

export function resolveBroker(sel: BrokerSelector, ctx: Pick<StepContext, 'cluster' | 'steps'>): number {
  if (typeof sel === 'number') return sel;
  if ('leaderOf' in sel) {
    const { topic, partition } = sel.leaderOf;
    const reg = ctx.cluster.image.topics[topic]?.partitions[partition];
    if (!reg) throw new StepFailure(`${topic}-${partition} does not exist`);
    if (reg.leader < 0) throw new StepFailure(`${topic}-${partition} has no leader right now`);
    return reg.leader;
  }
  const b = ctx.steps.get(sel.brokerOf)?.broker;
  if (b === undefined) throw new StepFailure(`step '${sel.brokerOf}' has not acted on a broker`);
  return b;
}

function nodeId(ref: NodeRef): string {
  if (typeof ref === 'number') return `broker-${ref}`;
  // 'controller' is the first controller; 'controller-<id>' names any controller of a quorum (its network id).
  return ref === 'controller' ? CONTROLLER_NODE : ref;
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

export function createTopic(cluster: Cluster, t: TopicSpec): void {
  cluster.admin.createTopic({
    name: t.name,
    ...(t.partitions !== undefined ? { partitions: t.partitions } : {}),
    ...(t.replicationFactor !== undefined ? { replicationFactor: t.replicationFactor } : {}),
    ...(t.assignments ? { assignments: t.assignments } : {}),
    ...(t.configs ? { configs: stringify(t.configs) } : {}),
  });
}

/**
 * Runs one step's action (the runner has already moved the clock to the step's time). Returns the broker it
 * acted on, if any. Throws StepFailure when the action cannot be done (the tools' error text is printed first).
 */
export function executeStep(step: StepSpec, index: number, ctx: StepContext): number | undefined {
  const { cluster, clients, print } = ctx;
  const a = actionOf(step);
  switch (a) {
    case 'createTopic': {
      const t = step.createTopic!;
      toolStartup(ctx);
      try {
        createTopic(cluster, t);
      } catch (e) {
        print(formatTopicCommandError((e as Error).message));
        throw new StepFailure(`creating topic ${t.name} failed: ${(e as Error).message}`);
      } finally {
        applied(ctx);
      }
      print(formatCreatedTopic(t.name));
      return undefined;
    }
    case 'alterTopic': {
      const { name, partitions } = step.alterTopic!;
      toolStartup(ctx);
      const err = toKafkaError(cluster.admin.createPartitions(name, partitions));
      applied(ctx);
      if (err) {
        print(formatTopicCommandError(err.message));
        throw new StepFailure(`altering topic ${name} failed: ${err.message}`);
      }
      return undefined;
    }
    case 'deleteTopic': {
      toolStartup(ctx);
      const [r] = cluster.admin.deleteTopics([step.deleteTopic!]);
      applied(ctx);
      const err = r ? toKafkaError(r) : undefined;
      if (err) {
        print(formatTopicCommandError(err.message));
        throw new StepFailure(`deleting topic ${step.deleteTopic} failed: ${err.message}`);
      }
      return undefined;
    }
    case 'reassign': {
      const json = ctx.reassignments.get(index)!;
      toolStartup(ctx);
      const proposed = json.partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
      const current = currentAssignment(
        cluster,
        json.partitions.map((p) => p.topic),
      );
      const throttle = step.reassign!.throttle;
      const opts = throttle !== undefined ? { interBrokerThrottle: throttle } : {};
      const response = cluster.admin.alterPartitionReassignments(
        json.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] })),
      );
      applied(ctx);
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
    }
    case 'start':
    case 'stop': {
      for (const name of [step[a]!].flat()) {
        try {
          if (a === 'start') clients.start(name);
          else clients.stop(name);
        } catch (e) {
          throw new StepFailure(`${a} ${name}: ${(e as Error).message}`);
        }
      }
      return undefined;
    }
    case 'crashBroker': {
      const id = resolveBroker(step.crashBroker!, ctx);
      cluster.crashBroker(id);
      return id;
    }
    case 'restartBroker': {
      const id = resolveBroker(step.restartBroker!, ctx);
      cluster.restartBroker(id);
      return id;
    }
    case 'crashController':
    case 'restartController': {
      const { sel, delay } = controllerAction(step[a]!);
      const act = () => {
        const id = resolveController(sel, ctx);
        if (a === 'crashController') cluster.crashController(id);
        else cluster.restartController(id);
        ctx.actedOnController?.(id);
      };
      // A delayed fault lands in the middle of whatever the next steps do (an admin request in flight).
      if (delay > 0) cluster.sim.schedule(delay, act, `scenario.${a}`);
      else act();
      return undefined;
    }
    case 'partition':
      cluster.sim.network.partition(step.partition!.map((g) => g.map(nodeId)));
      return undefined;
    case 'isolate':
      cluster.sim.network.isolate(nodeId(step.isolate!));
      return undefined;
    case 'dropOutbound':
      cluster.sim.network.dropOutbound(
        nodeId(step.dropOutbound!.from),
        [step.dropOutbound!.to].flat().map(nodeId),
      );
      return undefined;
    case 'heal':
      cluster.sim.network.heal();
      return undefined;
    case 'requestFault': {
      const f = step.requestFault!;
      cluster.requestFaults.add({
        api: f.api as RequestFaultRule['api'],
        ...(f.topic !== undefined ? { topic: f.topic } : {}),
        ...(f.partition !== undefined ? { partition: f.partition } : {}),
        ...(f.client !== undefined ? { client: f.client } : {}),
        ...(f.broker !== undefined ? { broker: f.broker } : {}),
        ...(f.error !== undefined ? { error: f.error as ErrorName } : {}),
        ...(f.latency !== undefined ? { latencyMs: parseDuration(f.latency) } : {}),
        ...(f.dropResponse ? { dropResponse: true } : {}),
        ...(f.count !== undefined ? { count: f.count } : {}),
      });
      return undefined;
    }
    case 'slowBroker': {
      const id = resolveBroker(step.slowBroker!.broker, ctx);
      cluster.sim.network.setExtraDelay(nodeId(id), parseDuration(step.slowBroker!.delay));
      return id;
    }
    case 'print':
      printTool(step.print!, ctx);
      return undefined;
    case 'produce': {
      const p = step.produce!;
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
    }
    case 'lakeOutage':
      cluster.lake.outage(step.lakeOutage!, (delay, fn) =>
        cluster.sim.schedule(delay, fn, 'lake.outage-end'),
      );
      return undefined;
    case 'crashIngest': {
      const c = step.crashIngest!;
      ctx.clients.ingestService(c.name).crashBeforeNextCommit({
        ...(c.worker !== undefined ? { worker: c.worker } : {}),
        ...(c.restartAfter !== undefined ? { restartAfter: parseDuration(c.restartAfter) } : {}),
      });
      return undefined;
    }
    case 'run':
    case 'waitUntil':
      // The runner drives the clock for these.
      return undefined;
  }
}

function printTool(p: PrintSpec, ctx: StepContext): void {
  const { cluster, print } = ctx;
  if (p === 'describe-topic' || (typeof p === 'object' && 'describe-topic' in p)) {
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
  if (p === 'reassign-verify' || (typeof p === 'object' && 'reassign-verify' in p)) {
    const index =
      typeof p === 'object'
        ? [...ctx.steps.values()].find((s) => s.label === p['reassign-verify'])?.index
        : ctx.lastReassign;
    const json = index !== undefined ? ctx.reassignments.get(index) : undefined;
    if (!json) throw new StepFailure('reassign-verify: no reassign step has run yet');
    print(verifyText(cluster, json));
    return;
  }
  if (p === 'delivery-report' || (typeof p === 'object' && 'delivery-report' in p)) {
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
  if (typeof p === 'object' && 'describe-group' in p) {
    const r = cluster.describeGroup(p['describe-group']);
    if (r.stdout) print(r.stdout);
    if (r.stderr) print(r.stderr);
    return;
  }
  if (typeof p === 'object' && 'ingest-metrics' in p) {
    try {
      print(ctx.clients.ingestService(p['ingest-metrics']).metrics.text());
    } catch (e) {
      throw new StepFailure((e as Error).message);
    }
    return;
  }
  if (typeof p === 'object' && 'ingest-losses' in p) {
    try {
      print(ctx.clients.ingestService(p['ingest-losses']).lossReport());
    } catch (e) {
      throw new StepFailure((e as Error).message);
    }
    return;
  }
  if (typeof p === 'object' && 'sql' in p) {
    ctx.sql(p.sql);
    return;
  }
  if (typeof p === 'object' && 'text' in p) print(`${p.text}\n`);
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
