// Source workflow A (AutoMQ's self-balancing example) driven through the library API: create the topic, describe it,
// reassign every partition to broker 2 with the workflow's JSON, start kafka-producer-perf-test (5120 records/s
// of 1 KiB) and a consumer, and let the auto-balancer work. Shared by the balancer's cluster tests and bench.
import type { Goal } from '../../../models/balancer/index.ts';
import type { BrokerConfig } from '../../../models/broker/index.ts';
import type { Cluster, PerfProducerReport } from '../../../src/cluster/index.ts';
import { createCluster } from '../../../src/cluster/index.ts';
import { parseReassignmentJson } from '../../../src/format/index.ts';

export const TOPIC = 'continuous-self-balancing-topic';

export interface WorkflowA {
  cluster: Cluster;
  report: PerfProducerReport;
  /** Virtual times of the producer's retried produce errors (each prints the two WARN lines). */
  retries: number[];
  /** `kafka-topics --describe` right after the reassignment (the hotspot). */
  hotspot: string;
  /** Virtual time at which the producer started. */
  producerStart: number;
}

export interface WorkflowOptions {
  seed?: number;
  numRecords?: number;
  consumer?: boolean;
  autobalancer?: boolean | Record<string, string | number | boolean>;
  balancerGoals?: readonly Goal[];
  traceBufferSize?: number;
  /** AutoMQ's shared storage (default), or Kafka's replicated logs (a move copies the data). */
  storage?: 'shared' | 'kafka';
  /** Broker settings over the defaults (e.g. `kafkasim.broker.append.latency.ms`). */
  brokerConfig?: Partial<BrokerConfig>;
}

export function workflowA(variant: 'A1' | 'A2', options: WorkflowOptions = {}): WorkflowA {
  const partitions = variant === 'A1' ? 8 : 16;
  const c = createCluster({
    seed: options.seed ?? 1,
    brokers: variant === 'A1' ? [{ id: 1 }, { id: 2 }] : 5,
    storage: options.storage ?? 'shared',
    serverProperties: { 'min.insync.replicas': '1', 'log.segment.bytes': '1073741824' },
    autobalancer: options.autobalancer ?? true,
    ...(options.balancerGoals ? { balancerGoals: options.balancerGoals } : {}),
    ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
    ...(options.brokerConfig ? { brokerConfig: options.brokerConfig } : {}),
  });
  c.admin.createTopic({ name: TOPIC, partitions });
  c.runFor('1s');
  c.describeTopic(TOPIC);
  const move = parseReassignmentJson(
    JSON.stringify({
      partitions: Array.from({ length: partitions }, (_, p) => ({
        topic: TOPIC,
        partition: p,
        replicas: [2],
      })),
      version: 1,
    }),
  );
  c.admin.alterPartitionReassignments(move.partitions.map((p) => ({ ...p, replicas: [...p.replicas] })));
  c.runUntil(() => c.image.topics[TOPIC]!.partitions.every((p) => p.leader === 2), {
    timeout: '10s',
    description: 'every partition led by broker 2',
  });
  // As the workflow does, describe and start producing once every broker has seen the moves.
  c.runFor('5s');
  const hotspot = c.describeTopic(TOPIC);
  const producerStart = c.now;
  const report = c.producerPerfTest({
    topic: TOPIC,
    numRecords: options.numRecords ?? 1_024_000,
    throughput: 5120,
    recordSize: 1024,
  });
  const retries: number[] = [];
  report.workload.producer.onEvent((e) => {
    if (e.type === 'retry') retries.push(c.now);
  });
  if (options.consumer ?? true) {
    const consumer = c.consumer('perf-consumer', { config: { 'auto.offset.reset': 'earliest' } });
    consumer.assign(Array.from({ length: partitions }, (_, p) => ({ topic: TOPIC, partition: p })));
  }
  return { cluster: c, report, retries, hotspot, producerStart };
}

/** Partitions led by each broker. */
export function leadersPerBroker(c: Cluster, topic = TOPIC): Record<number, number> {
  const out: Record<number, number> = {};
  for (const id of c.brokers.keys()) out[id] = 0;
  for (const p of c.image.topics[topic]!.partitions) out[p.leader] = (out[p.leader] ?? 0) + 1;
  return out;
}
