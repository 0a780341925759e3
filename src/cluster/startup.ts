// How long a process takes before it does anything on the network: an operator's tool (kafka-topics.sh,
// kafka-reassign-partitions.sh, the perf tools: a JVM that loads Kafka's classes and builds an Admin or producer
// client before its first request reaches the cluster) and a client application (process start to the moment its
// Kafka client is created and its timers start counting). Both are drawn from seeded streams of their own, so a
// seed moves where an operator's command lands in the clients' metadata refresh cycles, as it does in life, and
// adding a draw never changes any other component's.
//
// Defaults (kafkasim model parameters; set them in a scenario's cluster.configs, 0 turns them off):
// - kafkasim.tool.startup.ms: lognormal, median 1.5 s, sigma 0.35, at least 0.5 s (p5 ≈ 0.85 s, p95 ≈ 2.7 s).
//   Users report Kafka's shell tools taking "~1-2 sec" on an ordinary machine and 7 s on a slow one before they
//   answer (https://github.com/bitnami/charts/issues/4401, https://github.com/bitnami/containers/issues/24486):
//   the JVM starts, loads the tool's classes and its Admin client fetches bootstrap metadata before the request.
// - kafkasim.client.startup.ms: lognormal, median 300 ms, sigma 0.5 (p5 ≈ 130 ms, p95 ≈ 690 ms), an assumption
//   for a client process (a JVM application, or a Go program with librdkafka, which starts faster) from launch to
//   the creation of its Kafka client; bootstrap metadata and the coordinator lookup come after it, in the model.
import { type Distribution, parseDuration, type Simulation, sample } from '../../models/sim/index.ts';

/** The scenario keys (cluster.configs) that set them. */
export const STARTUP_KEYS = ['kafkasim.tool.startup.ms', 'kafkasim.client.startup.ms'] as const;

export const DEFAULT_TOOL_STARTUP: Distribution = { kind: 'lognormal', median: 1500, sigma: 0.35, min: 500 };
export const DEFAULT_CLIENT_STARTUP: Distribution = { kind: 'lognormal', median: 300, sigma: 0.5 };

/** A start-up setting as written: ms, a duration (`2s`) or a distribution (`{kind: lognormal, ...}`). */
export type StartupSetting = number | string | Distribution;

export function startupDistribution(value: StartupSetting, key: string): Distribution {
  if (typeof value === 'number' || typeof value === 'string') {
    let ms: number;
    try {
      ms = typeof value === 'number' ? value : parseDuration(value);
    } catch (e) {
      throw new Error(`${key}: ${(e as Error).message}`);
    }
    if (!(ms >= 0)) throw new Error(`${key}: a start-up time cannot be negative (${value})`);
    return { kind: 'constant', ms };
  }
  return value;
}

export class StartupTimes {
  readonly tool: Distribution;
  readonly client: Distribution;

  constructor(
    private readonly sim: Simulation,
    options: { tool?: Distribution; client?: Distribution } = {},
  ) {
    this.tool = options.tool ?? DEFAULT_TOOL_STARTUP;
    this.client = options.client ?? DEFAULT_CLIENT_STARTUP;
  }

  /** One run of an operator's tool: ms from the command typed to its first request leaving. */
  toolMs(): number {
    return sample(this.tool, this.sim.rng.stream('startup/tool'));
  }

  /** A client process named `name`: ms from its launch to the creation of its Kafka client. */
  clientMs(name: string): number {
    return sample(this.client, this.sim.rng.stream(`startup/client/${name}`));
  }
}
