// The checks of a raftTestServer scenario (Kafka's Raft test server instead of a cluster) that its JSON Schema
// cannot express: the properties files parse and agree as the servers would need them, the quorum settings are
// known, and the document uses only what that world has (its two tools, run, the output and invariants
// conditions); and, the other way round, that the Raft tools are not used without it.
import { DEFAULT_QUORUM_CONFIG, type QuorumConfig, resolveQuorumConfig } from '../../models/raft/index.ts';
import { parseRaftServerProperties, RaftTestServerCluster } from '../cluster/raft-test-server.ts';
import { didYouMeanSuffix } from '../did-you-mean.ts';
import { conditionKind, type MetricKind } from './conditions/index.ts';
import type { DocPath } from './source.ts';
import { actionOf, type StepAction } from './steps/index.ts';
import type { ConfigValue, ScenarioSpec } from './types.ts';

/** The steps, conditions and metrics a raftTestServer scenario can use. */
export const RAFT_TEST_SERVER_STEPS: readonly StepAction[] = [
  'verifiableProducer',
  'producerPerfTest',
  'run',
];
const RAFT_TOOLS: readonly StepAction[] = ['verifiableProducer', 'producerPerfTest'];
export const RAFT_TEST_SERVER_CONDITIONS: readonly string[] = ['output', 'invariants'];
const RAFT_TEST_SERVER_METRICS: readonly MetricKind[] = ['output'];

/** The quorum settings of `raftTestServer.configs`, typed as the model's defaults (a string '3' is 3). */
export function raftQuorumConfigOf(
  configs: Readonly<Record<string, ConfigValue>> = {},
): Partial<QuorumConfig> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(configs)) {
    const want = typeof DEFAULT_QUORUM_CONFIG[key as keyof QuorumConfig];
    out[key] =
      want === 'number' && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
        ? Number(value)
        : want === 'boolean' && (value === 'true' || value === 'false')
          ? value === 'true'
          : value;
  }
  return out as Partial<QuorumConfig>;
}

export function checkRaftTestServer(
  spec: ScenarioSpec,
  report: (path: DocPath, message: string, key?: boolean) => void,
): void {
  const rts = spec.raftTestServer;
  if (!rts) {
    spec.timeline.forEach((s, i) => {
      const action = actionOf(s);
      if (RAFT_TOOLS.includes(action))
        report(
          ['timeline', i, action],
          `${action} runs against Kafka's Raft test server: it needs a top-level raftTestServer (the quorum's properties files) instead of a cluster`,
          true,
        );
    });
    return;
  }
  for (const key of ['cluster', 'topics', 'clients', 'faults'] as const)
    if (spec[key] !== undefined)
      report(
        [key],
        `a raftTestServer scenario has no ${key}: the Raft test servers of raftTestServer.properties are its whole world`,
        true,
      );
  let parsed = true;
  for (const [file, text] of Object.entries(rts.properties)) {
    try {
      parseRaftServerProperties({ file, text });
    } catch (e) {
      parsed = false;
      report(['raftTestServer', 'properties', file], (e as Error).message);
    }
  }
  const configs = rts.configs ?? {};
  for (const key of Object.keys(configs)) {
    const path: DocPath = ['raftTestServer', 'configs', key];
    if (key === 'controller.quorum.voters' || key === 'controller.quorum.bootstrap.servers') {
      report(
        path,
        `${key} comes from each server's properties file (quorum.voters); do not set it here`,
        true,
      );
      continue;
    }
    if (!Object.hasOwn(DEFAULT_QUORUM_CONFIG, key)) {
      const known = Object.keys(DEFAULT_QUORUM_CONFIG);
      report(path, `unknown quorum setting '${key}'${didYouMeanSuffix(key, known)}`, true);
      continue;
    }
    try {
      resolveQuorumConfig(raftQuorumConfigOf({ [key]: configs[key]! }));
    } catch (e) {
      report(path, (e as Error).message);
    }
  }
  // The servers' agreement (one voter set, each server among it, no id twice), as the quorum's start checks it.
  if (parsed) {
    try {
      new RaftTestServerCluster({
        properties: Object.entries(rts.properties).map(([file, text]) => ({ file, text })),
      });
    } catch (e) {
      report(['raftTestServer', 'properties'], (e as Error).message);
    }
  }
  spec.timeline.forEach((s, i) => {
    const action = actionOf(s);
    if (!RAFT_TEST_SERVER_STEPS.includes(action))
      report(
        ['timeline', i, action],
        `${action} needs a cluster; a raftTestServer scenario's steps are ${RAFT_TEST_SERVER_STEPS.join(', ')}`,
        true,
      );
  });
  (spec.expectations ?? []).forEach((e, i) => {
    if (e.sql !== undefined) {
      report(['expectations', i, 'sql'], 'a raftTestServer scenario has no Lake to query', true);
      return;
    }
    const kind = conditionKind(e);
    if (!RAFT_TEST_SERVER_CONDITIONS.includes(kind))
      report(
        ['expectations', i, kind],
        `${kind} reads a cluster; a raftTestServer scenario's conditions are ${RAFT_TEST_SERVER_CONDITIONS.join(', ')}`,
        true,
      );
  });
  for (const [name, m] of Object.entries(spec.metrics ?? {})) {
    const kind = Object.keys(m)[0] as MetricKind;
    if (!RAFT_TEST_SERVER_METRICS.includes(kind))
      report(
        ['metrics', name, kind],
        `${kind} reads a cluster; a raftTestServer scenario's metrics are ${RAFT_TEST_SERVER_METRICS.join(', ')}`,
        true,
      );
  }
}
