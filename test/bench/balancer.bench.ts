// Issue 7's benchmarks. Targets: one detect-and-optimize pass over 100,000 partitions on 20 brokers in at most
// 100 ms (AutoMQ reports about 200 ms on the JVM, issue #664); workflow A2 (5 brokers, 16 partitions, about
// 200 s of producing at 5120 records/s of 1 KiB, with the balancer moving partitions) in at most 1 s of wall time.
import { bench, describe } from 'vitest';
import {
  type AutoBalancerMetricsRequest,
  ClusterModel,
  DEFAULT_AUTO_BALANCER_CONFIG,
  groupMoves,
  mergeMoves,
  NetworkInUsageDistributionGoal,
  NetworkOutUsageDistributionGoal,
  optimize,
  toMove,
} from '../../models/balancer/index.ts';
import type {
  BrokerRegistration,
  MetadataImage,
  PartitionRegistration,
  TopicImage,
} from '../../models/metadata/index.ts';
import { RandomStream } from '../../models/sim/index.ts';
import { TOPIC, workflowA } from '../models/balancer/workflow-a.ts';

const BROKERS = 20;
const TOPICS = 100;
const PER_TOPIC = 1000;

/** 100 topics x 1000 partitions; brokers 0-4 hold twice their share, partition loads vary 30x. */
function bigCluster(): ClusterModel {
  const random = new RandomStream('balancer-bench', '1');
  const brokers: Record<number, BrokerRegistration> = {};
  for (let id = 0; id < BROKERS; id++) {
    brokers[id] = {
      brokerId: id,
      incarnationId: `b${id}`,
      brokerEpoch: id,
      rack: null,
      host: 'localhost',
      port: 9092 + id,
      fenced: false,
      inControlledShutdown: false,
    };
  }
  const weights = Array.from({ length: BROKERS }, (_, id) => (id < 5 ? 2 : 1));
  const ids = Array.from({ length: BROKERS }, (_, id) => id);
  const topics: Record<string, TopicImage> = {};
  const topicNamesById: Record<string, string> = {};
  const reports = new Map<number, AutoBalancerMetricsRequest>();
  for (const id of ids) {
    reports.set(id, {
      type: 'AutoBalancerMetrics',
      brokerId: id,
      rack: null,
      time: 0,
      pendingAppendLatencyMs: 1,
      pendingFetchLatencyMs: 1,
      partitions: [],
    });
  }
  for (let t = 0; t < TOPICS; t++) {
    const name = `topic-${t}`;
    const topicId = `id-${t}`;
    const partitions: PartitionRegistration[] = [];
    for (let p = 0; p < PER_TOPIC; p++) {
      const leader = random.weightedPick(ids, weights);
      partitions.push({
        partition: p,
        replicas: [leader],
        isr: [leader],
        removingReplicas: [],
        addingReplicas: [],
        leader,
        leaderEpoch: 0,
        partitionEpoch: 0,
      });
      const bytesIn = 1024 * random.uniform(1, 30);
      reports.get(leader)!.partitions.push({ topic: name, partition: p, bytesIn, bytesOut: bytesIn * 2 });
    }
    topics[name] = { name, topicId, partitions };
    topicNamesById[topicId] = name;
  }
  const image: MetadataImage = {
    offset: 1,
    brokers,
    topics,
    topicNamesById,
    configs: { topic: {}, broker: {} },
    features: {},
  };
  const model = new ClusterModel();
  model.sync(image);
  for (const r of reports.values()) model.update(r);
  return model;
}

const model = bigCluster();
const goals = [new NetworkInUsageDistributionGoal(), new NetworkOutUsageDistributionGoal()];

function detectPass(): number {
  const snapshot = model.snapshot({
    now: 1000,
    metricsDelayMs: 60_000,
    excludedBrokers: new Set(),
    excludedTopics: new Set(),
  });
  const actions = optimize(snapshot, goals, { config: DEFAULT_AUTO_BALANCER_CONFIG });
  const moves = mergeMoves(actions.map(toMove));
  const perTopic = new Map<string, number>();
  for (let p = 0; p < snapshot.partitionCount; p++)
    perTopic.set(snapshot.topic(p), (perTopic.get(snapshot.topic(p)) ?? 0) + 1);
  return groupMoves(moves, perTopic, { maxExecutionConcurrency: 50 }).length;
}

/** Events of the last run of each A2 variant (printed after the bench: the cost that does not depend on the machine). */
const a2Events = { producer: 0, consumer: 0 };

function workflowA2(consumer: boolean): void {
  const w = workflowA('A2', { seed: 1, consumer, traceBufferSize: 1000 });
  w.cluster.runUntil(() => w.report.summary !== undefined, {
    timeout: '300s',
    description: 'perf test done',
  });
  const moves = w.cluster.balancer!.executedMoves().length;
  if (moves === 0) throw new Error('the balancer moved nothing');
  const d = w.cluster.deliveryReport('perf-producer', TOPIC);
  if (d.lost !== 0) throw new Error('records lost');
  a2Events[consumer ? 'consumer' : 'producer'] = w.cluster.sim.eventCount;
}

describe('auto-balancer', () => {
  let batches = 0;
  bench(
    'detect-and-optimize pass: 100,000 partitions, 20 brokers',
    () => {
      batches = detectPass();
    },
    {
      iterations: 10,
      warmupIterations: 2,
      teardown: () => console.log(`100,000 partitions: ${batches} batches planned`),
    },
  );
  bench('workflow A2: 5 brokers, 16 partitions, 1,024,000 x 1 KiB, balancer on', () => workflowA2(false), {
    iterations: 3,
    warmupIterations: 1,
    teardown: () => console.log(`workflow A2: ${a2Events.producer} events`),
  });
  bench('workflow A2 with a consumer', () => workflowA2(true), {
    iterations: 3,
    warmupIterations: 1,
    teardown: () => console.log(`workflow A2 with a consumer: ${a2Events.consumer} events`),
  });
});
