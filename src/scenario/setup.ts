// A scenario's world before its timeline: the cluster it declares, its faults in force from the start, and its
// topics, created and known to every broker. `kafkasim run` (runner.ts) and `kafkasim serve` (src/api/host.ts)
// both build it here, so a served scenario is the same world its run starts from.
import { isAutoBalancerKey } from '../../models/balancer/index.ts';
import { brokerDefaults } from '../../models/broker/index.ts';
import { type ControllerConfig, DEFAULT_CONTROLLER_CONFIG } from '../../models/controller/index.ts';
import { configMap } from '../../models/metadata/index.ts';
import { DEFAULT_QUORUM_CONFIG, type QuorumConfig } from '../../models/raft/index.ts';
import { parseDuration } from '../../models/sim/index.ts';
import {
  type Cluster,
  type ClusterOptions,
  type StartupSetting,
  startupDistribution,
} from '../cluster/index.ts';
import { ScenarioError } from './errors.ts';
import { latencyOf } from './run-parts.ts';
import { startTimeOf } from './start-time.ts';
import { StepFailure } from './steps/step.ts';
import type { ClusterSpec, ConfigValue, ScenarioSpec, TopicSpec } from './types.ts';

/** Config values as the admin API takes them (strings). */
export function stringify(configs: Readonly<Record<string, ConfigValue>>): Record<string, string> {
  return configMap(Object.entries(configs).map(([k, v]) => [k, String(v)] as const));
}

/** Creates a topic as kafka-topics --create would; throws KafkaError when the controller refuses. */
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
 * Applies the scenario's starting faults, starts the cluster, creates its topics and runs until every broker
 * knows their leaders (clients then start against brokers that know the topics, as after a real setup). A topic
 * the controller refuses throws StepFailure.
 */
export function setUpScenarioCluster(cluster: Cluster, spec: ScenarioSpec): void {
  const net = cluster.sim.network;
  if (spec.faults?.dropProbability) net.setDropProbability(spec.faults.dropProbability);
  for (const [id, delay] of Object.entries(spec.faults?.slowBrokers ?? {}))
    net.setExtraDelay(`broker-${id}`, parseDuration(delay));
  cluster.start();
  for (const t of spec.topics ?? []) {
    try {
      createTopic(cluster, t);
    } catch (e) {
      throw new StepFailure(`creating topic ${t.name} failed: ${(e as Error).message}`);
    }
  }
  const names = (spec.topics ?? []).map((t) => t.name);
  if (names.length > 0) {
    cluster.runUntil(
      () =>
        [...cluster.brokers.values()].every(
          (b) => !b.up || names.every((n) => b.image.topics[n]?.partitions.every((p) => p.leader >= 0)),
        ),
      { timeout: '30s', description: `every broker knows the leaders of ${names.join(', ')}` },
    );
  }
}

/** Splits server.properties into the model's typed broker and controller settings plus static broker configs. */
export function clusterOptionsOf(spec: ScenarioSpec, seed: number | string): ClusterOptions {
  if (spec.raftTestServer)
    throw new ScenarioError([
      {
        source: spec.name,
        path: 'raftTestServer',
        message: `scenario '${spec.name}' is a quorum of Raft test servers, not a cluster: run it with \`kafkasim run\` (or sweep it)`,
      },
    ]);
  const c: ClusterSpec = spec.cluster ?? {};
  const brokerConfig: Record<string, unknown> = {};
  const controllerConfig: Record<string, unknown> = {};
  const serverProperties = configMap();
  // AutoMQ's auto-balancer keys (autobalancer.controller.enable=true in server.properties) turn it on.
  const autobalancer: Record<string, ConfigValue> = {};
  // controller.quorum.* and kafkasim.raft.* keys configure the KRaft metadata quorum (Kafka's QuorumConfig).
  const quorumConfig: Record<string, unknown> = {};
  const startup: Pick<ClusterOptions, 'toolStartup' | 'clientStartup'> = {};
  for (const [key, setting] of Object.entries(c.configs ?? {})) {
    if (key === 'kafkasim.tool.startup.ms' || key === 'kafkasim.client.startup.ms') {
      startup[key === 'kafkasim.tool.startup.ms' ? 'toolStartup' : 'clientStartup'] = startupDistribution(
        setting as StartupSetting,
        key,
      );
      continue;
    }
    const value = setting as ConfigValue;
    if (isAutoBalancerKey(key)) autobalancer[key] = value;
    if (Object.hasOwn(DEFAULT_QUORUM_CONFIG, key)) {
      quorumConfig[key] = typed((DEFAULT_QUORUM_CONFIG as Record<string, unknown>)[key], value);
      continue;
    }
    if (Object.hasOwn(brokerDefaults, key))
      brokerConfig[key] = typed((brokerDefaults as Record<string, unknown>)[key], value);
    if (Object.hasOwn(DEFAULT_CONTROLLER_CONFIG, key))
      controllerConfig[key] = typed((DEFAULT_CONTROLLER_CONFIG as Record<string, unknown>)[key], value);
    if (!key.startsWith('kafkasim.')) serverProperties[key] = String(value);
  }
  const latency = latencyOf(c.latency);
  const startTime = spec.startTime === undefined ? undefined : startTimeOf(spec.startTime);
  return {
    seed,
    ...(startTime !== undefined ? { startTime } : {}),
    ...(c.brokers !== undefined ? { brokers: c.brokers } : {}),
    ...(c.firstBrokerId !== undefined ? { firstBrokerId: c.firstBrokerId } : {}),
    ...(c.storage ? { storage: c.storage } : {}),
    ...(Object.keys(brokerConfig).length ? { brokerConfig } : {}),
    ...(Object.keys(controllerConfig).length
      ? { controllerConfig: controllerConfig as Partial<ControllerConfig> }
      : {}),
    ...(Object.keys(serverProperties).length ? { serverProperties } : {}),
    ...(Object.keys(autobalancer).some((k) => k.startsWith('autobalancer.')) ? { autobalancer } : {}),
    ...(latency ? { latency } : {}),
    ...(c.checkInvariantsEvery !== undefined ? { invariantEvery: c.checkInvariantsEvery } : {}),
    ...(c.controllers !== undefined ? { controllers: c.controllers } : {}),
    ...(Object.keys(quorumConfig).length ? { quorumConfig: quorumConfig as Partial<QuorumConfig> } : {}),
    ...(c.metadataLoad ? { metadataLoad: { recordsPerSec: c.metadataLoad.rate } } : {}),
    ...startup,
  };
}

/** A server.properties value in the type of the model setting's default ('30000' -> 30000, 'true' -> true). */
function typed(defaultValue: unknown, value: ConfigValue): unknown {
  if (typeof defaultValue === 'number') return typeof value === 'number' ? value : Number(value);
  if (typeof defaultValue === 'boolean') return typeof value === 'boolean' ? value : String(value) === 'true';
  return String(value);
}
