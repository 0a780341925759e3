// The Raft test server's workflow (apache/kafka raft/README.md of the KAFKA-10533 era): a quorum of
// `bin/test-raft-server-start.sh config/raft-quorum-N.properties` servers, a VerifiableProducer writing increasing
// numbers to `__cluster_metadata`, and kafka-producer-perf-test against the same topic "to compare throughput with
// Kafka". Each properties file is read as the test server reads it: `broker.id` (or `node.id`), `listeners`,
// `quorum.voters` (later `controller.quorum.voters`), `log.dirs`; other keys (`zookeeper.connect`, `verbose`, ...)
// are accepted and left alone, as the server's config ignores keys it does not define.
import { type ClientFlavour, Producer, type ProducerConfigInput } from '../../models/clients/index.ts';
import { ProducerPerfWorkload } from '../../models/clients/producer-perf.ts';
import { brokerNodeId } from '../../models/protocol/index.ts';
import {
  parseQuorumVoters,
  type QuorumConfig,
  type QuorumMember,
  RAFT_TOPIC,
  registerRaftInvariants,
  TestRaftServer,
} from '../../models/raft/index.ts';
import { type Distribution, Simulation } from '../../models/sim/index.ts';
import { formatVerifiableProducerEvent } from '../format/index.ts';
import { attachProducerLog, type PerfProducerReport, reportProducerPerf } from './reporters.ts';

/** One server's properties file: its name (for errors) and its text. */
export interface RaftServerProperties {
  file: string;
  text: string;
}

/** What a test server takes from its properties file. */
export interface RaftServerSettings {
  nodeId: number;
  host: string;
  port: number;
  voters: { id: number; host: string; port: number }[];
  logDirs: string;
  /** Keys the server accepted without using them. */
  ignored: string[];
}

/** Reads one `raft-quorum-N.properties` (Java properties: `key=value`, `#` comments); throws on what it needs and lacks. */
export function parseRaftServerProperties(p: RaftServerProperties): RaftServerSettings {
  const values = new Map<string, string>();
  p.text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) return;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (!m) throw new Error(`${p.file} line ${i + 1}: '${line}' is not key=value`);
    values.set(m[1]!, m[2]!.trim());
  });
  const need = (...keys: string[]): string => {
    for (const k of keys) if (values.has(k)) return values.get(k)!;
    throw new Error(`${p.file}: ${keys.join(' or ')} is required`);
  };
  const id = need('node.id', 'broker.id');
  if (!/^\d+$/.test(id)) throw new Error(`${p.file}: node id '${id}' is not a whole number`);
  const listener = /^[A-Z_]+:\/\/([^:]*):(\d+)$/.exec(need('listeners').split(',')[0]!.trim());
  if (!listener) throw new Error(`${p.file}: listeners '${values.get('listeners')}' is not NAME://host:port`);
  const votersText = need('controller.quorum.voters', 'quorum.voters');
  let voters: { id: number; host: string; port: number }[];
  try {
    voters = parseQuorumVoters(votersText);
  } catch (e) {
    throw new Error(`${p.file}: ${(e as Error).message}`);
  }
  const used = new Set([
    'node.id',
    'broker.id',
    'listeners',
    'controller.quorum.voters',
    'quorum.voters',
    'log.dirs',
  ]);
  return {
    nodeId: Number(id),
    host: listener[1] || 'localhost',
    port: Number(listener[2]),
    voters,
    logDirs: values.get('log.dirs') ?? '/tmp/kraft-combined-logs',
    ignored: [...values.keys()].filter((k) => !used.has(k)),
  };
}

export interface RaftTestServerOptions {
  seed?: number | string;
  /** One properties file per server. */
  properties: readonly RaftServerProperties[];
  /** controller.quorum.* and kafkasim.raft.* settings of every server. */
  quorumConfig?: Partial<QuorumConfig>;
  /** Network latency between any two nodes. Default the simulation's (1 ms). */
  latency?: Distribution;
  /** Epoch milliseconds at virtual time 0 (the tools' timestamps). */
  startTime?: number;
  out?: (line: string) => void;
}

/** The result of a VerifiableProducer run. */
export interface VerifiableProducerRun {
  readonly producer: Producer;
  readonly lines: string[];
  /** Offsets of the acknowledged values, by value. */
  readonly acked: Map<number, number>;
  done: boolean;
}

export class RaftTestServerCluster {
  readonly sim: Simulation;
  readonly servers = new Map<number, TestRaftServer>();
  readonly settings: RaftServerSettings[];
  readonly output: string[] = [];
  readonly #out: ((line: string) => void) | undefined;
  #clients = 0;

  constructor(options: RaftTestServerOptions) {
    if (options.properties.length === 0)
      throw new Error('a Raft test server needs at least one properties file');
    this.settings = options.properties.map(parseRaftServerProperties);
    const voters = this.settings[0]!.voters;
    for (const s of this.settings) {
      if (JSON.stringify(s.voters) !== JSON.stringify(voters))
        throw new Error(`node ${s.nodeId}: its quorum voters differ from node ${this.settings[0]!.nodeId}'s`);
      if (!voters.some((v) => v.id === s.nodeId))
        throw new Error(
          `node ${s.nodeId} is not among the quorum voters ${voters.map((v) => v.id).join(',')}`,
        );
    }
    this.#out = options.out;
    this.sim = new Simulation({
      seed: options.seed ?? 1,
      ...(options.latency ? { defaultLatency: options.latency } : {}),
      ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
      traceBufferSize: 1000,
    });
    const endpoints = new Map(voters.map((v) => [v.id, { host: v.host, port: v.port }]));
    for (const s of this.settings) {
      if (this.servers.has(s.nodeId)) throw new Error(`node id ${s.nodeId} is used by two properties files`);
      this.servers.set(
        s.nodeId,
        new TestRaftServer(this.sim, {
          nodeId: s.nodeId,
          voters: voters.map((v) => v.id),
          address: brokerNodeId(s.nodeId),
          addressOf: brokerNodeId,
          endpoints,
          diskKey: s.logDirs,
          followersAlwaysFlush: true,
          ...(options.quorumConfig ? { config: options.quorumConfig } : {}),
        }),
      );
    }
    // The checks of Kafka's RaftEventSimulationTest over the voters, after every event (KAFKA-10533's test).
    const members: QuorumMember[] = [...this.servers.values()].map((server) => ({
      replicaId: server.replicaId,
      get up() {
        return server.up;
      },
      raft: server.raft,
    }));
    registerRaftInvariants(
      this.sim,
      () => members,
      voters.map((v) => v.id),
    );
  }

  readonly print = (line: string): void => {
    this.output.push(line);
    this.#out?.(line);
  };

  /** Starts every server and runs until one leads. */
  start(): void {
    for (const s of this.servers.values()) s.start();
    this.sim.runUntil(() => this.leader !== undefined, { timeout: 30_000, description: 'a Raft leader' });
  }

  get leader(): TestRaftServer | undefined {
    for (const s of this.servers.values()) if (s.up && s.raft.isLeader) return s;
    return undefined;
  }

  /** The node a `--bootstrap-server localhost:9092` reaches: the server whose listener has that port. */
  bootstrap(server: string): number {
    const port = Number(
      server
        .replace(/^[a-z]+:\/\//, '')
        .split(':')
        .at(-1),
    );
    const s = this.settings.find((x) => x.port === port);
    if (!s) throw new Error(`no test server listens on ${server}`);
    return s.nodeId;
  }

  #producer(
    bootstrap: string,
    clientId: string,
    config: ProducerConfigInput,
    flavour: ClientFlavour,
  ): Producer {
    const p = new Producer(this.sim, `client-${++this.#clients}`, {
      flavour,
      bootstrap: [brokerNodeId(this.bootstrap(bootstrap))],
      config: { 'client.id': clientId, ...config },
    });
    attachProducerLog(p, this.print);
    p.start();
    return p;
  }

  /**
   * `kafka-run-class.sh org.apache.kafka.tools.VerifiableProducer --bootstrap-server ... --topic ... --max-messages N
   * --throughput T`: the values 0, 1, 2, ... at T per second (ThroughputThrottler), one JSON line per
   * acknowledgement, then shutdown_complete and tool_data.
   */
  verifiableProducer(options: {
    bootstrapServer: string;
    topic?: string;
    maxMessages: number;
    throughput: number;
    config?: ProducerConfigInput;
  }): VerifiableProducerRun {
    const topic = options.topic ?? RAFT_TOPIC;
    const producer = this.#producer(options.bootstrapServer, 'producer-1', options.config ?? {}, 'java');
    const run: VerifiableProducerRun = { producer, lines: [], acked: new Map(), done: false };
    const print = (name: string, fields: Record<string, unknown> = {}) => {
      const line = formatVerifiableProducerEvent(Math.floor(this.sim.wallClock), name, fields);
      run.lines.push(line);
      this.print(line);
    };
    const start = this.sim.now;
    print('startup_complete');
    let sent = 0;
    let settled = 0;
    const finish = () => {
      if (run.done || settled < options.maxMessages) return;
      run.done = true;
      print('shutdown_complete');
      const seconds = (this.sim.now - start) / 1000;
      print('tool_data', {
        sent,
        acked: run.acked.size,
        target_throughput: options.throughput,
        avg_throughput: seconds > 0 ? sent / seconds : 0,
      });
    };
    const sendOne = () => {
      const value = sent++;
      producer.send({ topic, value: String(value) }, (r) => {
        settled++;
        if (r.error)
          print('producer_send_error', {
            exception: r.error,
            message: r.error,
            topic,
            key: null,
            value: String(value),
          });
        else {
          run.acked.set(value, r.baseOffset);
          print('producer_send_success', {
            key: null,
            value: String(value),
            partition: r.partition,
            topic,
            offset: r.baseOffset,
          });
        }
        finish();
      });
    };
    const interval = options.throughput > 0 ? 1000 / options.throughput : 0;
    for (let i = 0; i < options.maxMessages; i++)
      this.sim.schedule(i * interval, sendOne, 'verifiable-producer.send');
    return run;
  }

  /** `kafka-producer-perf-test.sh --topic __cluster_metadata --num-records N --throughput T --record-size S`. */
  producerPerfTest(options: {
    bootstrapServer: string;
    topic?: string;
    numRecords: number;
    throughput: number;
    recordSize: number;
    config?: ProducerConfigInput;
  }): PerfProducerReport {
    const producer = this.#producer(
      options.bootstrapServer,
      'perf-producer-client',
      options.config ?? {},
      'java',
    );
    const workload = new ProducerPerfWorkload(producer, {
      topic: options.topic ?? RAFT_TOPIC,
      numRecords: options.numRecords,
      throughput: options.throughput,
      recordSize: options.recordSize,
    });
    const report = reportProducerPerf(workload, this.print);
    workload.start();
    return report;
  }
}
