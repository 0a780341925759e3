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
import { DEFAULT_QUORUM_CONFIG, type QuorumConfig, resolveQuorumConfig } from '../../models/raft/index.ts';
import { parseDuration } from '../../models/sim/index.ts';
import { FIRST_CONTROLLER_ID, STARTUP_KEYS } from '../cluster/index.ts';
import { FormatInputError, parseReassignmentJson, type ReassignmentJson } from '../format/index.ts';
import { checkCondition, checkMetric } from './conditions/index.ts';
import { didYouMean, type ScenarioIssue } from './errors.ts';
import { InputFileError, readInputFile } from './input-file.ts';
import { checkRaftTestServer } from './raft-test-server-checks.ts';
import type { ClientKind, StepChecks } from './reference-checks.ts';
import { stringify } from './setup.ts';
import type { DocPath, ScenarioSource } from './source.ts';
import { startTimeOf } from './start-time.ts';
import { actionOf, actionsActingOn, actsOn, checkStep } from './steps/index.ts';
import type { NodeRef, ScenarioSpec, StepSpec } from './types.ts';

/** Node ids the cluster itself uses; clients may not take them. */
export const CONTROLLER_NODE_NAME = 'controller';
const RESERVED_CLIENT_NAMES = /^(broker-\d+|controller(-\d+)?|admin)$/;

export interface CheckedReferences {
  /** Broker ids of the cluster, in order. */
  brokerIds: number[];
  /** Parsed reassignment JSON per timeline index. */
  reassignments: Map<number, ReassignmentJson>;
}

export function brokerIdsOf(spec: ScenarioSpec): number[] {
  const b = spec.cluster?.brokers ?? 3;
  if (typeof b === 'number')
    return Array.from({ length: b }, (_, i) => (spec.cluster?.firstBrokerId ?? 0) + i);
  return b.map((x) => x.id);
}

/** `baseDir` undefined: file references are refused (a scenario that came over the network). */
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

  checkRaftTestServer(spec, report);

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

  const checkBroker = (path: DocPath, id: number, key = false) => {
    if (!brokers.has(id)) report(path, `unknown broker ${id}; the cluster's brokers are ${brokerList}`, key);
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
  const declares = (kinds: readonly ClientKind[]) => [...clients.values()].some((k) => kinds.includes(k));

  const shared = {
    spec,
    report,
    checkTopic,
    checkBroker,
    checkClient,
    checkLabel,
    checkCondition: (c: Parameters<typeof checkCondition>[0], path: DocPath) => checkCondition(c, refs, path),
  };
  const refs = shared;

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
    const action = actionOf(s);
    const at: StepChecks = {
      ...shared,
      spec,
      index: i,
      path: [...path, action],
      baseDir,
      brokerIds,
      checkController,
      checkNode,
      checkTopicSpec,
      declares,
      started: (name) => started.add(name),
      lastReassign,
      readReassignment(r) {
        const json = readReassignment(r, [...path, action], baseDir, source, issues);
        if (json) reassignments.set(i, json);
        lastReassign = i;
        return json;
      },
      actsOn,
      actionsActingOn,
    };
    checkStep(s, at);
  });
  for (const { path, spec: c } of clientEntries) {
    if (!started.has(c.name))
      report(
        [...path, 'name'],
        `client '${c.name}' is never started: add autoStart: true or a step 'start: ${c.name}'`,
      );
  }

  // ---- conditions and metrics ----------------------------------------------------------------------------------
  for (const [i, e] of (spec.expectations ?? []).entries()) {
    if (e.sql === undefined) checkCondition(e, refs, ['expectations', i]);
  }
  for (const [name, m] of Object.entries(spec.metrics ?? {})) checkMetric(m, refs, ['metrics', name]);

  return { issues, refs: { brokerIds, reassignments } };
}

function flavourOf(f: ClientFlavour | undefined): ClientFlavour {
  return f ?? 'java';
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
