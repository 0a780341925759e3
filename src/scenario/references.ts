// Checks the schema cannot express: that every broker, topic, client and step label a scenario names exists,
// that configs are ones Kafka accepts, that step times make sense, and that reassignment JSON is what
// kafka-reassign-partitions would accept. Each problem is located like a schema error.

import { resolve } from 'node:path';
import { brokerDefaults } from '../../models/broker/index.ts';
import {
  type ClientFlavour,
  consumerConfig,
  groupConsumerConfig,
  producerConfig,
} from '../../models/clients/index.ts';
import { DEFAULT_CONTROLLER_CONFIG, validateTopicConfigs } from '../../models/controller/index.ts';
import { type IngestConfigInput, ingestConfig } from '../../models/lake/index.ts';
import { configMap } from '../../models/metadata/index.ts';
import { DEFAULT_QUORUM_CONFIG, type QuorumConfig, resolveQuorumConfig } from '../../models/raft/index.ts';
import { parseDuration } from '../../models/sim/index.ts';
import { FIRST_CONTROLLER_ID, STARTUP_KEYS } from '../cluster/index.ts';
import { FormatInputError, parseReassignmentJson, type ReassignmentJson } from '../format/index.ts';
import { didYouMean, type ScenarioIssue } from './errors.ts';
import { InputFileError, readInputFile } from './input-file.ts';
import type { DocPath, ScenarioSource } from './source.ts';
import type { Condition, ConfigValue, MetricSpec, NodeRef, ScenarioSpec, StepSpec } from './types.ts';

/** Node ids the cluster itself uses; clients may not take them. */
export const CONTROLLER_NODE_NAME = 'controller';
const RESERVED_CLIENT_NAMES = /^(broker-\d+|controller(-\d+)?|admin)$/;

export interface CheckedReferences {
  /** Broker ids of the cluster, in order. */
  brokerIds: number[];
  /** Parsed reassignment JSON per timeline index. */
  reassignments: Map<number, ReassignmentJson>;
}

type ClientKind = 'producer' | 'consumer' | 'perfProducer' | 'group' | 'ingest';

export function brokerIdsOf(spec: ScenarioSpec): number[] {
  const b = spec.cluster?.brokers ?? 3;
  if (typeof b === 'number')
    return Array.from({ length: b }, (_, i) => (spec.cluster?.firstBrokerId ?? 0) + i);
  return b.map((x) => x.id);
}

/** `baseDir` undefined: file references are refused (a scenario that came over the network). */
/** A scenario's `startTime` as epoch milliseconds (undefined when it is not a real date). */
export function startTimeOf(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse rolls 2024-02-30 over into March: refuse a day the month does not have.
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (day && new Date(Date.UTC(+day[1]!, +day[2]! - 1, +day[3]!)).getUTCDate() !== +day[3]!) return undefined;
  return ms;
}

export function checkReferences(
  spec: ScenarioSpec,
  source: ScenarioSource,
  baseDir: string | undefined,
): { issues: ScenarioIssue[]; refs: CheckedReferences } {
  const issues: ScenarioIssue[] = [];
  const report = (path: DocPath, message: string, key = false) =>
    issues.push(source.issue(path, message, { key }));
  const brokerIds = brokerIdsOf(spec);
  const brokers = new Set(brokerIds);
  const brokerList = brokerIds.join(', ');
  const reassignments = new Map<number, ReassignmentJson>();

  if (spec.startTime !== undefined && startTimeOf(spec.startTime) === undefined)
    report(
      ['startTime'],
      `startTime ${JSON.stringify(spec.startTime)} is not a date: write it as 2024-06-01T09:30:00Z (ISO 8601 with a zone) or epoch milliseconds`,
    );

  // ---- cluster ------------------------------------------------------------------------------------------------
  if (Array.isArray(spec.cluster?.brokers)) {
    const seen = new Set<number>();
    spec.cluster.brokers.forEach((b, i) => {
      if (seen.has(b.id)) report(['cluster', 'brokers', i, 'id'], `broker id ${b.id} is used twice`);
      seen.add(b.id);
    });
    if (spec.cluster.firstBrokerId !== undefined)
      report(
        ['cluster', 'firstBrokerId'],
        'firstBrokerId applies only when brokers is a count; the list gives ids',
      );
  }
  const knownKafkasim = [
    ...Object.keys(brokerDefaults),
    ...Object.keys(DEFAULT_CONTROLLER_CONFIG),
    ...Object.keys(DEFAULT_QUORUM_CONFIG),
    ...STARTUP_KEYS,
  ].filter((k) => k.startsWith('kafkasim.'));
  const controllerCount = spec.cluster?.controllers ?? 1;
  const controllerIds = Array.from({ length: controllerCount }, (_, i) => FIRST_CONTROLLER_ID + i);
  const controllerList = controllerIds.join(', ');
  for (const [key, value] of Object.entries(spec.cluster?.configs ?? {})) {
    if (!Object.hasOwn(DEFAULT_QUORUM_CONFIG, key)) continue;
    const path: DocPath = ['cluster', 'configs', key];
    if (key === 'controller.quorum.voters' || key === 'controller.quorum.bootstrap.servers') {
      report(
        path,
        `${key} is derived from cluster.controllers (voters ${controllerList}); do not set it`,
        true,
      );
      continue;
    }
    if (controllerCount < 2) {
      report(
        path,
        `${key} configures the KRaft metadata quorum, which needs cluster.controllers >= 2: a single controller keeps a local metadata log, with no election, replication or flush to configure`,
        true,
      );
      continue;
    }
    const want = typeof DEFAULT_QUORUM_CONFIG[key as keyof QuorumConfig];
    const typed =
      want === 'number' && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
        ? Number(value)
        : want === 'boolean' && (value === 'true' || value === 'false')
          ? value === 'true'
          : value;
    try {
      resolveQuorumConfig({ [key]: typed } as Partial<QuorumConfig>);
    } catch (e) {
      report(path, (e as Error).message);
    }
  }
  for (const key of Object.keys(spec.cluster?.configs ?? {})) {
    if (key.startsWith('kafkasim.') && !knownKafkasim.includes(key)) {
      const hint = didYouMean(key, knownKafkasim);
      report(
        ['cluster', 'configs', key],
        `unknown kafkasim setting '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}; known: ${knownKafkasim.join(', ')}`,
        true,
      );
    }
  }
  for (const [id] of Object.entries(spec.faults?.slowBrokers ?? {})) {
    if (!brokers.has(Number(id)))
      report(
        ['faults', 'slowBrokers', id],
        `unknown broker ${id}; the cluster's brokers are ${brokerList}`,
        true,
      );
  }

  const checkController = (path: DocPath, id: number) => {
    if (!controllerIds.includes(id))
      report(
        path,
        `unknown controller ${id}; the cluster's controllers are ${controllerList} (cluster.controllers: ${controllerCount})`,
      );
  };

  const checkBroker = (path: DocPath, id: number) => {
    if (!brokers.has(id)) report(path, `unknown broker ${id}; the cluster's brokers are ${brokerList}`);
  };

  // ---- topics ---------------------------------------------------------------------------------------------------
  const topics = new Set<string>();
  const topicCreators: { name: string; path: DocPath }[] = [];
  for (const [i, t] of (spec.topics ?? []).entries())
    topicCreators.push({ name: t.name, path: ['topics', i] });
  spec.timeline.forEach((s, i) => {
    if (s.createTopic) topicCreators.push({ name: s.createTopic.name, path: ['timeline', i, 'createTopic'] });
  });
  (spec.topics ?? []).forEach((t, i) => {
    if (topics.has(t.name)) report(['topics', i, 'name'], `topic '${t.name}' is declared twice`);
    topics.add(t.name);
  });
  for (const c of topicCreators) topics.add(c.name);
  const checkTopicSpec = (t: NonNullable<ScenarioSpec['topics']>[number], path: DocPath) => {
    if (t.assignments) {
      if (t.partitions !== undefined || t.replicationFactor !== undefined)
        report(path, 'give either assignments or partitions/replicationFactor, not both');
      t.assignments.forEach((replicas, p) => {
        for (const [r, b] of replicas.entries()) checkBroker([...path, 'assignments', p, r], b);
        if (new Set(replicas).size !== replicas.length)
          report([...path, 'assignments', p], `partition ${p} lists a broker twice`);
      });
    }
    if (t.replicationFactor !== undefined && t.replicationFactor > brokerIds.length) {
      report(
        [...path, 'replicationFactor'],
        `replication factor ${t.replicationFactor} is larger than the cluster's ${brokerIds.length} broker${brokerIds.length === 1 ? '' : 's'}`,
      );
    }
    if (t.configs) {
      const err = validateTopicConfigs(stringify(t.configs));
      if (err) {
        // Kafka's message names the config ("... for configuration K: ..." or "Unknown topic config name: K").
        const key = /configuration (\S+):|config name: (\S+)$/.exec(err.message);
        const name = key?.[1] ?? key?.[2];
        report([...path, 'configs', ...(name && Object.hasOwn(t.configs, name) ? [name] : [])], err.message);
      }
    }
  };
  for (const [i, t] of (spec.topics ?? []).entries()) checkTopicSpec(t, ['topics', i]);
  const checkTopic = (path: DocPath, name: string | undefined) => {
    if (name === undefined || topics.has(name)) return;
    const hint = didYouMean(name, [...topics]);
    report(
      path,
      `unknown topic '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}: not under topics and not created by a createTopic step`,
    );
  };

  // ---- clients --------------------------------------------------------------------------------------------------
  const clients = new Map<string, ClientKind>();
  const started = new Set<string>();
  const clientEntries: {
    kind: ClientKind;
    path: DocPath;
    spec: { name: string; topic: string | undefined; autoStart?: boolean };
  }[] = [];
  for (const [i, c] of (spec.clients?.producers ?? []).entries())
    clientEntries.push({ kind: 'producer', path: ['clients', 'producers', i], spec: c });
  for (const [i, c] of (spec.clients?.consumers ?? []).entries())
    clientEntries.push({ kind: 'consumer', path: ['clients', 'consumers', i], spec: c });
  for (const [i, c] of (spec.clients?.perfProducers ?? []).entries())
    clientEntries.push({ kind: 'perfProducer', path: ['clients', 'perfProducers', i], spec: c });
  for (const [i, c] of (spec.clients?.groups ?? []).entries())
    clientEntries.push({ kind: 'group', path: ['clients', 'groups', i], spec: c });
  for (const [i, c] of (spec.clients?.ingest ?? []).entries()) {
    const topic = c.config.kafkaTopic;
    clientEntries.push({
      kind: 'ingest',
      path: ['clients', 'ingest', i],
      spec: { name: c.name, topic: typeof topic === 'string' ? topic : undefined, ...optionalStart(c) },
    });
  }
  for (const { kind, path, spec: c } of clientEntries) {
    if (clients.has(c.name)) report([...path, 'name'], `client name '${c.name}' is used twice`);
    else if (RESERVED_CLIENT_NAMES.test(c.name))
      report([...path, 'name'], `'${c.name}' is a node id of the cluster itself; choose another client name`);
    clients.set(c.name, kind);
    if (c.autoStart) started.add(c.name);
    checkTopic(kind === 'ingest' ? [...path, 'config', 'kafkaTopic'] : [...path, 'topic'], c.topic);
  }
  (spec.clients?.ingest ?? []).forEach((c, i) => {
    checkClientConfig(['clients', 'ingest', i, 'config'], () => ingestConfig(c.config as IngestConfigInput));
  });
  (spec.clients?.producers ?? []).forEach((c, i) => {
    checkClientConfig(['clients', 'producers', i, 'config'], () =>
      producerConfig(flavourOf(c.flavour), c.config as never),
    );
  });
  (spec.clients?.perfProducers ?? []).forEach((c, i) => {
    checkClientConfig(['clients', 'perfProducers', i, 'config'], () =>
      producerConfig(flavourOf(c.flavour), c.config as never),
    );
    if (!(c.throughput > 0 || c.throughput === -1))
      report(
        ['clients', 'perfProducers', i, 'throughput'],
        `expected records/s > 0, or -1 for unthrottled; found ${c.throughput}`,
      );
  });
  (spec.clients?.consumers ?? []).forEach((c, i) => {
    checkClientConfig(['clients', 'consumers', i, 'config'], () =>
      consumerConfig(flavourOf(c.flavour), c.config as never),
    );
  });
  (spec.clients?.groups ?? []).forEach((c, i) => {
    checkClientConfig(['clients', 'groups', i, 'config'], () =>
      groupConsumerConfig(flavourOf(c.flavour), c.name, c.config as never),
    );
  });
  function checkClientConfig(path: DocPath, build: () => unknown) {
    try {
      build();
    } catch (e) {
      report(path, (e as Error).message);
    }
  }
  const checkClient = (path: DocPath, name: string, kinds: ClientKind[], what: string) => {
    const kind = clients.get(name);
    if (kind !== undefined && kinds.includes(kind)) return;
    const candidates = [...clients].filter(([, k]) => kinds.includes(k)).map(([n]) => n);
    const hint = didYouMean(name, candidates);
    report(
      path,
      kind !== undefined
        ? `'${name}' is a ${kind}, expected ${what}`
        : `unknown ${what} '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}${candidates.length ? `; declared: ${candidates.join(', ')}` : ''}`,
    );
  };
  const checkNode = (path: DocPath, node: NodeRef) => {
    if (typeof node === 'number') return checkBroker(path, node);
    if (node === CONTROLLER_NODE_NAME || clients.has(node)) return;
    const controller = /^controller-(\d+)$/.exec(node);
    if (controller) return checkController(path, Number(controller[1]));
    report(
      path,
      `unknown node '${node}': expected a broker id, 'controller', 'controller-<id>' or a client name`,
    );
  };

  // ---- timeline ---------------------------------------------------------------------------------------------------
  const labels = new Map<string, number>();
  spec.timeline.forEach((s, i) => {
    if (s.label === undefined) return;
    if (labels.has(s.label))
      report(['timeline', i, 'label'], `label '${s.label}' is already used by step ${labels.get(s.label)}`);
    else labels.set(s.label, i);
  });
  const checkLabel = (
    path: DocPath,
    label: string,
    before?: number,
    mustBe?: (s: StepSpec) => string | undefined,
  ) => {
    const at = labels.get(label);
    if (at === undefined) {
      const hint = didYouMean(label, [...labels.keys()]);
      report(path, `no step has the label '${label}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
      return;
    }
    if (before !== undefined && at >= before)
      report(path, `step '${label}' (step ${at}) must come before this one`);
    const problem = mustBe?.(spec.timeline[at]!);
    if (problem) report(path, `step '${label}' ${problem}`);
  };
  const checkSelector = (path: DocPath, sel: StepSpec['crashBroker'], index: number) => {
    if (sel === undefined) return;
    if (typeof sel === 'number') return checkBroker(path, sel);
    if ('leaderOf' in sel) return checkTopic([...path, 'leaderOf', 'topic'], sel.leaderOf.topic);
    checkLabel([...path, 'brokerOf'], sel.brokerOf, index, (s) =>
      s.crashBroker !== undefined || s.restartBroker !== undefined || s.slowBroker !== undefined
        ? undefined
        : 'does not act on a broker (crashBroker, restartBroker or slowBroker)',
    );
  };

  const checkControllerSelector = (path: DocPath, action: StepSpec['crashController'], index: number) => {
    if (action === undefined) return;
    const delayed = typeof action === 'object' && 'controller' in action;
    const sel = delayed ? action.controller : action;
    if (delayed) path = [...path, 'controller'];
    if (sel === 'active') return;
    if (typeof sel === 'number') return checkController(path, sel);
    checkLabel([...path, 'controllerOf'], sel.controllerOf, index, (s) =>
      s.crashController !== undefined || s.restartController !== undefined
        ? undefined
        : 'does not act on a controller (crashController or restartController)',
    );
  };

  let lastAt = -1;
  let lastAtIndex = -1;
  let lastReassign = -1;
  spec.timeline.forEach((s, i) => {
    const path: DocPath = ['timeline', i];
    if (s.at !== undefined && s.after !== undefined) report(path, "give either 'at' or 'after', not both");
    if (s.at !== undefined) {
      const at = parseDuration(s.at);
      if (at < lastAt)
        report(
          [...path, 'at'],
          `at ${s.at} is earlier than step ${lastAtIndex} (at ${spec.timeline[lastAtIndex]!.at}); steps run in order`,
        );
      lastAt = at;
      lastAtIndex = i;
    }
    if (s.createTopic) checkTopicSpec(s.createTopic, [...path, 'createTopic']);
    if (s.alterTopic) checkTopic([...path, 'alterTopic', 'name'], s.alterTopic.name);
    if (s.produce) {
      checkTopic([...path, 'produce', 'topic'], s.produce.topic);
      const { start, count } = s.produce;
      for (const [j, n] of (s.produce.invalidJson ?? []).entries())
        if (n < start || n >= start + count)
          report(
            [...path, 'produce', 'invalidJson', j],
            `sequence ${n} is not produced by this step (it produces ${start}..${start + count - 1})`,
          );
    }
    if (s.crashIngest)
      checkClient([...path, 'crashIngest', 'name'], s.crashIngest.name, ['ingest'], 'ingest service');
    if (s.deleteTopic !== undefined) checkTopic([...path, 'deleteTopic'], s.deleteTopic);
    for (const key of ['start', 'stop'] as const) {
      const v = s[key];
      if (v === undefined) continue;
      const names = Array.isArray(v) ? v : [v];
      names.forEach((n, j) => {
        checkClient(
          Array.isArray(v) ? [...path, key, j] : [...path, key],
          n,
          ['producer', 'consumer', 'perfProducer', 'ingest'],
          'client',
        );
        if (key === 'start') started.add(n);
      });
    }
    checkSelector([...path, 'crashBroker'], s.crashBroker, i);
    checkSelector([...path, 'restartBroker'], s.restartBroker, i);
    checkControllerSelector([...path, 'crashController'], s.crashController, i);
    checkControllerSelector([...path, 'restartController'], s.restartController, i);
    if (s.slowBroker) checkSelector([...path, 'slowBroker', 'broker'], s.slowBroker.broker, i);
    for (const [gi, g] of (s.partition ?? []).entries()) {
      for (const [ni, n] of g.entries()) checkNode([...path, 'partition', gi, ni], n);
    }
    if (s.isolate !== undefined) checkNode([...path, 'isolate'], s.isolate);
    if (s.dropOutbound) {
      checkNode([...path, 'dropOutbound', 'from'], s.dropOutbound.from);
      const to = s.dropOutbound.to;
      if (Array.isArray(to))
        for (const [j, n] of to.entries()) checkNode([...path, 'dropOutbound', 'to', j], n);
      else checkNode([...path, 'dropOutbound', 'to'], to);
    }
    if (s.reassign) {
      const json = readReassignment(s.reassign, [...path, 'reassign'], baseDir, source, issues);
      if (json) {
        reassignments.set(i, json);
        json.partitions.forEach((p, j) => {
          const at: DocPath =
            typeof s.reassign!.json === 'object'
              ? [...path, 'reassign', 'json', 'partitions', j]
              : [...path, 'reassign'];
          checkTopic([...at, ...(typeof s.reassign!.json === 'object' ? ['topic'] : [])], p.topic);
          p.replicas.forEach((b, r) => {
            if (!brokers.has(b))
              report(
                typeof s.reassign!.json === 'object' ? [...at, 'replicas', r] : at,
                `unknown broker ${b} in the replicas of ${p.topic}-${p.partition}; the cluster's brokers are ${brokerList}`,
              );
          });
        });
      }
      lastReassign = i;
    }
    if (s.print !== undefined) {
      const pr = s.print;
      if (pr === 'reassign-verify' && lastReassign < 0)
        report([...path, 'print'], 'reassign-verify needs an earlier reassign step');
      if (
        pr === 'delivery-report' &&
        ![...clients.values()].some((k) => k === 'producer' || k === 'perfProducer')
      )
        report([...path, 'print'], 'delivery-report needs a producer under clients');
      if (typeof pr === 'object') {
        if ('describe-topic' in pr) checkTopic([...path, 'print', 'describe-topic'], pr['describe-topic']);
        if ('reassign-verify' in pr)
          checkLabel([...path, 'print', 'reassign-verify'], pr['reassign-verify'], i, (st) =>
            st.reassign ? undefined : 'is not a reassign step',
          );
        if ('delivery-report' in pr)
          checkClient(
            [...path, 'print', 'delivery-report'],
            pr['delivery-report'],
            ['producer', 'perfProducer'],
            'producer',
          );
        if ('ingest-metrics' in pr)
          checkClient(
            [...path, 'print', 'ingest-metrics'],
            pr['ingest-metrics'],
            ['ingest'],
            'ingest service',
          );
        if ('ingest-losses' in pr)
          checkClient([...path, 'print', 'ingest-losses'], pr['ingest-losses'], ['ingest'], 'ingest service');
      }
    }
    if (s.waitUntil) {
      checkCondition(s.waitUntil.condition, [...path, 'waitUntil', 'condition']);
      if (s.waitUntil.poll !== undefined && parseDuration(s.waitUntil.poll) <= 0)
        report([...path, 'waitUntil', 'poll'], 'expected a duration > 0');
    }
  });
  for (const { path, spec: c } of clientEntries) {
    if (!started.has(c.name))
      report(
        [...path, 'name'],
        `client '${c.name}' is never started: add autoStart: true or a step 'start: ${c.name}'`,
      );
  }

  // ---- conditions and metrics ----------------------------------------------------------------------------------
  function checkCondition(c: Condition, path: DocPath): void {
    const cmpTopic = (p: DocPath, t: string | undefined) => checkTopic(p, t);
    if (c.leadersPerBroker || c.replicasPerBroker) {
      const key = c.leadersPerBroker ? 'leadersPerBroker' : 'replicasPerBroker';
      const v = (c.leadersPerBroker ?? c.replicasPerBroker)!;
      cmpTopic([...path, key, 'topic'], v.topic);
      for (const id of Object.keys(v.equals ?? {})) {
        if (!brokers.has(Number(id)))
          report(
            [...path, key, 'equals', id],
            `unknown broker ${id}; the cluster's brokers are ${brokerList}`,
            true,
          );
      }
    }
    if (c.ledBy) {
      cmpTopic([...path, 'ledBy', 'topic'], c.ledBy.topic);
      checkBroker([...path, 'ledBy', 'broker'], c.ledBy.broker);
    }
    if (c.leaderFromIsr) {
      cmpTopic([...path, 'leaderFromIsr', 'topic'], c.leaderFromIsr.topic);
      checkLabel([...path, 'leaderFromIsr', 'since'], c.leaderFromIsr.since);
    }
    if (c.isr) {
      cmpTopic([...path, 'isr', 'topic'], c.isr.topic);
      if (c.isr.includes !== undefined) checkBroker([...path, 'isr', 'includes'], c.isr.includes);
      if (c.isr.excludes !== undefined) checkBroker([...path, 'isr', 'excludes'], c.isr.excludes);
    }
    if (c.offsets) cmpTopic([...path, 'offsets', 'topic'], c.offsets.topic);
    if (c.reassignments) cmpTopic([...path, 'reassignments', 'topic'], c.reassignments.topic);
    if (c.partitionCount) cmpTopic([...path, 'partitionCount', 'topic'], c.partitionCount.topic);
    if (c.delivery)
      checkClient(
        [...path, 'delivery', 'producer'],
        c.delivery.producer,
        ['producer', 'perfProducer'],
        'producer',
      );
    if (c.producerErrors)
      checkClient(
        [...path, 'producerErrors', 'producer'],
        c.producerErrors.producer,
        ['producer', 'perfProducer'],
        'producer',
      );
    if (c.consumer) checkClient([...path, 'consumer', 'name'], c.consumer.name, ['consumer'], 'consumer');
    if (c.group) checkClient([...path, 'group', 'name'], c.group.name, ['group'], 'consumer group');
    if (c.perf) checkClient([...path, 'perf', 'name'], c.perf.name, ['perfProducer'], 'perf producer');
    if (c.ingest) checkClient([...path, 'ingest', 'name'], c.ingest.name, ['ingest'], 'ingest service');
    if (c.groupLag) cmpTopic([...path, 'groupLag', 'topic'], c.groupLag.topic);
    if (c.timing) {
      if (c.timing.from !== undefined) checkLabel([...path, 'timing', 'from'], c.timing.from);
      checkLabel([...path, 'timing', 'to'], c.timing.to);
    }
    if (c.metadataLoad && !spec.cluster?.metadataLoad)
      report(
        [...path, 'metadataLoad'],
        'needs a metadata append load: set cluster.metadataLoad: {rate: <records/s>}',
      );
    for (const [i, x] of (c.all ?? []).entries()) checkCondition(x, [...path, 'all', i]);
    for (const [i, x] of (c.any ?? []).entries()) checkCondition(x, [...path, 'any', i]);
    if (c.not) checkCondition(c.not, [...path, 'not']);
  }
  for (const [i, e] of (spec.expectations ?? []).entries()) checkCondition(e, ['expectations', i]);
  const checkMetric = (m: MetricSpec, path: DocPath) => {
    if (m.delivery)
      checkClient(
        [...path, 'delivery', 'producer'],
        m.delivery.producer,
        ['producer', 'perfProducer'],
        'producer',
      );
    if (m.producerErrors)
      checkClient(
        [...path, 'producerErrors', 'producer'],
        m.producerErrors.producer,
        ['producer', 'perfProducer'],
        'producer',
      );
    if (m.leadersPerBroker) checkTopic([...path, 'leadersPerBroker', 'topic'], m.leadersPerBroker.topic);
    if (m.consumer) checkClient([...path, 'consumer', 'name'], m.consumer.name, ['consumer'], 'consumer');
    if (m.perf) checkClient([...path, 'perf', 'name'], m.perf.name, ['perfProducer'], 'perf producer');
    if (m.offsets) checkTopic([...path, 'offsets', 'topic'], m.offsets.topic);
    if (m.timing) {
      if (m.timing.from !== undefined) checkLabel([...path, 'timing', 'from'], m.timing.from);
      checkLabel([...path, 'timing', 'to'], m.timing.to);
    }
    if (m.metadataLoad && !spec.cluster?.metadataLoad)
      report(
        [...path, 'metadataLoad'],
        'needs a metadata append load: set cluster.metadataLoad: {rate: <records/s>}',
      );
    if (m.errorWindow)
      checkClient(
        [...path, 'errorWindow', 'producer'],
        m.errorWindow.producer,
        ['producer', 'perfProducer'],
        'producer',
      );
  };
  for (const [name, m] of Object.entries(spec.metrics ?? {})) checkMetric(m, ['metrics', name]);

  return { issues, refs: { brokerIds, reassignments } };
}

function flavourOf(f: ClientFlavour | undefined): ClientFlavour {
  return f ?? 'java';
}

export function stringify(configs: Readonly<Record<string, ConfigValue>>): Record<string, string> {
  return configMap(Object.entries(configs).map(([k, v]) => [k, String(v)] as const));
}

/** Reads a reassign step's JSON (inline mapping, inline text or file) the way the tool would. */
function readReassignment(
  r: NonNullable<StepSpec['reassign']>,
  path: DocPath,
  baseDir: string | undefined,
  source: ScenarioSource,
  issues: ScenarioIssue[],
): ReassignmentJson | undefined {
  let text: string;
  let file: string | undefined;
  if (r.file !== undefined) {
    if (baseDir === undefined) {
      issues.push(
        source.issue(
          [...path, 'file'],
          'a scenario sent over the network cannot read files: inline the reassignment with "json:"',
        ),
      );
      return undefined;
    }
    file = resolve(baseDir, r.file);
    try {
      text = readInputFile(file);
    } catch (e) {
      if (!(e instanceof InputFileError)) throw e;
      issues.push(source.issue([...path, 'file'], `cannot read ${file}: ${e.message}`));
      return undefined;
    }
  } else if (typeof r.json === 'string') text = r.json;
  else text = JSON.stringify(r.json);
  try {
    return parseReassignmentJson(text);
  } catch (e) {
    if (!(e instanceof FormatInputError)) throw e;
    if (file !== undefined) {
      issues.push({
        source: file,
        ...(e.position ? { line: e.position.line, column: e.position.column } : {}),
        path: e.path ?? '',
        message: `${e.message} (the reassignment file of ${path.join('.')})`,
      });
    } else if (typeof r.json === 'object' && e.path !== undefined) {
      // Positions in the re-serialised JSON mean nothing to the author: point at the YAML node instead.
      const jsonPath: DocPath =
        e.path === '$'
          ? []
          : e.path
              .split(/\.|\[|\]/)
              .filter(Boolean)
              .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      issues.push(
        source.issue([...path, 'json', ...jsonPath], e.message.replace(/ \(line \d+, column \d+\)/g, '')),
      );
    } else issues.push(source.issue([...path, 'json'], `invalid reassignment JSON: ${e.message}`));
    return undefined;
  }
}

function optionalStart(c: { autoStart?: boolean }): { autoStart?: boolean } {
  return c.autoStart === undefined ? {} : { autoStart: c.autoStart };
}
