// What a cluster is built from: the options of `new Cluster(options)` / `createCluster` (the library's and the
// scenario runner's way to describe a world), and the controllers' node ids.
import type { AutoBalancerConfigInput, Goal } from '../../models/balancer/index.ts';
import type { BrokerConfig } from '../../models/broker/config.ts';
import type { ControllerConfig } from '../../models/controller/index.ts';
import type { LakeOptions } from '../../models/lake/index.ts';
import { controllerNodeId } from '../../models/protocol/index.ts';
import type { QuorumConfig } from '../../models/raft/index.ts';
import type { Distribution, NodeId } from '../../models/sim/index.ts';
import type { StorageMode } from '../../models/storage/index.ts';

export interface BrokerSpec {
  id: number;
  rack?: string | null;
}

export interface ClusterOptions {
  seed?: number | string;
  /** A count (ids from `firstBrokerId`, default 0) or explicit brokers with racks. Default 3. */
  brokers?: number | BrokerSpec[];
  firstBrokerId?: number;
  storage?: StorageMode;
  /** Broker settings (Kafka keys, plus kafkasim.* model parameters). */
  brokerConfig?: Partial<BrokerConfig>;
  /** Static broker configs, as server.properties would set them (e.g. log.segment.bytes). */
  serverProperties?: Record<string, string>;
  controllerConfig?: Partial<ControllerConfig>;
  /**
   * Controllers in the KRaft metadata quorum (node ids 3000, 3001, ...; network ids controller-<id>). Default 1:
   * a single controller on a local metadata log. More: each is a Raft voter and the Raft leader is active.
   */
  controllers?: number;
  /** `controller.quorum.*` settings of the metadata quorum (with `controllers` > 1). */
  quorumConfig?: Partial<QuorumConfig>;
  /**
   * A steady append load on the metadata log (the Raft test server's workload): the active controller appends
   * numbered NoOpRecords at `recordsPerSec`, and every controller checks the committed numbers run 1, 2, 3, ...
   * (the `ReplicatedCounter` invariant).
   */
  metadataLoad?: { recordsPerSec: number };
  /** Network latency between any two nodes. Default lognormal, median 0.5 ms. */
  latency?: Distribution;
  invariantEvery?: number;
  /**
   * The data-plane invariants (high watermark within the log, ISR logs agree up to it, acknowledged acks=all
   * batches in every ISR member's log, ...), checked with the Raft ones. Default true.
   */
  dataPlaneInvariants?: boolean;
  traceBufferSize?: number;
  /** Where tool-format output lines go (default: kept in `cluster.output`). */
  out?: (line: string) => void;
  /**
   * AutoMQ's auto-balancer on the controller and its metrics reporter on every broker: `true` for AutoMQ's
   * defaults, or `autobalancer.*` keys (AutoMQ's names; `autobalancer.controller.enable` defaults to true).
   * Absent or false: no balancer (Apache Kafka has none).
   */
  autobalancer?: boolean | AutoBalancerConfigInput;
  /** Replaces the balancer's goal list (e.g. with user goals); needs `autobalancer`. */
  balancerGoals?: readonly Goal[];
  /** Print the balancer's decisions to `out` as `[AutoBalancer] ...` lines. Default true. */
  balancerLog?: boolean;
  /** The Lake's users, DuckDB limits and per-statement watchdog (created on first use). */
  lake?: LakeOptions;
  /** kafkasim.tool.startup.ms: an operator's tool from the command typed to its first request (startup.ts). */
  toolStartup?: Distribution;
  /** kafkasim.client.startup.ms: a scenario client's process from launch to its Kafka client (startup.ts). */
  clientStartup?: Distribution;
  /**
   * The virtual wall clock: epoch milliseconds at virtual time 0, for every timestamp the tools print. Default
   * 2026-01-01T00:00:00Z (DEFAULT_START_TIME), fixed so that output is deterministic.
   */
  startTime?: number;
}

/** The first controller's `node.id`; the others follow (3001, 3002), as in Kafka's examples. */
export const FIRST_CONTROLLER_ID = 3000;

export const CONTROLLER_NODE: NodeId = controllerNodeId(FIRST_CONTROLLER_ID);
