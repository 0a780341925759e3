/**
 * The one-minute rate of a Yammer meter, which is what AutoMQ's reporter sends as a partition's bytes-in and
 * bytes-out (`metricsreporter/AutoBalancerMetricsReporter.java`: `oneMinuteRate`, 1-minute EWMA, 5 s tick).
 *
 * The EWMA rule is Yammer metrics' `EWMA.tick` (com.yammer.metrics.stats.EWMA, also Dropwizard's): every 5 s,
 * instantRate = count / 5 s and rate += alpha · (instantRate − rate) with alpha = 1 − e^(−5/60); the first tick
 * sets rate = instantRate. Before the first tick the rate reads 0.
 */
import { METER_TICK_MS } from './config.ts';

export const ONE_MINUTE_ALPHA = 1 - Math.exp(-METER_TICK_MS / 60_000);

export class OneMinuteRate {
  /** Per second. */
  private rate = 0;
  private initialized = false;

  /** Feeds the `count` seen during the last 5 s tick. */
  tick(count: number): void {
    const instantRate = count / (METER_TICK_MS / 1000);
    if (this.initialized) this.rate += ONE_MINUTE_ALPHA * (instantRate - this.rate);
    else {
      this.rate = instantRate;
      this.initialized = true;
    }
  }

  /** Units per second. */
  get value(): number {
    return this.rate;
  }
}
