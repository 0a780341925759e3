// The simulated world a server serves: one cluster with its workloads (and, for a lesson, its timeline), built
// from WorldOptions alone (a fresh cluster, or a scenario's cluster, topics and auto-start clients), so that the
// request log's `world` plus its entries rebuild a run exactly. SimHost (host.ts) serves it.

import { randomUUID } from 'node:crypto';
import { LakeHttpApi, type LakeOptions } from '../../models/lake/index.ts';
import { configMap } from '../../models/metadata/index.ts';
import type { Simulation } from '../../models/sim/index.ts';
import type { StorageMode } from '../../models/storage/index.ts';
import { Cluster, type ClusterOptions } from '../cluster/index.ts';
import {
  clusterOptionsOf,
  type LoadedScenario,
  loadScenarioText,
  setUpScenarioCluster,
} from '../scenario/index.ts';
import { LessonRun } from './lesson.ts';
import { type Workload, WorkloadRegistry } from './workload.ts';
import { ConsumerRun, ProducerPerfRun, SteadyProducerRun } from './workloads.ts';

/** What a world is built from; kept in the request log so that a replay builds the same one. */
export interface WorldOptions {
  /** Default: the scenario's seed, else 1. */
  seed?: number | string;
  /** Broker count when no scenario is given (default 3). */
  brokers?: number;
  /** First broker id (default 0). */
  firstBrokerId?: number;
  /** Controllers in the KRaft metadata quorum when no scenario is given (default 1; 3 makes a Raft quorum). */
  controllers?: number;
  storage?: StorageMode;
  /** AutoMQ's auto-balancer on the controller (`autobalancer.controller.enable=true`). */
  autobalancer?: boolean;
  /** Static broker configs (server.properties). */
  serverProperties?: Record<string, string>;
  /** A scenario's YAML text: its cluster, topics, clients and faults (the timeline is `kafkasim run`'s). */
  scenario?: { text: string; name: string; baseDir?: string };
  /** Serve the scenario as a guided lesson: its own clients, its timeline step by step (lesson.ts). */
  lesson?: boolean;
  traceBufferSize?: number;
}

/** Limits on what one world may hold (the CLI and scenario loads are checked against them). */
export const WORLD_LIMITS = { maxBrokers: 64, maxControllers: 9 } as const;

/** How the host builds worlds beyond what the request log records (never logged: it may hold secrets). */
export interface HostOptions {
  /** The Lake's users, DuckDB limits and watchdog, for every world this host builds. */
  lake?: LakeOptions;
  /** Default REQUEST_LOG_LIMITS (tests lower them). */
  requestLogLimits?: { maxBytes: number; maxEntries: number };
}

/** The KRaft quickstart's server.properties value the source workflows' describe output shows. */
export const QUICKSTART_SERVER_PROPERTIES: Readonly<Record<string, string>> = Object.freeze({
  'log.segment.bytes': '1073741824',
});

/** One simulated cluster with its workloads. */
export class World {
  readonly workloads: WorkloadRegistry;
  readonly clusterId: string;
  /** The scenario's timeline as a lesson, when served as one. */
  lesson: LessonRun | undefined;
  private lakeHttp: LakeHttpApi | undefined;

  constructor(
    readonly cluster: Cluster,
    readonly scenario: LoadedScenario | undefined,
  ) {
    this.workloads = new WorkloadRegistry(cluster);
    this.clusterId = clusterIdFor(cluster.sim.seed);
  }

  get sim(): Simulation {
    return this.cluster.sim;
  }

  /** The Lake's HTTP API as served: query and session ids are crypto-random uuids, so nobody can guess one. */
  get lakeHttpApi(): LakeHttpApi {
    this.lakeHttp ??= new LakeHttpApi(this.cluster.lake, { newId: randomUUID });
    return this.lakeHttp;
  }
}

/**
 * A KRaft-style cluster id (22 characters of URL-safe base64, like `MkU3OEVBNTcwNTJENDM2Qg`), derived from the
 * seed so that the same seed serves the same id.
 */
export function clusterIdFor(seed: string): string {
  const bytes = new Uint8Array(16);
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  const text = `kafkasim-cluster:${seed}`;
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < text.length; i++) {
      h1 = Math.imul(h1 ^ text.charCodeAt(i), 0x01000193);
      h2 = Math.imul(h2 ^ text.charCodeAt(i), 0x5bd1e995) ^ (h2 >>> 15);
    }
    h1 = Math.imul(h1 ^ round, 0x01000193);
    const word = (h1 ^ h2) >>> 0;
    bytes[round * 4] = word >>> 24;
    bytes[round * 4 + 1] = (word >>> 16) & 0xff;
    bytes[round * 4 + 2] = (word >>> 8) & 0xff;
    bytes[round * 4 + 3] = word & 0xff;
  }
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Builds and starts a world; a scenario's topics are created and its auto-start clients started. `loaded` is the
 * scenario already parsed and checked (a request parses it once); without it the text is loaded here.
 */
export function buildWorld(options: WorldOptions, host: HostOptions = {}, loaded?: LoadedScenario): World {
  if (options.scenario) {
    const { text, name, baseDir } = options.scenario;
    const scenario =
      loaded ??
      loadScenarioText(text, name, baseDir !== undefined ? { baseDir } : { allowFileReferences: false });
    return worldFromScenario(scenario, options, host);
  }
  const brokers = options.brokers ?? 3;
  if (!(Number.isInteger(brokers) && brokers >= 1 && brokers <= WORLD_LIMITS.maxBrokers)) {
    throw new RangeError(`brokers must be an integer from 1 to ${WORLD_LIMITS.maxBrokers}, got ${brokers}`);
  }
  const cluster = new Cluster({
    seed: options.seed ?? 1,
    brokers,
    ...(options.autobalancer ? { autobalancer: true } : {}),
    ...(options.firstBrokerId !== undefined ? { firstBrokerId: options.firstBrokerId } : {}),
    ...(options.controllers !== undefined ? { controllers: options.controllers } : {}),
    storage: options.storage ?? 'kafka',
    serverProperties: configMap([
      ...Object.entries(QUICKSTART_SERVER_PROPERTIES),
      ...Object.entries(options.serverProperties ?? {}),
    ]),
    ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
    ...(host.lake ? { lake: host.lake } : {}),
    // Tool output goes to each workload's own stream; nothing else prints.
    out: () => {},
  });
  cluster.start();
  awaitMetadata(cluster);
  return new World(cluster, undefined);
}

/** Runs until every broker has replayed the controller's committed metadata, so the first reads are current. */
function awaitMetadata(cluster: Cluster): void {
  cluster.runUntil(
    () =>
      [...cluster.brokers.values()].every((b) => !b.up || b.image.offset >= cluster.controller.image.offset),
    { timeout: '30s', description: 'every broker replaying the committed metadata' },
  );
}

function worldFromScenario(loaded: LoadedScenario, options: WorldOptions, host: HostOptions): World {
  const spec = loaded.spec;
  const clusterOptions: ClusterOptions = clusterOptionsOf(spec, options.seed ?? spec.seed ?? 1);
  const brokers = clusterOptions.brokers ?? 3;
  const count = typeof brokers === 'number' ? brokers : brokers.length;
  if (count > WORLD_LIMITS.maxBrokers) {
    throw new RangeError(
      `a served scenario may have at most ${WORLD_LIMITS.maxBrokers} brokers, this one has ${count}`,
    );
  }
  const cluster = new Cluster({
    ...clusterOptions,
    ...(options.autobalancer ? { autobalancer: true } : {}),
    ...(options.traceBufferSize !== undefined ? { traceBufferSize: options.traceBufferSize } : {}),
    ...(host.lake ? { lake: host.lake } : {}),
    out: () => {},
  });
  setUpScenarioCluster(cluster, spec);
  awaitMetadata(cluster);
  const world = new World(cluster, loaded);
  if (options.lesson) {
    world.lesson = new LessonRun(cluster, loaded);
    return world;
  }
  const autoStart: string[] = [];
  const clients = spec.clients ?? {};
  const add = (w: Workload, auto: boolean | undefined) => {
    world.workloads.add(w);
    if (auto) autoStart.push(w.name);
  };
  for (const p of clients.producers ?? []) {
    add(
      new SteadyProducerRun(p.name, {
        topic: p.topic,
        rate: p.rate,
        ...(p.recordSize !== undefined ? { recordSize: p.recordSize } : {}),
        ...(p.records !== undefined ? { records: p.records } : {}),
        ...(p.keys ? { keys: p.keys } : {}),
        ...(p.partition !== undefined ? { partition: p.partition } : {}),
        ...(p.flavour ? { flavour: p.flavour } : {}),
        ...(p.config ? { config: p.config as never } : {}),
      }),
      p.autoStart,
    );
  }
  for (const c of clients.consumers ?? []) {
    add(
      new ConsumerRun(c.name, {
        topic: c.topic,
        ...(c.partitions ? { partitions: c.partitions } : {}),
        ...(c.flavour ? { flavour: c.flavour } : {}),
        ...(c.config ? { config: c.config as never } : {}),
      }),
      c.autoStart,
    );
  }
  for (const p of clients.perfProducers ?? []) {
    add(
      new ProducerPerfRun(p.name, {
        topic: p.topic,
        numRecords: p.numRecords,
        throughput: p.throughput,
        recordSize: p.recordSize,
        ...(p.flavour ? { flavour: p.flavour } : {}),
        ...(p.config ? { config: p.config as never } : {}),
      }),
      p.autoStart,
    );
  }
  for (const name of autoStart) world.workloads.start(name);
  return world;
}
