// verifiableProducer and producerPerfTest: the two tools the Raft module's README (apache/kafka raft/README.md of the
// KAFKA-10533 era) runs against a quorum of Raft test servers, each as a timeline step that lasts until the tool
// exits. They need a raftTestServer scenario (references.ts says so otherwise).
import type { ProducerConfigInput } from '../../../models/clients/index.ts';
import { parseDuration, SimTimeoutError } from '../../../models/sim/index.ts';
import type { RaftTestServerCluster } from '../../cluster/raft-test-server.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { ConfigValue } from '../types.ts';
import { type StepDefinition, type StepExecute, StepFailure } from './step.ts';

export interface VerifiableProducerSpec {
  bootstrapServer: string;
  topic?: string;
  maxMessages: number;
  throughput: number;
  producerConfig?: Record<string, ConfigValue>;
  timeout?: string;
}

export interface ProducerPerfTestSpec {
  bootstrapServer: string;
  topic?: string;
  numRecords: number;
  throughput: number;
  recordSize: number;
  producerConfig?: Record<string, ConfigValue>;
  timeout?: string;
}

const common = {
  bootstrapServer: {
    type: 'string',
    minLength: 1,
    description:
      'A server as its `listeners` says (`localhost:9092`, also `http://localhost:9092` as the README writes it).',
  },
  topic: { type: 'string', minLength: 1, description: 'Default __cluster_metadata (the only topic served).' },
  producerConfig: {
    type: 'object',
    title: 'a mapping of producer configs to values',
    description: 'Java producer settings (--producer.config).',
    additionalProperties: ref('configValue'),
  },
  timeout: withDescription(
    ref('duration'),
    'Give up (the run fails) after this much virtual time (default 1h).',
  ),
} as const;

function serverOf(at: StepExecute): RaftTestServerCluster {
  if (!at.raftTestServer) throw new StepFailure('this step needs a raftTestServer scenario');
  return at.raftTestServer;
}

/** Runs until the tool is done, or fails the step after its timeout. */
function runUntilDone(
  server: RaftTestServerCluster,
  done: () => boolean,
  timeout: string,
  tool: string,
): void {
  try {
    server.sim.runUntil(done, { timeout: parseDuration(timeout), description: `${tool} done` });
  } catch (e) {
    if (e instanceof SimTimeoutError) throw new StepFailure(`${tool} did not finish within ${timeout}`);
    throw e;
  }
}

const configOf = (c: Record<string, ConfigValue> | undefined): ProducerConfigInput =>
  (c ?? {}) as ProducerConfigInput;

export const verifiableProducer: StepDefinition<VerifiableProducerSpec> = {
  schema: object(
    {
      ...common,
      maxMessages: { type: 'integer', minimum: 1, description: 'The values 0, 1, ... N-1 (--max-messages).' },
      throughput: {
        type: 'number',
        description: 'Messages per second (--throughput); -1: as fast as the producer takes them.',
      },
    },
    ['bootstrapServer', 'maxMessages', 'throughput'],
  ),
  syntax: '`{bootstrapServer, topic?, maxMessages, throughput, producerConfig?, timeout?}`',
  description:
    'kafka-run-class.sh org.apache.kafka.tools.VerifiableProducer against the Raft test servers: increasing values at `throughput` per second, one JSON line per acknowledgement (producer_send_success with its offset), then shutdown_complete and tool_data. The step lasts until the tool exits. Needs raftTestServer.',
  describe: (v) =>
    `$ kafka-run-class.sh org.apache.kafka.tools.VerifiableProducer --bootstrap-server ${v.bootstrapServer} --topic ${v.topic ?? '__cluster_metadata'} --max-messages ${v.maxMessages} --throughput ${v.throughput}`,
  execute(v, at) {
    const server = serverOf(at);
    const run = server.verifiableProducer({
      bootstrapServer: v.bootstrapServer,
      ...(v.topic !== undefined ? { topic: v.topic } : {}),
      maxMessages: v.maxMessages,
      throughput: v.throughput,
      config: configOf(v.producerConfig),
    });
    runUntilDone(server, () => run.done, v.timeout ?? '1h', 'the VerifiableProducer');
    return undefined;
  },
};

export const producerPerfTest: StepDefinition<ProducerPerfTestSpec> = {
  schema: object(
    {
      ...common,
      numRecords: { type: 'integer', minimum: 1, description: '--num-records.' },
      throughput: { type: 'number', description: 'Records per second (--throughput); -1: no limit.' },
      recordSize: { type: 'integer', minimum: 1, description: 'Bytes per record (--record-size).' },
    },
    ['bootstrapServer', 'numRecords', 'throughput', 'recordSize'],
  ),
  syntax: '`{bootstrapServer, topic?, numRecords, throughput, recordSize, producerConfig?, timeout?}`',
  description:
    "kafka-producer-perf-test.sh against the Raft test servers: its progress lines and final summary (records/sec, latencies), the throughput made by the Raft write (append linger, the leader's append and fsync, a follower's Fetch and fsync). The step lasts until the tool exits. Needs raftTestServer.",
  describe: (v) =>
    `$ kafka-producer-perf-test.sh --topic ${v.topic ?? '__cluster_metadata'} --num-records ${v.numRecords} --throughput ${v.throughput} --record-size ${v.recordSize} --producer-props bootstrap.servers=${v.bootstrapServer}`,
  execute(v, at) {
    const server = serverOf(at);
    const report = server.producerPerfTest({
      bootstrapServer: v.bootstrapServer,
      ...(v.topic !== undefined ? { topic: v.topic } : {}),
      numRecords: v.numRecords,
      throughput: v.throughput,
      recordSize: v.recordSize,
      config: configOf(v.producerConfig),
    });
    runUntilDone(server, () => report.summary !== undefined, v.timeout ?? '1h', 'kafka-producer-perf-test');
    return undefined;
  },
};
