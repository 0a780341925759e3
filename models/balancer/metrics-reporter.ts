/**
 * A broker's auto-balancer metrics reporter (AutoMQ's
 * `metricsreporter/AutoBalancerMetricsReporter.java`):
 * every 5 s it ticks a one-minute-rate meter per partition the broker leads, fed by the partition's bytes-in
 * and bytes-out counters; every `autobalancer.reporter.metrics.reporting.interval.ms` it sends the latest rates
 * and the broker's pending append and fetch latencies to the active controller.
 *
 * It is attached to a broker from the composition root and reads only the broker's public state, so the broker
 * model knows nothing about it. Its timers run on the simulation; while the broker is down it sends nothing,
 * and a restarted broker starts with fresh meters (meters are in memory).
 *
 * Simplifications: all of a broker's meters tick together on the reporter's 5 s clock (Yammer ticks each meter
 * from its own creation time); a partition's meter starts at the first tick that finds the broker leading it;
 * the latencies are the broker's modeled ones (its `kafkasim.broker.append.latency.ms` inflated by network load,
 * as the broker's own produce path computes them), not measured; PARTITION_SIZE is not reported.
 */

import type { Broker, Replica } from '../broker/index.ts';
import {
  AUTO_BALANCER_METRICS,
  type AutoBalancerMetricsRequest,
  type AutoBalancerMetricsResponse,
  Errors,
} from '../protocol/index.ts';
import type { NodeId, Simulation } from '../sim/index.ts';
import { METER_TICK_MS } from './config.ts';
import { OneMinuteRate } from './meter.ts';

interface PartitionMeters {
  readonly replica: Replica;
  lastBytesIn: number;
  lastBytesOut: number;
  readonly bytesIn: OneMinuteRate;
  readonly bytesOut: OneMinuteRate;
}

export interface MetricsReporterOptions {
  /** Controller node ids; the report goes to the active one (moving on when told NOT_CONTROLLER). */
  controllers: readonly NodeId[];
  /** Read at every report, so that a runtime change applies from the next one. */
  reportingIntervalMs: () => number;
}

export class AutoBalancerMetricsReporter {
  private readonly sim: Simulation;
  private meters = new Map<string, PartitionMeters>();
  private incarnation = -1;
  private controllerIndex = 0;
  private outRate = 0;
  private stopped = false;
  /** Reports sent so far (for tests and reports). */
  sent = 0;

  constructor(
    readonly broker: Broker,
    private readonly options: MetricsReporterOptions,
  ) {
    this.sim = broker.sim;
  }

  /** Starts ticking and reporting (first report one interval from now). */
  start(): this {
    this.sim.schedule(METER_TICK_MS, () => this.tick(), 'balancer.reporter-tick');
    this.sim.schedule(this.options.reportingIntervalMs(), () => this.report(), 'balancer.reporter-report');
    return this;
  }

  stop(): void {
    this.stopped = true;
  }

  private sync(): boolean {
    if (!this.broker.up) return false;
    if (this.incarnation !== this.broker.incarnation) {
      this.incarnation = this.broker.incarnation;
      this.meters = new Map();
      this.outRate = 0;
    }
    return true;
  }

  private tick(): void {
    if (this.stopped) return;
    this.sim.schedule(METER_TICK_MS, () => this.tick(), 'balancer.reporter-tick');
    if (!this.sync()) return;
    const next = new Map<string, PartitionMeters>();
    let out = 0;
    for (const replica of this.broker.replicas.values()) {
      if (replica.role !== 'leader') continue;
      let m = this.meters.get(replica.key);
      if (!m || m.replica !== replica) {
        m = {
          replica,
          lastBytesIn: replica.bytesIn,
          lastBytesOut: replica.bytesOut,
          bytesIn: new OneMinuteRate(),
          bytesOut: new OneMinuteRate(),
        };
      } else {
        m.bytesIn.tick(replica.bytesIn - m.lastBytesIn);
        m.bytesOut.tick(replica.bytesOut - m.lastBytesOut);
        m.lastBytesIn = replica.bytesIn;
        m.lastBytesOut = replica.bytesOut;
      }
      out += m.bytesOut.value;
      next.set(replica.key, m);
    }
    this.meters = next;
    this.outRate = out;
  }

  /** The broker's append latency as its produce path models it: base / (1 − utilisation). */
  private latency(rate: number, capacity: number): number {
    const rho = Math.min(0.95, rate / capacity);
    return this.broker.config['kafkasim.broker.append.latency.ms'] / (1 - rho);
  }

  /** What the next report would carry. */
  snapshot(): AutoBalancerMetricsRequest {
    const cfg = this.broker.config;
    const partitions = [...this.meters.values()]
      .filter((m) => this.broker.replicas.get(m.replica.key) === m.replica && m.replica.role === 'leader')
      .map((m) => ({
        topic: m.replica.topic,
        partition: m.replica.partition,
        bytesIn: m.bytesIn.value,
        bytesOut: m.bytesOut.value,
      }));
    return {
      type: AUTO_BALANCER_METRICS,
      brokerId: this.broker.brokerId,
      rack: this.broker.rack,
      time: this.sim.now,
      pendingAppendLatencyMs: this.latency(
        this.broker.networkInRate,
        cfg['kafkasim.broker.network.in.bytes.per.sec'],
      ),
      pendingFetchLatencyMs: this.latency(this.outRate, cfg['kafkasim.broker.network.out.bytes.per.sec']),
      partitions,
    };
  }

  private report(): void {
    if (this.stopped) return;
    this.sim.schedule(this.options.reportingIntervalMs(), () => this.report(), 'balancer.reporter-report');
    if (!this.sync() || this.options.controllers.length === 0) return;
    const controllers = this.options.controllers;
    const to = controllers[this.controllerIndex % controllers.length]!;
    this.sent++;
    this.broker.request<AutoBalancerMetricsResponse & { controllerNodeId?: string }>(
      to,
      this.snapshot(),
      (o) => {
        if (!o.ok) {
          this.controllerIndex++;
          return;
        }
        if (o.response.errorCode === Errors.NOT_CONTROLLER.code) {
          const hinted = o.response.controllerNodeId ? controllers.indexOf(o.response.controllerNodeId) : -1;
          this.controllerIndex = hinted >= 0 ? hinted : this.controllerIndex + 1;
        }
      },
    );
  }
}
